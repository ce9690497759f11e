"""Real workloads (BENCH=apps): Debian's MariaDB server under sysbench,
the server and the load generator both run through each variant's
loader (the sysroot's ld.so; a variant with tunables runs with its
GLIBC_TUNABLES), on a Unix socket, from a data directory of its own.

Per repetition and variant, in turn: a copy of one prepared data
directory, the server started (as nobody when run.py runs as root: the
server refuses root), a short warm-up, then each workload for SECONDS at
each client count, then SHUTDOWN.  A run counts only if sysbench exits
0 with no error, the server's log has no error, crash or assertion, and
the server shuts down cleanly (exit 0, "Shutdown complete"); anything
else is a failure named at the top of the report, and fails make bench.

Shapes (issue "Real workloads"):
  oltp_point_select, oltp_read_write   sysbench's own scripts, one server
                                       thread per connection (MariaDB's
                                       default thread_handling)
  connect                              connect-churn.lua: every event
                                       connects, runs 4 point selects and
                                       disconnects, with thread_cache_size
                                       0: each connection creates and ends
                                       a server thread

and a thread per task outside a database: Debian's python3 running the
standard library's http.server (ThreadingHTTPServer: a new thread for
each connection, the commonest thread-per-request server there is),
loaded by ApacheBench (ab, apache2-utils) without keep-alive, so that
every request is a connection and a thread; the server under the
variant, ab under the machine's own libc (it is single-threaded).
"""
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MARIADBD = "/usr/sbin/mariadbd"
INSTALL_DB = "mariadb-install-db"
CLIENT = "mariadb"
SYSBENCH = "sysbench"
PYTHON = "/usr/bin/python3"
AB = "ab"
# The programs, as harness/tools.sh names them (with their packages).
PROGRAMS = (MARIADBD, INSTALL_DB, CLIENT, SYSBENCH, PYTHON, AB)
HTTP_CLIENTS = (1, 8, 32)
HTTP = "http.server"
HTTP_FILE_BYTES = 4096

TABLES, TABLE_SIZE = 4, 10000
CLIENTS = (1, 2, 8, 32, 128)
CHURN_CLIENTS = (1, 8, 32)
# (workload, sysbench script, client counts, server options of the shape)
WORKLOADS = [
    ("oltp_point_select", "oltp_point_select", CLIENTS, []),
    ("oltp_read_write", "oltp_read_write", CLIENTS, []),
    ("connect", os.path.join(HERE, "apps", "connect-churn.lua"), CHURN_CLIENTS,
     ["--thread-cache-size=0"]),
]


def rotated(variants, rep):
    """VARIANTS in the order in which repetition REP runs them: each
    repetition starts with the next variant.  A run later in a repetition
    meets a machine that has run the others (caches, data written back,
    the kernel's reaping of their threads), and a fixed order would put
    that on one variant, which the paired ratios would then carry."""
    k = rep % len(variants)
    return variants[k:] + variants[:k]


# The workloads in the order of the report.
CASES = [w[0] for w in WORKLOADS] + [HTTP]
# The server's configuration, the same for every variant: in memory as far
# as it goes (a 10 MB data set, a 256 MiB buffer pool), no fsync per commit
# (the benchmark is of threads, not of this machine's disk), room for the
# clients, no networking.
SERVER_OPTS = ["--skip-networking", "--innodb-buffer-pool-size=256M",
               "--innodb-flush-log-at-trx-commit=2", "--max-connections=300",
               "--performance-schema=OFF", "--skip-log-bin",
               "--thread-handling=one-thread-per-connection"]
# What in the server's error log fails a run.
LOG_FAILURE = re.compile(r"\[ERROR\]|Assertion|got signal|got exception|"
                         r"Attempting backtrace|InnoDB: Database page corruption")


def missing():
    """The programs this machine lacks (which() takes a path as it is)."""
    return [p for p in PROGRAMS if not shutil.which(p)]


def mapped_libc(pid):
    """The libc.so process PID has mapped (shows which loader ran it)."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            for line in f:
                if "/libc.so" in line:
                    return line.split()[-1]
    except OSError:
        return "unreadable (/proc/%d/maps)" % pid
    return "none"


def sh(cmd, timeout=None, **kw):
    """Run CMD, capturing its output; a run past TIMEOUT seconds (if given)
    is killed and returns 124."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        return subprocess.CompletedProcess(cmd, 124, out or "",
                                           "timed out after %d s" % timeout)


class Server:
    """One MariaDB server of a variant, in DIR (data, socket, log)."""

    def __init__(self, prefix, template, workdir, name, extra):
        self.dir = os.path.join(workdir, name)
        self.data = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "s")
        self.log = os.path.join(self.dir, "error.log")
        # The loader's own errors (a missing library) come before the log.
        self.stderr = os.path.join(self.dir, "stderr")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        shutil.copytree(template, self.data, symlinks=True)
        user = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            for d in [self.dir] + [os.path.join(r, x) for r, ds, fs in os.walk(self.dir)
                                   for x in ds + fs]:
                os.chown(d, nobody.pw_uid, nobody.pw_gid)
            user = ["--user=nobody"]
        self.cmd = prefix + [MARIADBD, "--no-defaults", "--datadir=" + self.data,
                             "--socket=" + self.sock, "--log-error=" + self.log,
                             "--pid-file=" + os.path.join(self.dir, "pid")] \
            + user + SERVER_OPTS + extra
        self.proc = None

    def start(self):
        """Start the server and wait until it answers; None, or why not."""
        with open(self.stderr, "w") as err:
            self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=err)
        end = time.time() + 120
        while time.time() < end:
            if self.proc.poll() is not None:
                return "exited %d at start: %s" % (self.proc.returncode, self.log_tail())
            if os.path.exists(self.sock) and self.sql("SELECT 1").returncode == 0:
                return None
            time.sleep(0.2)
        self.kill()
        return "not answering after 120 s: " + self.log_tail()

    def sql(self, query):
        return sh([CLIENT, "--no-defaults", "-uroot", "--socket=" + self.sock,
                   "-e", query], timeout=120)

    def stop(self):
        """SHUTDOWN, then wait for the process; the failures, one line
        each (an unclean exit, errors in the log)."""
        failed = []
        r = self.sql("SHUTDOWN")
        try:
            rc = self.proc.wait(timeout=120)
            if rc != 0:
                failed.append("server exited %d" % rc)
        except subprocess.TimeoutExpired:
            self.kill()
            failed.append("server did not stop within 120 s of SHUTDOWN (%s)"
                          % r.stderr.strip()[-200:])
        text = self.log_text()
        bad = [line for line in text.splitlines() if LOG_FAILURE.search(line)]
        if bad:
            failed.append("server log: " + bad[0][-200:])
        if "Shutdown complete" not in text:
            failed.append("server log: no \"Shutdown complete\"")
        return failed

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def log_tail(self):
        try:
            with open(self.stderr, errors="replace") as f:
                err = f.read().strip().splitlines()
        except OSError:
            err = []
        return " / ".join(err[-2:] + self.log_text().strip().splitlines()[-3:])[-300:]


def sysbench(prefix, server, script, clients, seconds, command="run"):
    # The loader takes a path, not a name to look up.
    return sh(prefix + [shutil.which(SYSBENCH), script, "--db-driver=mysql",
                        "--mysql-socket=" + server.sock, "--mysql-user=root",
                        "--mysql-db=sbtest", "--tables=%d" % TABLES,
                        "--table-size=%d" % TABLE_SIZE, "--threads=%d" % clients,
                        "--time=%d" % seconds, "--histogram=on", command],
              timeout=seconds + 300)


def parse(out):
    """sysbench's report: events per second, the transactions it retried,
    its reconnects, and the 95th and 99th percentiles of the latency (ms)
    from its histogram; None if absent."""
    ev = re.search(r"total number of events:\s+(\d+)", out)
    tt = re.search(r"total time:\s+([\d.]+)s", out)
    if not ev or not tt:
        return None
    res = {"events": int(ev.group(1)), "seconds": float(tt.group(1))}
    if not res["events"] or not res["seconds"]:
        return None
    res["rate"] = res["events"] / res["seconds"]
    # An error sysbench does not retry stops it (exit 1); it retries a
    # transaction that met a deadlock and counts it as ignored.
    for key, name in (("retried", "ignored errors"), ("reconnects", "reconnects")):
        m = re.search(r"^\s+%s:\s+(\d+)" % name, out, re.M)
        res[key] = int(m.group(1)) if m else 0
    hist = [(float(v), int(c)) for v, c in
            re.findall(r"^\s+([\d.]+) \|\**\s+(\d+)$", out, re.M)]
    total = sum(c for _, c in hist)
    for q in (95, 99):
        acc, res["p%d_ms" % q] = 0, None
        for v, c in hist:
            acc += c
            if total and acc >= q / 100 * total:
                res["p%d_ms" % q] = v
                break
    return res


def template(workdir, prefix):
    """A data directory with sysbench's tables, made once under the first
    variant; each server starts from a copy."""
    tpl = os.path.join(workdir, "template")
    os.makedirs(tpl)
    # As root the server must be told to stay root (Server.start gives each
    # copy to nobody); --user=nobody would also give a system directory of
    # the PAM plugin, where installed, to nobody.
    owner = ["--user=root"] if os.geteuid() == 0 else []
    r = sh([INSTALL_DB, "--no-defaults", "--datadir=" + tpl,
            "--auth-root-authentication-method=normal", "--skip-test-db"] + owner,
           timeout=600)
    if r.returncode != 0:
        return None, "mariadb-install-db: exit %d: %s" % (r.returncode, r.stdout[-300:] + r.stderr[-300:])
    srv = Server(prefix, tpl, workdir, "prepare", [])
    why = srv.start()
    if why:
        return None, "preparing: server " + why
    r = srv.sql("CREATE DATABASE sbtest")
    p = sysbench(prefix, srv, "oltp_read_write", 4, 1, "prepare")
    failed = srv.stop()
    if r.returncode != 0 or p.returncode != 0 or failed:
        return None, "preparing: %s" % "; ".join(
            failed + [r.stderr.strip()[-200:], p.stderr.strip()[-200:]])
    return srv.data, None


def run_apps(variants, prefixes, reps, seconds, logdir):
    """Run the workloads REPS times for each variant (PREFIXES[v]: the
    command prefix that runs a program under V).  Returns (results,
    failed): a result per run as run.py's (group "apps", case the
    workload, threads the clients, rate, rep, variant; p95_ms, p99_ms,
    retried, reconnects), and what failed, one line each."""
    results, failed = [], []
    workdir = tempfile.mkdtemp(prefix="nptl-scale-apps-")
    os.chmod(workdir, 0o755)
    try:
        tpl, why = template(workdir, prefixes[variants[0]])
        if why:
            return results, ["apps: " + why]
        for rep in range(reps):
            for v in rotated(variants, rep):
                for shape in sorted({tuple(w[3]) for w in WORKLOADS}):
                    f = run_server(v, prefixes[v], tpl, workdir, list(shape), rep,
                                   seconds, results, logdir)
                    failed += ["apps, %s, rep %d: %s" % (v, rep, x) for x in f]
                f = run_http(v, prefixes[v], workdir, rep, seconds, results, logdir)
                failed += ["apps, %s, rep %d: http.server: %s" % (v, rep, x) for x in f]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return results, failed


def void(runs, why):
    """RUNS as failed runs: what their server did after them (an error in
    its log, an unclean shutdown) makes their figures worthless."""
    return [{k: r[k] for k in ("case", "threads") if k in r} | {"error": why}
            for r in runs]


def keep_log(path, logdir, name):
    if logdir and os.path.exists(path):
        os.makedirs(logdir, exist_ok=True)
        shutil.copy(path, os.path.join(logdir, name))


def run_server(v, prefix, tpl, workdir, shape, rep, seconds, results, logdir):
    """One server of V with the options SHAPE and the workloads that use
    them; appends to RESULTS, returns the failures."""
    srv = Server(prefix, tpl, workdir, "server", shape)
    mine = [(name, script, n) for name, script, clients, opts in WORKLOADS
            if opts == shape for n in clients]
    runs, failed = [], []
    try:
        why = srv.start()
        if why:
            failed.append("server " + why)
            runs = [{"case": name, "threads": n, "error": "server did not start"}
                    for name, _, n in mine]
        else:
            libc = mapped_libc(srv.proc.pid)
            warm = sysbench(prefix, srv, "oltp_point_select", 2, 2)
            if warm.returncode != 0:
                failed.append("warm-up: sysbench exit %d" % warm.returncode)
            for name, script, n in mine:
                r = sysbench(prefix, srv, script, n, seconds)
                res = parse(r.stdout)
                if r.returncode != 0 or res is None:
                    why = "sysbench exit %d" % r.returncode
                    failed.append("%s %d clients: %s: %s" % (
                        name, n, why, (r.stderr or r.stdout).strip()[-200:]))
                    runs.append({"case": name, "threads": n, "error": why})
                else:
                    runs.append(dict(res, case=name, threads=n, server_libc=libc))
            down = srv.stop()
            if down:
                failed += down
                runs = void(runs, "server: " + down[0])
    finally:
        srv.kill()
        keep_log(srv.log, logdir, "mariadb-%s-rep%d%s.log" % (v, rep, "-churn" if shape else ""))
    results += [dict(r, group="apps", param="", variant=v, rep=rep) for r in runs]
    return failed


def free_port():
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def parse_ab(out):
    """ApacheBench's report: requests per second, failed requests and
    non-2xx responses, the 95th and 99th percentiles (ms); None if absent."""
    rps = re.search(r"Requests per second:\s+([\d.]+)", out)
    if not rps:
        return None
    res = {"rate": float(rps.group(1))}
    m = re.search(r"Failed requests:\s+(\d+)", out)
    res["failed_requests"] = int(m.group(1)) if m else 0
    m = re.search(r"Non-2xx responses:\s+(\d+)", out)
    res["non_2xx"] = int(m.group(1)) if m else 0
    for q in (95, 99):
        m = re.search(r"^\s+%d%%\s+(\d+)" % q, out, re.M)
        res["p%d_ms" % q] = float(m.group(1)) if m else None
    res["retried"] = 0
    return res


# The standard library's server as `python3 -m http.server` runs it, with
# a listen backlog for the clients (its default of 5 drops connections at
# 32 clients, and their SYN retransmits, after 1 and 3 s, would be what
# p99 measures), and SIGINT (how it is stopped) handled even where the
# shell that started run.py in the background left it ignored.
HTTP_SERVER = """import functools, http.server as h, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
h.ThreadingHTTPServer.request_queue_size = 256
h.test(HandlerClass=functools.partial(h.SimpleHTTPRequestHandler, directory=sys.argv[1]),
       ServerClass=h.ThreadingHTTPServer, port=int(sys.argv[2]), bind="127.0.0.1")
"""
# Requests per client count: ab -n completes every request, so that no
# connection is cut at the end (ab -t leaves the server writing to closed
# sockets, which it reports with a traceback).
HTTP_REQUESTS = 3000


def run_http(v, prefix, workdir, rep, seconds, results, logdir=None):
    """http.server under V, loaded by ab at each of HTTP_CLIENTS; appends
    to RESULTS, returns the failures."""
    root = os.path.join(workdir, "www")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "f"), "wb") as f:
        f.write(b"x" * HTTP_FILE_BYTES)
    port = free_port()
    log = os.path.join(workdir, "http.log")
    url = "http://127.0.0.1:%d/f" % port
    runs, failed = [], []
    with open(log, "w") as lf:
        proc = subprocess.Popen(prefix + [PYTHON, "-c", HTTP_SERVER, root, str(port)],
                                stdout=lf, stderr=lf)
    try:
        end = time.time() + 30
        while sh([AB, "-q", "-n", "1", url], timeout=5).returncode != 0:
            if proc.poll() is not None or time.time() > end:
                failed.append("did not answer within 30 s")
                break
            time.sleep(0.2)
        libc = mapped_libc(proc.pid)
        for n in HTTP_CLIENTS if not failed else ():
            r = sh([AB, "-q", "-c", str(n), "-n", str(HTTP_REQUESTS), url],
                   timeout=seconds * 20 + 120)
            res = parse_ab(r.stdout)
            if r.returncode != 0 or res is None or res["failed_requests"] or res["non_2xx"]:
                why = "ab exit %d" % r.returncode if r.returncode or res is None else \
                    "%d failed requests, %d non-2xx" % (res["failed_requests"], res["non_2xx"])
                failed.append("%d clients: %s: %s" % (n, why, (r.stderr or r.stdout).strip()[-200:]))
                runs.append({"threads": n, "error": why})
            else:
                runs.append(dict(res, threads=n, server_libc=libc))
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=60)
            if rc != 0:
                failed.append("exited %d" % rc)
        except subprocess.TimeoutExpired:
            failed.append("did not stop within 60 s of SIGINT")
        with open(log, errors="replace") as f:
            text = f.read()
        if "Traceback" in text:
            failed.append("log: " + text[text.index("Traceback"):][-200:])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        keep_log(log, logdir, "http.server-%s-rep%d.log" % (v, rep))
    if failed and any("error" not in r for r in runs):
        runs = void(runs, "http.server: " + failed[0])
    results += [dict(r, group="apps", case=HTTP, param="", variant=v, rep=rep) for r in runs]
    return failed
