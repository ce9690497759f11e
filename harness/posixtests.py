#!/usr/bin/env python3
"""The condition variable subset of the Open POSIX Test Suite against one
glibc, in each condvar mode: one .sum line per test and mode.

    posixtests.py --src POSIXTESTSUITE --cc CC --out DIR [--jobs N]

Every conformance test of pthread_cond_* and pthread_condattr_*
(conformance/interfaces/pthread_cond*/N-M.c) is built with CC (a sysroot's
compiler wrapper, so it runs on that glibc) and run twice: as it is
(posix/INTERFACE/N-M) and with GLIBC_TUNABLES=glibc.pthread.cond_legacy=1
(posix/INTERFACE/N-M/cond_legacy).  A glibc without the tunable ignores
it, so stock's second run is the baseline for the legacy mode.  The
suite's exit codes (posixtest.h): 0 PASS, 1 FAIL, 2 UNRESOLVED,
4 UNSUPPORTED, 5 UNTESTED; a test still running after its limit is a
FAIL (TIMEOUT).  The tests run without CAP_SYS_TIME: those that would set
the machine's clock report UNTESTED.
"""

import argparse
import concurrent.futures
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile

MODES = [("", None), ("/cond_legacy", "glibc.pthread.cond_legacy=1")]
CODES = {0: "PASS", 1: "FAIL", 2: "UNRESOLVED", 4: "UNSUPPORTED", 5: "UNTESTED"}
LIMIT = 60
# Some tests set CLOCK_REALTIME a week ahead (and back) to see which clock
# a condvar uses: never on the machine running the harness.  Without
# CAP_SYS_TIME their clock_settime fails and they report UNTESTED.
NO_CLOCK = (["setpriv", "--bounding-set", "-sys_time"]
            if os.geteuid() == 0 and shutil.which("setpriv") else [])


def tests(src):
    return sorted(glob.glob(os.path.join(src, "conformance", "interfaces",
                                         "pthread_cond*", "[0-9]*-[0-9]*.c")))


def name(src, path):
    rel = os.path.relpath(path, os.path.join(src, "conformance", "interfaces"))
    return "posix/" + rel[:-2]


def build(src, cc, out, path):
    exe = os.path.join(out, name(src, path).replace("/", "_"))
    r = subprocess.run([cc, "-O1", "-w", "-D_XOPEN_SOURCE=600", "-D_GNU_SOURCE",
                        "-I", os.path.join(src, "include"), "-pthread", "-o", exe,
                        path, "-lrt", "-lm"], capture_output=True, text=True)
    return exe if r.returncode == 0 else r.stderr.strip().splitlines()[:1]


def run(exe, tunables):
    """Run EXE (as its own process group, which is killed afterwards: some
    tests fork children that outlive a failure) and return its status and,
    unless it passed, why."""
    env = dict(os.environ)
    env.pop("GLIBC_TUNABLES", None)
    if tunables:
        env["GLIBC_TUNABLES"] = tunables
    # Output to a file, not a pipe: a child left behind would hold a pipe
    # open, and the test would seem to run until its limit.
    with tempfile.TemporaryFile("w+") as log:
        p = subprocess.Popen(NO_CLOCK + [exe], stdout=log, stderr=subprocess.STDOUT,
                             env=env, cwd=os.path.dirname(exe), start_new_session=True)
        try:
            p.wait(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            return "FAIL", "TIMEOUT after %ds" % LIMIT
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        log.seek(0)
        out = log.read()
    status = CODES.get(p.returncode, "FAIL")
    last = out.strip().splitlines()
    why = "" if status == "PASS" else (
        "exit %d" % p.returncode if p.returncode >= 0
        else "killed by signal %d" % -p.returncode)
    return status, (why + (": " + last[-1] if last and status != "PASS" else "")).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", help="one test and mode, as its .sum line names it")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    paths = tests(a.src)
    if not paths:
        sys.exit("posixtests.py: no pthread_cond conformance tests under %s" % a.src)
    if a.only:
        paths = [p for p in paths if a.only in (name(a.src, p) + s for s, _ in MODES)]
    jobs = []
    for p in paths:
        exe = build(a.src, a.cc, a.out, p)
        for suffix, tun in MODES:
            if a.only in (None, name(a.src, p) + suffix):
                jobs.append((name(a.src, p) + suffix, exe, tun))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futs = [(n, pool.submit(run, exe, tun) if isinstance(exe, str) else None, exe)
                for n, exe, tun in jobs]
        for n, fut, exe in futs:
            if fut is None:
                print("FAIL: %s: does not build: %s" % (n, " ".join(exe)))
                continue
            status, why = fut.result()
            print("%s: %s%s" % (status, n, ": " + why if why else ""))


if __name__ == "__main__":
    main()
