#!/usr/bin/env python3
"""MariaDB's own tests of threads and locks, with the server run on one
glibc, in each condvar mode: one .sum line per test and mode.

    mtrtests.py --fetch CACHE
    mtrtests.py --run RUN --tree DIR [--server PATH] --out DIR [--jobs N]

--fetch unpacks Debian's mariadb-test, mariadb-test-data, mariadb-client
and mariadb-server packages (the tools mtr runs), at the version of the
machine's mariadb-server-core, into CACHE/mariadb-test/VERSION (once;
downloaded with the machine's apt sources, which have that version: a
point update comes from the security suite; nothing is installed, as
mariadb-test depends on mariadb-server, which would start the machine's
service) and prints that directory, or one line saying why not (exit
status 2).

DIR is that directory; PATH is the server (/usr/sbin/mariadbd).
mariadb-test-run.pl runs TESTS below with a server that is RUN PATH
(RUN: a sysroot's bin/run, so the server runs on that glibc; the clients
and the test driver run on the machine's), once as it is
(mtr/SUITE.TEST) and once with
GLIBC_TUNABLES=glibc.pthread.cond_legacy=1 given to the server only
(mtr/SUITE.TEST/cond_legacy): a glibc without the tunable ignores it, so
stock's second run is the baseline of the legacy mode.  mtr's results:
pass is PASS; fail, or no result at all, is FAIL; skipped is UNSUPPORTED
with mtr's reason; a test that failed and then passed on mtr's retry is
FLAKY.  A first line, mtr/server-libc, says whether the server maps the
sysroot's libc (ld.so --list): if it does not, nothing else is run.

The tests: lock waits, deadlocks, FLUSH locks, KILL of a
waiting connection, MDL, connection threads (one per connection, and the
pool of threads), and wait timeouts; chosen from the tests that run on
Debian's release build (the debug-sync ones do not) and take under 15 s
each here, so that the four runs of make check (stock and patched, two
modes each) take about four minutes.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

TESTS = """
main.lock main.lock_multi main.lock_kill main.lock_tables_lost_commit
main.flush main.flush_block_commit main.kill main.kill-2 main.mdl
main.connect main.pool_of_threads main.sp-threads main.no-threads
main.wait_timeout main.deadlock_innodb main.concurrent_innodb_safelog
main.innodb_mysql_lock innodb.innodb-lock innodb.deadlock_detect
innodb.trx_deadlock innodb.innodb_lock_wait_timeout_1 innodb.lock_release
innodb.skip_locked_nowait innodb.row_lock innodb.gap_locks innodb.innodb-xa
innodb.purge
""".split()
MODES = [("", None), ("/cond_legacy", "glibc.pthread.cond_legacy=1")]
# A whole run of mtr here takes about a minute.  mtr's own limits end a
# hung test (TESTCASE_TIMEOUT minutes, run twice: --retry=1) and the run
# (SUITE_TIMEOUT minutes) before this one (seconds) is reached.
TESTCASE_TIMEOUT = 3
SUITE_TIMEOUT = 12
LIMIT = 900
# "main.lock  [ pass ]  137", "innodb.deadlock_detect 'ON'  w2 [ pass ]  76"
# (w2: the worker, with --parallel), "main.processlist  [ skipped ]
# Requires debug build".
RESULT = re.compile(r"^(\S+?)(?: '([^']*)')?\s+(?:w\d+ )?\[ ([a-z-]+) \]\s*(.*)$")
# The machine's programs that the clients' package does not carry (they
# come with mariadb-client-core and mariadb-server-core).
SYSTEM_BIN = ("mariadb", "mariadb-check", "mariadb-upgrade", "my_print_defaults",
              "resolveip", "innochecksum", "mariadb-waitpid")
PACKAGES = ("mariadb-test", "mariadb-test-data", "mariadb-client", "mariadb-server")


def fetch(cache, server):
    """The unpacked packages' directory (see above); SystemExit(2) with
    why when they cannot be had."""
    def fail(why):
        print("mtrtests.py: %s" % why, file=sys.stderr)
        sys.exit(2)
    # The package of the server (mariadb-server-core; on Ubuntu 22.04
    # mariadb-server-core-10.6) gives the version.
    r = subprocess.run(["dpkg-query", "-S", server], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    owner = r.stdout.split(":")[0] if r.returncode == 0 else ""
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", owner],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if not owner or r.returncode != 0 or not r.stdout:
        fail("no installed package has %s (dpkg-query -S)" % server)
    version = r.stdout
    tree = os.path.join(cache, "mariadb-test", version.replace(":", "_"))
    if os.path.exists(os.path.join(tree, ".unpacked")):
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    debs = os.path.join(tree, "debs")
    os.makedirs(debs)
    download = ["apt-get", "download", "-q"] + ["%s=%s" % (p, version) for p in PACKAGES]
    r = subprocess.run(download, cwd=debs, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0 and os.geteuid() == 0:
        # Lists older than the installed server (a fresh image): once more
        # with current ones.
        subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        r = subprocess.run(download, cwd=debs, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("apt-get download of %s %s failed: %s" % (
            " ".join(PACKAGES), version, (r.stdout.strip().split("\n") or ["?"])[-1][:200]))
    for deb in sorted(os.listdir(debs)):
        if subprocess.run(["dpkg-deb", "-x", os.path.join(debs, deb), tree]).returncode != 0:
            fail("cannot unpack %s" % deb)
    shutil.rmtree(debs)
    # mtr looks for the server's shared files (charsets, error messages,
    # the system tables' SQL) next to its suite: the machine's, from
    # mariadb-server-core.
    share = os.path.join(tree, "usr", "share", "mysql")
    try:
        for name in sorted(os.listdir("/usr/share/mysql")):
            if not os.path.lexists(os.path.join(share, name)):
                os.symlink(os.path.join("/usr/share/mysql", name), os.path.join(share, name))
    except OSError as e:
        fail("the server's shared files: %s" % e)
    # What the unpacked programs link and this machine lacks (the
    # packages were not installed, so their dependencies were not either).
    missing = set()
    bindir = os.path.join(tree, "usr", "bin")
    for name in ("mariadb-test", "mariadb-admin", "mariadb-dump"):
        r = subprocess.run(["ldd", os.path.join(bindir, name)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        missing |= set(re.findall(r"^\s*(\S+) => not found", r.stdout, re.M))
    if missing:
        fail("the test programs need libraries this machine lacks: %s"
             % ", ".join(sorted(missing)))
    open(os.path.join(tree, ".unpacked"), "w").close()
    return tree


def basedir(tree, run, server, tunables, where):
    """A directory that mtr takes for a MariaDB installation (MTR_BINDIR):
    bin/ with the unpacked clients and the machine's, sbin/mariadbd that
    runs SERVER with RUN (and TUNABLES), mysql-test/ the unpacked suite,
    share/ and lib/ its shared files and the server's plugins."""
    os.makedirs(os.path.join(where, "bin"))
    os.makedirs(os.path.join(where, "sbin"))
    for d in (os.path.join(tree, "usr", "bin"), "/usr/bin"):
        for name in sorted(os.listdir(d)):
            if d == "/usr/bin" and name not in SYSTEM_BIN:
                continue
            link = os.path.join(where, "bin", name)
            if not os.path.lexists(link):
                os.symlink(os.path.join(d, name), link)
    wrapper = os.path.join(where, "sbin", "mariadbd")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n%sexec %s %s \"$@\"\n" % (
            "GLIBC_TUNABLES=%s; export GLIBC_TUNABLES\n" % shlex.quote(tunables)
            if tunables else "", shlex.quote(run), shlex.quote(server)))
    os.chmod(wrapper, 0o755)
    os.symlink(suite_dir(tree), os.path.join(where, "mysql-test"))
    for d in ("share", "lib"):   # shared files; server plugins in lib/mysql/plugin
        os.symlink(os.path.join(tree, "usr", d), os.path.join(where, d))
    return where


def suite_dir(tree):
    return os.path.join(tree, "usr", "share", "mysql", "mysql-test")


def parse(text, tests):
    """{name: (status, why)} from mtr's output, for TESTS (with their
    combinations, "SUITE.TEST/COMBINATION"); a test of TESTS with no
    result line is a FAIL."""
    seen = {}
    for line in text.split("\n"):
        m = RESULT.match(line.strip())
        if not m or m.group(1) not in tests:
            continue
        name = m.group(1) + ("/" + m.group(2) if m.group(2) else "")
        seen.setdefault(name, []).append((m.group(3), m.group(4).strip()))
    out = {}
    for name, results in seen.items():
        kinds = [k for k, _ in results]
        last, why = results[-1]
        if last == "skipped":
            out[name] = ("UNSUPPORTED", why)
        elif last in ("pass", "retry-pass"):
            out[name] = ("FLAKY" if any("fail" in k for k in kinds) else "PASS", "")
        else:
            out[name] = ("FAIL", "mtr: %s" % last)
    for t in tests:
        if not any(n == t or n.startswith(t + "/") for n in out):
            out[t] = ("FAIL", "no result from mtr (see its log)")
    return out


def server_libc(run, server):
    """None if SERVER run by RUN maps the libc.so.6 of RUN's sysroot, else why not."""
    try:
        r = subprocess.run([run, "--list", server], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "%s --list %s: %s" % (run, server, e)
    if r.returncode != 0 or "not found" in r.stdout:
        bad = [l.strip() for l in r.stdout.split("\n") if "not found" in l or "rror" in l]
        return "%s --list %s: exit %d: %s" % (run, server, r.returncode,
                                               (bad or [r.stdout.strip()])[0][:160])
    m = re.search(r"libc\.so\.6 => (\S+)", r.stdout)
    with open(run) as f:
        root = re.search(r'--library-path "([^":]+)', f.read())
    if not m or not root:
        return "ld.so --list names no libc.so.6: %s" % r.stdout.strip()[:160]
    if os.path.realpath(os.path.dirname(m.group(1))) != os.path.realpath(root.group(1)):
        return "the server maps %s, not the sysroot's" % m.group(1)
    return None


def run_mtr(cmd, cwd, env, work):
    """mtr's output; after LIMIT s it is killed, and so is every process
    left that names WORK (mtr's own directory) in its command line: the
    servers, whose my_safe_process puts each in a process group of its
    own."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        return p.communicate(timeout=LIMIT)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()[0] + "\n(killed after %d s)\n" % LIMIT
    finally:
        kill_named(work)


def kill_named(word):
    """SIGKILL to each process whose command line contains WORD, by PID."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if word.encode() in f.read():
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fetch", metavar="CACHE")
    ap.add_argument("--run", help="a sysroot's bin/run")
    ap.add_argument("--tree", help="the unpacked test packages")
    ap.add_argument("--server", default="/usr/sbin/mariadbd")
    ap.add_argument("--out", help="where mtr's output is kept")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tests", nargs="*", default=TESTS)
    a = ap.parse_args()
    if a.fetch:
        print(fetch(a.fetch, a.server))
        return
    if not (a.run and a.tree and a.out):
        ap.error("--run, --tree and --out are needed to run the tests")
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    why = server_libc(a.run, a.server)
    print("%s: mtr/server-libc%s" % ("FAIL" if why else "PASS", ": " + why if why else ""))
    if why:
        return
    for suffix, tunables in MODES:
        tag = "default" if not suffix else suffix.strip("/")
        work = tempfile.mkdtemp(prefix="mtr-")   # short: Unix socket paths
        try:
            env = dict(os.environ, MTR_BINDIR=basedir(a.tree, a.run, a.server, tunables,
                                                      os.path.join(work, "base")))
            env.pop("GLIBC_TUNABLES", None)
            cmd = ["perl", "mariadb-test-run.pl", "--vardir=" + os.path.join(work, "var"),
                   "--parallel=%d" % a.jobs, "--force", "--max-test-fail=0", "--retry=1",
                   "--testcase-timeout=%d" % TESTCASE_TIMEOUT,
                   "--suite-timeout=%d" % SUITE_TIMEOUT] + a.tests
            text = run_mtr(cmd, suite_dir(a.tree), env, work)
            with open(os.path.join(a.out, "mtr-%s.log" % tag), "w") as f:
                f.write(text)
            results = parse(text, a.tests)
            var_log = os.path.join(work, "var", "log")
            if os.path.isdir(var_log) and any(s not in ("PASS", "UNSUPPORTED")
                                              for s, _ in results.values()):
                shutil.copytree(var_log, os.path.join(a.out, "mtr-%s-var-log" % tag),
                                dirs_exist_ok=True, ignore_dangling_symlinks=True,
                                ignore=shutil.ignore_patterns("*.sock", "*.pid"))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for name, (status, reason) in sorted(results.items()):
            print("%s: mtr/%s%s%s" % (status, name, suffix, ": " + reason if reason else ""))


if __name__ == "__main__":
    main()
