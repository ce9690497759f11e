#!/usr/bin/env python3
"""Run the nptl-scale benchmarks for several glibc sysroots, side by side.

    run.py --base 2.43 --build BUILD [--bench default|quick|NAME] VARIANT...

Every benchmark (bench/cases/*.c with bench/driver.c) is built with each
variant's compiler wrapper and run under that variant's glibc.  For each
configuration the variants run interleaved, repetition by repetition
(stock, patched, stock, patched, ...), so that a drift of the machine hits
all of them alike; the patched/stock ratio is computed pair by pair and its
median reported, with a bootstrap confidence interval.  The timed runs run
without perf; where perf's tracepoints work, one more run per configuration
and variant counts system calls and software events with `perf stat`.
Results: BUILD/bench/BASE/results.json
(every sample, the machine), report.md, PNG plots, and benchout-VARIANT.json
(glibc's benchtests format, for its compare_bench.py).
"""

import argparse
import collections
import datetime
import glob
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import threading

import apps
from apps import sh

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CREATORS = [1, 2, 4, 8, 40, 120, 500]
SYNC_N = [1, 2, 4, 8, 32]
PERF_SW = ["task-clock", "context-switches", "cpu-migrations", "page-faults"]
# The system calls counted by name in the profile run: those of thread
# creation and exit, of the stack cache, of waiting, and of the driver.
# raw_syscalls:sys_enter counts every call, so what none of these names
# covers is reported as "other" (counting all of syscalls:sys_enter_* takes
# perf several seconds per run to set up).
SYSCALLS = ("clone", "clone3", "exit", "exit_group", "futex", "mmap",
            "munmap", "mprotect", "madvise", "mincore", "mremap", "brk",
            "rt_sigprocmask", "sched_yield", "set_robust_list", "rseq",
            "getpid", "gettid", "tgkill", "nanosleep", "clock_nanosleep",
            "sched_getaffinity", "prctl", "membarrier", "getrusage", "wait4",
            "openat", "read", "pread64", "close")
SYSCALL_TOTAL = "raw_syscalls:sys_enter"
# Function-call IPIs: to a set of CPUs (TLB shootdowns, membarrier) and to
# one CPU (remote wake-ups, among others).
IPIS = ("irq_vectors:call_function_entry", "irq_vectors:call_function_single_entry")
PERF_SYSCALLS = ["syscalls:sys_enter_" + c for c in SYSCALLS] + [
    SYSCALL_TOTAL, "tlb:tlb_flush"] + list(IPIS)
# Reported by name: a call made more often than this per operation.
SYSCALL_MIN = 0.01
# A profile run in which perf counted only part of the measured period
# (it enables its counters thread by thread, and some runs miss threads):
# its counts per operation are low, and the report marks it partial.
# Where each operation makes one clone (ONE_CLONE_UNITS), the clones it
# counted per operation tell (full runs: 0.95-1.07, partial ones 0.00-0.88
# in the stored results); elsewhere its task-clock against the process's
# CPU time that the driver measured over the period, which reads 0.6-0.9
# in full runs on 2 cores, less exactly.
ONE_CLONE_UNITS = ("create+join", "clone+wait", "create (detached)")
PERF_CLONES_MIN = 0.9
PERF_TASK_CLOCK_MIN = 0.5
# The groups whose profile run also records, machine-wide, when each of
# the process's threads exits and when the kernel releases and frees it.
EXIT_TRACE_GROUPS = ("create-join", "seed", "stack-advise")
# The groups whose system calls, tasks and failed creates are reported
# (create-latency's profile run has no exit trace: recording machine-wide
# while 500 threads churn made one run of it take minutes).
THREAD_GROUPS = EXIT_TRACE_GROUPS + ("create-latency",)
EXIT_EVENTS = ["sched:sched_process_exit", "sched:sched_switch",
               "sched:sched_process_free"]
# The benchmarks of glibc's bench-pthread set that this series touches, and
# those of the condvar group.
GLIBC_BENCH = "thread_create pthread-locks pthread-mutex-lock pthread_once"
CONDVAR_GLIBC_BENCH = "pthread-locks"
# The groups that are not cases of bench/cases/.
EXTERNAL = ("glibc", "stress-ng", "apps")
Plan = collections.namedtuple("Plan", "cfgs glibc stress_ng apps named")
# A benchmark case: its file bench/cases/NAME.c, its group in the report,
# the (threads, param) pairs it runs with by default and with BENCH=quick
# ([]: not in quick), and the time limit of one run in seconds, a function
# of the thread count (creating 500 threads while the first ones churn
# took stock up to a minute on 2 cores), and the seconds one run measures,
# a function of the thread count and of BENCH_SECONDS.
Case = collections.namedtuple("Case", "name group runs quick limit seconds",
                              defaults=[lambda n: 60, lambda n, s: s])
# The limit of a case whose threads create threads while they start.
CHURN_LIMIT = lambda n: 60 + n // 2  # noqa: E731
# The measured period of a run of create-latency: at least 10 ms per
# thread.  With 500 threads on 2 cores a preempted creator can wait a
# second for the CPU, so one create's tail is a matter of whole scheduler
# rounds: in 0.5 s, one run's p99 ranged from 0.09 to 604 ms; in 5 s,
# from 7 to 55 ms.
LATENCY_SECONDS = lambda n, s: max(s, n / 100)  # noqa: E731
# The measured period of a run of seed-work: at least 20 ms per thread.
# A work unit takes milliseconds, so 120 threads on 2 cores do about 8
# per second each; in 0.5 s some thread did none in every run of spawn
# 120, and the paired ratios of 11 runs ranged from 0.54 to 1.59.
SEED_SECONDS = lambda n, s: max(s, n / 50)  # noqa: E731


def pairs(threads, params=("",)):
    """Each thread count with each param; {h} in a param is half the
    thread count (producers:consumers)."""
    return [(n, p.format(h=n // 2)) for n in threads for p in params]


# Below and above the number of CPUs, and at it.
CREATE_THREADS = sorted(set(CREATORS + [os.cpu_count() or 1]))
_CREATE = pairs(CREATE_THREADS)
_PC = ("{h}:{h}:signal", "{h}:{h}:broadcast")
_SYNC = ("spin", "yield", "futex")
# Every case, one entry each: a new case is its file and a line here.
CASES = [
    Case("create-join", "create-join", _CREATE, pairs([1, 2, 8, 120])),
    # The floor: a bare clone and wait; "calls": with the system calls
    # that glibc's threads make beside it (signal masks, rseq, robust list).
    Case("clone-floor", "create-join", pairs(CREATE_THREADS, ("", "calls")),
         pairs([1, 2, 8, 120])),
    # A thread per connection (servers): detached threads with the default
    # stack size and with MariaDB's thread_stack.
    Case("create-detached", "create-join", pairs([1, 2, 8, 40, 120], ("", "stack=292")),
         pairs([8])),
    Case("seed-work", "seed",
         [(40, "direct"), (40, "direct+idle1000"), (40, "spawn"),
          (120, "spawn"), (500, "spawn")],
         [(40, "direct"), (40, "spawn")], CHURN_LIMIT, SEED_SECONDS),
    Case("create-latency", "create-latency",
         pairs([40, 120, 500], ("empty", "work", "clone")),
         pairs([40], ("empty", "clone")), CHURN_LIMIT, LATENCY_SECONDS),
    Case("cond-queue", "condvar", pairs([2, 8, 32, 128], _PC),
         pairs([2, 32], _PC[:1])),
    Case("cond-event", "condvar", pairs([2, 4, 16, 64]), pairs([4])),
    Case("cond-handoff", "condvar", pairs([2, 8, 32, 128], _PC),
         pairs([2, 32], _PC[:1])),
    Case("cond-pingpong", "condvar", pairs([2, 8, 32]), pairs([2, 8])),
    Case("cond-fanout", "condvar", pairs([2, 4, 16, 64]), pairs([4])),
    Case("cond-signal-empty", "condvar", pairs([1, 2]), []),
    Case("syncpoint", "syncpoint", pairs(SYNC_N, _SYNC), pairs([2, 8], _SYNC)),
    Case("fork-cached", "fork", pairs([1, 2, 8], ("cached=0", "cached=1000")),
         pairs([1], ("cached=0", "cached=1000"))),
    # What a thread's stack leaves resident: rate and RSS with an empty
    # thread body, one that uses 256 KiB of its stack and one with a
    # large frame; the report's RSS table.
    Case("create-join", "stack-advise",
         pairs([2, 40, 500], ("touch=0", "touch=256", "frame=256")), []),
]
# The groups that the name of a case in them does not select, only their
# own name (BENCH=create-join runs the create-join group's runs of the
# case, not these).
NAMED_BY_GROUP = ("stack-advise",)
GROUPS = list(dict.fromkeys(c.group for c in CASES)) + list(EXTERNAL)


def thread_counts(text):
    """--threads: a comma-separated list of positive thread counts."""
    if not re.fullmatch(r"[1-9][0-9]*(,[1-9][0-9]*)*", text):
        raise argparse.ArgumentTypeError(
            "'%s' is not a list of thread counts (as 2 or 1,2,500)" % text)
    return text


def plan(mode, threads=None):
    """What BENCH=MODE runs: default, quick, full, or groups and cases
    separated by commas; with THREADS (as "2" or "1,2,500"), only its
    configurations with those thread counts, which must leave some.  A Plan: cfgs, the configurations (group, case,
    threads, param); glibc, the benchmarks of glibc's bench-pthread set to
    run ("" for none); stress_ng, whether stress-ng --pthread runs; apps,
    whether the real workloads run (bench/apps.py: named, or full); named,
    the groups and cases MODE names ([] for default, quick and full)."""
    p = _plan(mode)
    if not threads:
        return p
    counts = [int(t) for t in threads.split(",")]
    cfgs = [c for c in p.cfgs if c[2] in counts]
    if not cfgs:
        sys.exit("run.py: no benchmark of BENCH=%s runs with %s threads (%s)"
                 % (mode, threads, ", ".join(
                     str(n) for n in sorted({c[2] for c in p.cfgs})) or "none"))
    # glibc's benchtests, stress-ng and the real workloads have no thread
    # count of ours: they do not run.
    return Plan(cfgs, "", False, False, p.named)


def _plan(mode):
    quick = mode == "quick"
    cfgs = [(c.group, c.name, n, p) for c in CASES
            for n, p in (c.quick if quick else c.runs)]
    if mode in ("default", "quick"):
        return Plan(cfgs, "" if quick else GLIBC_BENCH, True, False, [])
    if mode == "full":
        return Plan(cfgs, GLIBC_BENCH, True, True, [])
    names = mode.split(",")
    unknown = [n for n in names if n not in EXTERNAL
               and not any(n in (c[0], c[1]) for c in cfgs)]
    if unknown:
        sys.exit("run.py: no benchmark named '%s' (groups: %s; cases: %s)"
                 % (",".join(unknown), ", ".join(GROUPS), ", ".join(sorted(cases()))))
    # A case names its runs outside NAMED_BY_GROUP; a group, those in it.
    cfgs = [c for c in cfgs if c[0] in names
            or (c[1] in names and c[0] not in NAMED_BY_GROUP)]
    glibc = GLIBC_BENCH if "glibc" in names else \
        CONDVAR_GLIBC_BENCH if "condvar" in names else ""
    return Plan(cfgs, glibc, "stress-ng" in names, "apps" in names, names)


def cases():
    return [f[:-2] for f in os.listdir(os.path.join(TOP, "bench", "cases"))
            if f.endswith(".c")]


def machine():
    info = {"cores": os.cpu_count(), "kernel": platform.release(),
            "arch": platform.machine()}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            info["cpu"] = m.group(1) if m else "unknown"
        with open("/proc/meminfo") as f:
            info["mem_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    return info


# In the list of perf_events: perf can record EXIT_EVENTS machine-wide.
EXIT_TRACE = "exit-trace"


def perf_events():
    """The perf events this machine supports (software events, tracepoints);
    hardware counters are probed and reported, never required."""
    if not shutil.which("perf"):
        return [], "perf not installed"
    ok = []
    for ev in PERF_SW + PERF_SYSCALLS:
        r = sh(["perf", "stat", "-x,", "-e", ev, "true"])
        if r.returncode == 0 and "not supported" not in r.stderr \
                and "<not counted>" not in r.stderr:
            ok.append(ev)
    with tempfile.NamedTemporaryFile(suffix=".data") as tf:
        tr = sh(["perf", "record", "-q", "-a", "-o", tf.name]
                + [x for e in EXIT_EVENTS for x in ("-e", e)] + ["--", "true"])
    if tr.returncode == 0:
        ok.append(EXIT_TRACE)
    hw = sh(["perf", "stat", "-x,", "-e", "cycles", "true"])
    if ok and perf_control_works():
        ok.append(PERF_CONTROL)
    note = "hardware counters: %s" % (
        "not supported here" if hw.returncode != 0 or "not supported" in hw.stderr
        else "available (not used)")
    return ok, note


# In perf_events' list where `perf stat --control` works (perf 5.9 and
# later): the driver then enables the counters for its measured period
# only (NPTL_SCALE_PERF_CONTROL in bench/driver.c).
PERF_CONTROL = "measured-period"


# The measured period of a profile run at least: perf's enable and
# disable, an IPI per thread, take some 0.1 s with 500 threads, and the
# operations they overlap must be few against those of the period.
PROFILE_SECONDS = 2.0


def perf_control_fifos(d):
    """Two FIFOs in directory D for perf stat --control: (ctl, ack)."""
    fifos = (os.path.join(d, "ctl"), os.path.join(d, "ack"))
    for f in fifos:
        os.mkfifo(f)
    return fifos


def perf_control_args(fifos):
    """perf stat's arguments, starting disabled, for FIFOS."""
    return ["-D", "-1", "--control", "fifo:%s,%s" % fifos]


def perf_control_works():
    with tempfile.TemporaryDirectory() as d:
        r = sh(["perf", "stat", "-x,", "-e", "task-clock"]
               + perf_control_args(perf_control_fifos(d)) + ["true"])
    return r.returncode == 0


def per_op(run):
    """The operations that RUN's perf counts cover: those of the measured
    period where the driver enabled the counters for it alone (perf_ops:
    between the period's own and those from before the enable to after the
    disable), else all of the process's."""
    if run.get("perf_window") == "measure":
        # The midpoint of the operations of the measured period and of
        # those from before perf's enable to after its disable.
        return max(sum(run.get("perf_ops") or [run.get("ops") or 1] * 2) / 2, 1)
    return max(run.get("ops_total") or run.get("ops") or 1, 1)


def ctxsw_per_op(run):
    """RUN's context switches per operation, of the whole process: from
    the driver's getrusage, or in results before it had them, from perf's
    software event; None if neither."""
    if "ctxsw_total" in run:
        return run["ctxsw_total"] / max(run.get("ops_total") or 1, 1)
    if run.get("perf") and "context-switches" in run["perf"]:
        return run["perf"]["context-switches"] / per_op(run)
    return None


def sysroot(variant):
    """A variant is a sysroot's name, or SYSROOT@TUNABLES: that sysroot run
    with GLIBC_TUNABLES=TUNABLES (a tunable without a namespace is one of
    glibc.pthread, e.g. patched@cond_legacy=1)."""
    return variant.split("@", 1)[0]


def tunables(variant):
    if "@" not in variant:
        return None
    return ":".join(t if t.startswith("glibc.") else "glibc.pthread." + t
                    for t in variant.split("@", 1)[1].split(":"))


# A base's build directory (--build, build/<base>) holds a directory per
# sysroot with these parts: the Python twin of harness/lib.sh's variant_dir,
# which is where the layout is described (harness/test_layout.py checks
# that the two agree).
PARTS = {"src": "src", "obj": "obj", "root": "root", "cc": "bin/cc", "run": "bin/run"}


def variant_dir(builddir, variant, part=None):
    """The directory of VARIANT's sysroot under BUILDDIR, or its PART."""
    d = os.path.join(builddir, sysroot(variant))
    return os.path.join(d, *PARTS[part].split("/")) if part else d


def env_prefix(variant):
    t = tunables(variant)
    return ["env", "GLIBC_TUNABLES=" + t] if t else []


def build(variants, builddir, outdir):
    bins = {}
    for v in variants:
        cc = variant_dir(builddir, v, "cc")
        if not os.access(cc, os.X_OK):
            sys.exit("run.py: no sysroot for %s (%s); run 'make sysroot'" % (v, cc))
        d = os.path.join(outdir, "bin", sysroot(v))
        os.makedirs(d, exist_ok=True)
        for c in cases():
            exe = os.path.join(d, c)
            r = sh([cc, "-O2", "-g", "-Wall", "-pthread", "-o", exe,
                    os.path.join(TOP, "bench", "driver.c"),
                    os.path.join(TOP, "bench", "cases", c + ".c")])
            if r.returncode != 0:
                sys.exit("run.py: building %s for %s failed:\n%s" % (c, v, r.stderr))
            bins[(v, c)] = exe
    return bins


class TaskMonitor(threading.Thread):
    """The peak of the thread count of the benchmark process (Threads: of
    /proc/PID/status), read every 2 ms from outside it, from its start to
    its exit.  The benchmark process is the last of the chain of first
    children of the process run.py started (perf, an environment wrapper,
    a launcher or the benchmark itself), found again at every reading
    (perf forks it only once it has set up), and read only if its command
    line names EXE (peak 0: never found).  A sampler inside the
    process, at its priority, waits for a CPU behind the process's own
    runnable threads exactly when they pile up: on 2 cores with 500
    churning threads it read 667 where the machine held 31,350 tasks.
    This thread asks for SCHED_FIFO priority 1 (priority: "fifo"), else
    runs as it is ("normal")."""

    PERIOD = 0.002

    def __init__(self, root, exe):
        super().__init__(daemon=True)
        self.root, self.exe, self.peak, self.priority = root, exe, 0, "normal"
        self.stop = threading.Event()

    @staticmethod
    def first_child(pid):
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                kids = f.read().split()
            return int(kids[0]) if kids else None
        except OSError:
            return None

    @staticmethod
    def threads_of(pid):
        # From status, not stat: stat adds up the CPU time of every thread,
        # a walk of the thread list each read.
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("Threads:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def run(self):
        try:
            os.sched_setscheduler(threading.get_native_id(), os.SCHED_FIFO,
                                  os.sched_param(1))
            self.priority = "fifo"
        except (OSError, AttributeError):
            pass
        while not self.stop.wait(self.PERIOD):
            leaf, kid = self.root, self.root
            while kid is not None:
                leaf, kid = kid, self.first_child(kid)
            try:
                with open("/proc/%d/cmdline" % leaf, "rb") as f:
                    if self.exe.encode() not in f.read().split(b"\0"):
                        continue
            except OSError:
                continue
            self.peak = max(self.peak, self.threads_of(leaf))


def run_cmd(cmd, timeout, monitor=None, exe=None):
    """Run CMD in a process group of its own; (returncode, stdout, stderr),
    with returncode None if it ran past TIMEOUT seconds, when the whole
    group is killed (perf's child too) and its output so far returned.
    MONITOR, a dict, receives the peak and priority of a TaskMonitor of
    the process that runs EXE."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    mon = None
    if monitor is not None:
        mon = TaskMonitor(p.pid, exe)
        mon.start()
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        rc = None
    if mon is not None:
        mon.stop.set()
        mon.join()
        monitor.update(peak=mon.peak, priority=mon.priority)
    return rc, out, err


def last_phase(stderr):
    """The phase the driver last said it entered ("bench-phase: NAME")."""
    phases = re.findall(r"^bench-phase: (\S+)$", stderr or "", re.M)
    return phases[-1] if phases else "before startup"


def run_one(exe, threads, param, seconds, events, timeout, env=(), launcher=(),
            trace=False, tasks=False):
    """One run of EXE; its result line as a dict, with the perf counts of
    EVENTS, the lock statistics of an instrumented variant, with TRACE,
    the exit delays of its threads (exit_delays) and, with TASKS, the peak
    of its thread count (tasks_peak, tasks_sampler: see TaskMonitor); or
    {"error": ...}."""
    cmd = list(launcher) + [exe, "-t", str(threads), "-w", "0.2", "-d",
                            str(seconds), "-i", "0.1"]
    if param:
        cmd += ["-p", param]
    perf = {}
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as pf, \
            tempfile.NamedTemporaryFile("r", suffix=".data") as tf, \
            tempfile.TemporaryDirectory() as fd:
        counted = [e for e in events if e != PERF_CONTROL]
        if counted:
            control = []
            if PERF_CONTROL in events:
                fifos = perf_control_fifos(fd)
                control = perf_control_args(fifos)
                env = list(env or ["env"]) + ["NPTL_SCALE_PERF_CONTROL=%s,%s" % fifos]
            # Enabled by the driver, the events are one group: perf then
            # enables and disables them together, with one call per
            # thread for all of them.
            cmd = ["perf", "stat", "-x,", "-o", pf.name] + control + \
                ["-e", ("{%s}" if control else "%s") % ",".join(counted)] + cmd
        if trace:
            cmd = ["perf", "record", "-q", "-a", "-o", tf.name,
                   "-e", EXIT_EVENTS[0], "-e", EXIT_EVENTS[1],
                   "--filter", "prev_state == %d" % TASK_DEAD_STATE,
                   "-e", EXIT_EVENTS[2], "--"] + cmd
        cmd = list(env) + cmd
        monitor = {} if tasks else None
        rc, out, err = run_cmd(cmd, timeout, monitor, exe)
        if rc is None:
            return {"error": "timed out after %ds in phase %s"
                    % (timeout, last_phase(err)), "timeout": last_phase(err)}
        if rc != 0:
            return {"error": "exit %d: %s" % (rc, err.strip()[-300:])}
        for line in pf.read().splitlines():
            f = line.split(",")
            if len(f) > 2 and f[0] and not line.startswith("#"):
                try:
                    perf[f[2]] = float(f[0])
                except ValueError:
                    pass
        script = sh(["perf", "script", "-i", tf.name, "-F",
                     "pid,tid,time,event,trace"]).stdout if trace else ""
    lines = out.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        return {"error": "no result line: %s" % (err.strip()[-300:] or "empty output")}
    res = json.loads(lines[-1])
    res["perf"] = perf
    if monitor and monitor["peak"]:
        res["tasks_peak"], res["tasks_sampler"] = monitor["peak"], monitor["priority"]
    if trace:
        res["exit_delays"] = exit_delays(script, res.get("pid"))
    stats = parse_lockstat(err)
    if stats:
        res["lockstat"] = stats
    return res


# sched_switch's prev_state of a task switched out for the last time, dead
# and reaped (EXIT_DEAD, "X"); a thread of a process is reaped by itself,
# in exit_notify, just before.
TASK_DEAD_STATE = 16
TRACE_LINE = re.compile(r"^\s*(-?\d+)/(-?\d+)\s+([\d.]+):\s+(\S+):\s+(.*)$")


def quantiles(xs):
    """p50, p99 and max of XS (nearest rank), or None for none."""
    if not xs:
        return None
    xs = sorted(xs)
    q = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))]  # noqa: E731
    return {"n": len(xs), "p50": q(0.5), "p99": q(0.99), "max": xs[-1]}


def exit_delays(script, pid):
    """From `perf script -F pid,tid,time,event,trace` of the exit trace
    (EXIT_EVENTS, machine-wide): for each thread of process PID that
    exited, the ns from its exit (sched_process_exit, in do_exit beside
    exit_mm, which clears the TID and wakes pthread_join) to its last switch
    out as a dead task ("released": the kernel has reaped it, the task no
    longer counts in the process's threads and its PID is free), and to
    sched_process_free ("freed": its task_struct, after an RCU grace
    period).  Quantiles of each (quantiles), in ns."""
    exited, released, freed = {}, [], []
    for line in script.splitlines():
        m = TRACE_LINE.match(line)
        if not m:
            continue
        ctx, t, event, rest = int(m.group(1)), float(m.group(3)), m.group(4), m.group(5)
        if event == EXIT_EVENTS[0]:
            task = re.search(r"\bpid=(\d+)", rest)
            if ctx == pid and task:
                exited[int(task.group(1))] = [t, None, None]
            continue
        key = r"\bprev_pid=(\d+)" if event == EXIT_EVENTS[1] else r"\bpid=(\d+)"
        task = re.search(key, rest)
        e = exited.get(int(task.group(1))) if task else None
        if e is None:
            continue
        slot = 1 if event == EXIT_EVENTS[1] else 2
        if e[slot] is None:
            e[slot] = t
            (released if slot == 1 else freed).append(round((t - e[0]) * 1e9))
    return {"exits": len(exited), "released": quantiles(released),
            "freed": quantiles(freed)}


# The locks an instrumented (NAME-lockstat) variant counts (nptl/lockstat.h
# of experiments/lockstat.patch); all but the shards are global.
LOCKSTAT_LOCKS = ("stack_list", "load_tls", "default_attr", "shards")
GLOBAL_LOCKS = ("stack_list", "load_tls", "default_attr")


def parse_lockstat(stderr):
    """Sum the 'lockstat' lines that libc.so and ld.so print at exit, per
    lock: acquisitions, contended acquisitions, ns waited, ns held.  Ticks
    are converted with the rate libc.so measured."""
    rows = [dict(f.split("=", 1) for f in line.split()[1:])
            for line in stderr.splitlines() if line.startswith("lockstat ")]
    libc = [r for r in rows if r.get("dso") == "libc" and int(r.get("ns", 0))]
    if not libc:
        return None
    per_ns = int(libc[0]["ticks"]) / int(libc[0]["ns"])
    out = {}
    # A libc built with the lockstat patch of before 0012 prints no
    # default_attr: a lock no line counts is left out, not counted as 0.
    for lock in (l for l in LOCKSTAT_LOCKS if any(l in r for r in rows)):
        acq, cont, wait, held = (sum(int(r.get(lock, "0,0,0,0").split(",")[i])
                                     for r in rows)
                                 for i in range(4))
        out[lock] = {"acq": acq, "contended": cont,
                     "wait_ns": wait / per_ns, "held_ns": held / per_ns}
    return out


def lockstat_base(variant):
    """The uninstrumented counterpart of an instrumented variant."""
    name = sysroot(variant)
    return name[:-len("-lockstat")] if name.endswith("-lockstat") else None


# The (group, case) pairs an instrumented variant runs: the operations
# whose lock acquisitions the report gives, create+join and the seed work
# unit.  Counting costs time, so its rates are compared with nothing and
# it runs nothing else.
LOCKSTAT_RUNS = {("create-join", "create-join"), ("seed", "seed-work")}


def compared(variants):
    """Of VARIANTS, those whose rates the report compares: all but the
    instrumented ones."""
    return [v for v in variants if not lockstat_base(v)]


def instrumented(variants):
    """Of VARIANTS, the instrumented ones."""
    return [v for v in variants if lockstat_base(v)]


def runs_in(variants, group, case):
    """Of VARIANTS, those that run GROUP's CASE."""
    return [v for v in variants
            if not lockstat_base(v) or (group, case) in LOCKSTAT_RUNS]


def run_order(variants, rep):
    """The order of VARIANTS in repetition REP: the compared ones rotated
    (apps.rotated), so that none always follows another, then the
    instrumented ones, which are compared with nothing."""
    return apps.rotated(compared(variants), rep) + instrumented(variants)


def counts_locks(mode, threads=None):
    """Whether BENCH=MODE with THREADS runs what the instrumented variants
    count (for make bench's default variants); BENCH=quick, a smoke test,
    does not run them."""
    return mode != "quick" and any(c[:2] in LOCKSTAT_RUNS
                                   for c in plan(mode, threads).cfgs)


# A bundle (make bench-bundle) carries the benchmark binaries, each
# sysroot's run-time files and this runner, and runs without a compiler on
# another x86_64 Linux machine:
#   BUNDLE/run                     ./run [--bench NAME] [--reps N] [--resume] [VARIANT...]
#   BUNDLE/bench/                  this runner, the driver and the cases
#   BUNDLE/bin/SYSROOT/CASE        the benchmark binaries
#   BUNDLE/sysroots/SYSROOT/lib/   ld.so, libc.so.6, ... (debug info stripped)
#   BUNDLE/manifest.json           base, variants, what each sysroot is
BUNDLE_LIBS = ("ld-linux", "libc.so", "libm.so", "libpthread.so", "libdl.so",
               "librt.so", "libresolv.so", "libanl.so", "libutil.so", "libnss_")
RUN_SCRIPT = """#!/bin/sh
# nptl-scale benchmark bundle: ./run [--bench GROUP] [--reps N] [--resume] [VARIANT...]
# Needs python3; results in ./results (or $OUT_DIR).
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/bench/run.py" --bundle "$here" --out "${OUT_DIR:-$here/results}" "$@"
"""


def make_bundle(variants, builddir, outdir, base):
    """Write a bundle for VARIANTS (sysroots, not SYSROOT@TUNABLES, which
    the bundle's runner accepts too) into OUTDIR."""
    if os.path.exists(outdir):
        shutil.rmtree(outdir)
    shutil.copytree(os.path.join(TOP, "bench"), os.path.join(outdir, "bench"),
                    ignore=shutil.ignore_patterns("__pycache__", "test_*.py"))
    build(variants, builddir, outdir)
    manifest = {"base": base, "variants": [], "sysroots": {}, "ldso": {}}
    for v in variants:
        s = sysroot(v)
        if s in manifest["sysroots"]:
            continue
        root = variant_dir(builddir, s, "root")
        lib = os.path.join(outdir, "sysroots", s, "lib")
        os.makedirs(lib)
        for d in ("lib64", "lib"):
            src = os.path.join(root, d)
            if not os.path.isdir(src):
                continue
            for f in sorted(os.listdir(src)):
                path = os.path.join(src, f)
                if f.startswith(BUNDLE_LIBS) and ".so" in f and not os.path.islink(path) \
                        and os.path.isfile(path) and not os.path.exists(os.path.join(lib, f)):
                    shutil.copy(path, lib)
                    sh(["strip", "--strip-debug", os.path.join(lib, f)])
                    if f.startswith("ld-linux"):
                        manifest["ldso"][s] = f
        if s not in manifest["ldso"]:
            sys.exit("run.py: no dynamic linker in %s" % root)
        with open(os.path.join(root, "NPTL-SCALE")) as f:
            manifest["sysroots"][s] = "; ".join(f.read().strip().splitlines())
        manifest["variants"].append(s)
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(outdir, "run"), "w") as f:
        f.write(RUN_SCRIPT)
    os.chmod(os.path.join(outdir, "run"), 0o755)


def bundle_launcher(bundle, manifest, variant):
    """Run a bundle's binary under its sysroot's loader (their PT_INTERP
    and RUNPATH name the build machine's paths)."""
    s = sysroot(variant)
    lib = os.path.join(bundle, "sysroots", s, "lib")
    return [os.path.join(lib, manifest["ldso"][s]), "--library-path", lib]


def median(xs):
    return statistics.median(xs) if xs else None


# The interval of a ratio: a percentile bootstrap of the median of the
# per-repetition ratios, with a fixed seed so that a report is the same
# when rendered again.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 13
BOOTSTRAP_LEVEL = 0.95


def bootstrap(xs, resamples=BOOTSTRAP_RESAMPLES, level=BOOTSTRAP_LEVEL,
              seed=BOOTSTRAP_SEED):
    """The LEVEL percentile-bootstrap interval (lo, hi) of the median of
    XS: XS resampled with replacement RESAMPLES times, the median of each
    resample, the (1 - LEVEL) / 2 and (1 + LEVEL) / 2 quantiles of those
    medians (nearest rank).  None for fewer than 2 values."""
    if len(xs) < 2:
        return None
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs)))
                  for _ in range(resamples))
    tail = (1 - level) / 2
    return (meds[round(tail * (resamples - 1))],
            meds[round((1 - tail) * (resamples - 1))])


def config_key(r):
    """The configuration of a run or a summary row."""
    return (r["group"], r["case"], r["threads"], r["param"])


def summarize(results, variants):
    """Per configuration: median rate per variant and the pairwise ratios."""
    rows = []
    for key in sorted({config_key(r) for r in results},
                      key=lambda k: (k[0], k[1], k[3], k[2])):
        runs = [r for r in results if config_key(r) == key]
        row = {"group": key[0], "case": key[1], "threads": key[2],
               "param": key[3], "variants": {}}
        for v in variants:
            ok = [r for r in runs if r["variant"] == v and "rate" in r]
            rates = [r["rate"] for r in ok]
            row["variants"][v] = {
                "median": median(rates), "min": min(rates, default=None),
                "max": max(rates, default=None), "n": len(rates),
                "cpu_pct": median([r["process_cpu_pct"] for r in ok]),
                "rss_mib": median([r["rss_kib"] / 1024 for r in ok
                                   if r.get("rss_kib", -1) >= 0]),
                "busy_pct": median([r["machine_busy_pct"] for r in ok]),
                "errors": [r["error"] for r in runs
                           if r["variant"] == v and "error" in r],
                "ctxsw_per_op": median([c for c in map(ctxsw_per_op, ok)
                                        if c is not None]),

                "fairness": median([r["thread_ops_min"] / r["thread_ops_max"]
                                    for r in ok if r["thread_ops_max"]]),
                "timeouts": [r["timeout"] for r in runs
                             if r["variant"] == v and "timeout" in r],
            }
            row["variants"][v].update(task_summary(ok))
            stats = [r for r in ok if r.get("lockstat") and r.get("ops_total")]
            if stats:
                # Over the runs that counted the lock (results stored
                # before default_attr was counted have none).
                row["variants"][v]["lockstat"] = {
                    lock: {k: median([r["lockstat"][lock][k] / r["ops_total"]
                                      for r in stats if lock in r["lockstat"]])
                           for k in ("acq", "contended", "wait_ns", "held_ns")}
                    for lock in LOCKSTAT_LOCKS
                    if any(lock in r["lockstat"] for r in stats)}
        for v in variants[1:]:
            row["variants"][v].update(paired_ratio(runs, variants[0], v))
            # The process's CPU time (RUSAGE_SELF) leaves out its child
            # processes, which do part of the work of a fork.
            row["variants"][v]["per_cpu"] = paired_ratio(
                runs, variants[0], v,
                (lambda r: None) if key[0] == "fork" else ops_per_cpu_s)
            row["variants"][v]["per_busy"] = paired_ratio(
                runs, variants[0], v,
                lambda r: ops_per_cpu_s(r, "machine_busy_pct"))
        rows.append(row)
    return rows


def cpus_used(run, key="process_cpu_pct"):
    """The CPUs that RUN's process (KEY process_cpu_pct) or the machine's
    non-idle time (machine_busy_pct) took on average over the measured
    period; None without a share in (0, 100] (a driver before 2026-12-07
    could read the process's CPU time outside its wall-clock period when
    preempted, and report more than 100)."""
    pct, ncpu = run.get(key, 0), run.get("ncpu", 0)
    return pct * ncpu / 100 if ncpu and 0 < pct <= 100 else None


def ops_per_cpu_s(run, key="process_cpu_pct"):
    """Operations per second of CPU time over the measured period (KEY as
    for cpus_used), or None."""
    used = cpus_used(run, key)
    return run["rate"] / used if used and "rate" in run else None


def paired_ratio(runs, base, v, key="rate"):
    """V against BASE in RUNS (one configuration): the median of the
    per-repetition ratios of KEY (a field of a run, or a function of a
    run that returns None where it has no value), how many, their
    interval (bootstrap) and whether it holds 1 (within noise)."""
    get = key if callable(key) else (lambda r: r.get(key))
    ratios = []
    for rep in sorted({r["rep"] for r in runs}):
        a = [get(r) for r in runs if r["rep"] == rep and r["variant"] == base]
        b = [get(r) for r in runs if r["rep"] == rep and r["variant"] == v]
        a, b = [x for x in a if x is not None], [x for x in b if x is not None]
        if a and b and a[0] > 0:
            ratios.append(b[0] / a[0])
    ci = bootstrap(ratios)
    return {"ratio": median(ratios), "ratio_n": len(ratios),
            "ratio_ci": list(ci) if ci else None,
            "ratio_noise": ci[0] <= 1 <= ci[1] if ci else None}


def longer_note(doc):
    """The report's words for the cases of DOC's runs that measure longer
    than its seconds with many threads (Case.seconds)."""
    names = {r["case"] for r in doc["results"]}
    longer = [c.name for c in CASES if c.name in names
              and c.seconds(max(CREATORS), doc["seconds"]) > doc["seconds"]]
    return (" (longer with many threads for %s: the seconds of Case in "
            "bench/run.py)" % ", ".join(longer) if longer else "")


def ramp_note(results):
    """The report's words for the cases of RESULTS that ramp up."""
    cases = sorted({r["case"] for r in results if "ramp_s" in r})
    if not cases:
        return ""
    return (", which for %s begins when every thread has done its first "
            "operation (ramp s in the tasks table)" % ", ".join(cases))


def task_summary(runs):
    """What the runs (one variant, one configuration) say of the process's
    tasks and thread creation: medians over the runs of the peak task
    count, the live threads at most and the tasks above them at the peak
    (exited but not yet released by the kernel); the failed creates by
    errno, summed, and the runs with any; the time to create the
    threads (median and max) and the longest single create then; for a
    case that times creates under churn, the medians of its quantiles and
    the largest maximum, and of what the scheduler did meanwhile: the
    process's preemptions per operation and the machine's mean runnable
    tasks."""
    runs = [r for r in runs if "tasks_peak" in r and "tasks_live" in r]
    if not runs:
        return {}
    failed = collections.Counter()
    for r in runs:
        failed.update(r.get("create_failed", {}))
    out = {"tasks_peak": median([r["tasks_peak"] for r in runs]),
           "tasks_live": median([r["tasks_live"] for r in runs]),
           "unreleased_peak": median([max(0, r["tasks_peak"] - r["tasks_live"])
                                      for r in runs]),
           "create_failed": dict(failed),
           "runs_with_failed_creates": sum(1 for r in runs if r.get("create_failed")),
           "samplers": sorted(set(r.get("tasks_sampler", "?") for r in runs)),
           "startup_s": median([r["startup_s"] for r in runs]),
           "startup_s_max": max(r["startup_s"] for r in runs),
           "startup_create_max_ns": max(r["startup_create_max_ns"] for r in runs)}
    ramps = [r for r in runs if "ramp_s" in r]
    if ramps:
        out["ramp_s"] = median([r["ramp_s"] for r in ramps])
        out["ramp_s_max"] = max(r["ramp_s"] for r in ramps)
        out["runs_not_ramped"] = sum(1 for r in ramps if not r["ramped"])
        out["ramp_limit_s"] = max(r["ramp_limit_s"] for r in ramps)
    lat = [r["create_latency"] for r in runs if r.get("create_latency", {}).get("n")]
    if lat:
        out["create_latency"] = {
            k: median([x[k] for x in lat]) for k in ("n", "p50_ns", "p99_ns", "p999_ns")}
        out["create_latency"]["max_ns"] = max(x["max_ns"] for x in lat)
        sched = [r for r in runs if "preemptions" in r and r.get("ops")]
        if sched:
            out["create_latency"]["preempted_per_op"] = median(
                [r["preemptions"] / r["ops"] for r in sched])
            out["create_latency"]["runnable_mean"] = median(
                [r["runnable_mean"] for r in sched if "runnable_mean" in r])
            out["create_latency"]["seconds"] = median([r["seconds"] for r in sched])
    return out


def profile_summary(run):
    """The profile run RUN's perf counts per operation (divided by all the
    operations of the process, warm-up included, as perf counts the whole
    process): system calls by name where above SYSCALL_MIN, "other" (the
    total less the named ones) where above it too, the total, TLB flushes,
    function-call IPIs, page faults; and its exit delays."""
    perf, ops = run.get("perf") or {}, per_op(run)
    out = {}
    if SYSCALL_TOTAL in perf:
        named = {c: perf.get("syscalls:sys_enter_" + c, 0) / ops for c in SYSCALLS}
        total = perf[SYSCALL_TOTAL] / ops
        named["other"] = max(0.0, total - sum(named.values()))
        calls = {c: x for c, x in named.items() if x > SYSCALL_MIN}
        # "syscalls_all": every count, for differences (floor_diff).
        out.update({"syscalls": calls, "syscalls_all": named,
                    "syscalls_total": total})
    if "tlb:tlb_flush" in perf:
        out["tlb_flush"] = perf["tlb:tlb_flush"] / ops
    if any(e in perf for e in IPIS):
        out["ipi"] = sum(perf.get(e, 0) for e in IPIS) / ops
    if "page-faults" in perf:
        out["page_faults"] = perf["page-faults"] / ops
    if run.get("exit_delays"):
        out["exit_delays"] = run["exit_delays"]
    if out and run.get("perf_window") == "measure":
        out["perf_partial"] = partial_profile(run)
    if out:
        out["window"] = run.get("perf_window", "process")
    return out


def partial_profile(run):
    """Why the profile run RUN's perf counted only part of its measured
    period, or None (also where perf counted the whole process)."""
    perf = run.get("perf")
    if not perf or run.get("perf_window") != "measure":
        return None
    ops = per_op(run)
    if run.get("unit") in ONE_CLONE_UNITS and SYSCALL_TOTAL in perf:
        clones = sum(perf.get("syscalls:sys_enter_" + c, 0)
                     for c in ("clone", "clone3")) / ops
        return ("%.2f clones counted per operation" % clones
                if clones < PERF_CLONES_MIN else None)
    cpu_ms = (cpus_used(run) or 0) * run.get("seconds", 0) * 1000
    if "task-clock" in perf and cpu_ms > 0:
        share = perf["task-clock"] / cpu_ms
        return ("perf's task-clock %d%% of the process's CPU time"
                % round(100 * share) if share < PERF_TASK_CLOCK_MIN else None)
    return None


def attach_profiles(rows, profile):
    """Add each profile run's summary to its row and variant ("profile")."""
    for r in profile:
        if "error" in r:
            continue
        for row in rows:
            if config_key(row) == config_key(r) and r["variant"] in row["variants"]:
                row["variants"][r["variant"]]["profile"] = profile_summary(r)


def floor_row(rows, row):
    """The bare clone-floor row with ROW's thread count, or None."""
    return next((f for f in rows if f["case"] == "clone-floor"
                 and not f["param"] and f["threads"] == row["threads"]), None)


def syscall_cell(calls):
    return ", ".join("%s %s" % (c, fmt(x, 2)) for c, x in
                     sorted(calls.items(), key=lambda cx: (-cx[1], cx[0]))) or "-"


def floor_diff(calls, floor):
    """The calls per operation of CALLS beyond (or short of) FLOOR's, where
    the difference exceeds SYSCALL_MIN."""
    diff = {c: calls.get(c, 0) - floor.get(c, 0) for c in set(calls) | set(floor)}
    return ", ".join("%s %+.2f" % (c, d) for c, d in
                     sorted(diff.items(), key=lambda cd: (-abs(cd[1]), cd[0]))
                     if abs(d) > SYSCALL_MIN) or "none"


def fmt(x, digits=0):
    if x is None:
        return "-"
    if abs(x) >= 1000:
        return "{:,.0f}".format(x)
    return ("{:.%df}" % digits).format(x)


def ratio_cell(s):
    """A variant's ratio to the first variant, its interval, and whether
    that is within noise (no interval: fewer than 2 paired repetitions)."""
    ci = s.get("ratio_ci")
    if not ci:
        return fmt(s.get("ratio"), 3)
    return "%s [%s, %s]%s" % (fmt(s["ratio"], 3), fmt(ci[0], 3), fmt(ci[1], 3),
                              " within noise" if s["ratio_noise"] else "")


TITLES = {
    "create-join": "Thread create+join rate (empty body; clone-floor = bare clone() + wait on the cleared TID, param calls: with the system calls a glibc thread makes beside it (rt_sigprocmask around the clone, rseq, set_robust_list, two rt_sigprocmask in the thread), the floor of any pthread_create with glibc's semantics; of floor = the rate over the bare floor's; create-detached = create of a detached thread, the creator waiting for its body to end, not for its exit)",
    "seed": "Seed experiments (work unit = 20 x memcpy of 1,000,000 bytes; spawn = each thread creates a thread per unit and joins it)",
    "create-latency": "Create+join while N threads churn (the rate of the churning threads; the latency of their creates is in its own table below)",
    "condvar": "Condition variables",
    "syncpoint": "Sync point: N threads meeting repeatedly (spin, sched_yield, futex barrier)",
    "fork": "fork + _exit + waitpid, with no stack cached (cached=0) and after 1000 threads with 16 KiB stacks came and went (cached=1000)",
    "stack-advise": "Stack release at thread exit: create+join with an empty body (touch=0), one that writes 256 KiB of its stack (touch=256), and one that skips 64 KiB below its frame and writes the 256 KiB below that (frame=256, a large frame without stack-clash probing); RSS = VmRSS at the end of the run",
}


def report(doc, rows, variants, path):
    # The instrumented variants have the lock table only.
    inst = instrumented(variants)
    variants = compared(variants)
    m = doc["machine"]
    out = ["# nptl-scale benchmarks: glibc %s, %s" % (doc["base"], " vs ".join(variants)),
           "",
           "- Machine: %s cores (%s), %s GiB, kernel %s, %s" % (
               m.get("cores"), m.get("cpu", "?"), m.get("mem_gib", "?"),
               m.get("kernel"), m.get("arch")),
           "- Date: %s; mode: %s; %d repetitions per configuration, variants interleaved%s; "
           "%.1f s measured per run%s after %.1f s warm-up%s" % (
               doc["date"], doc["mode"] + (", threads %s" % doc["threads"]
                                           if doc.get("threads") else ""),
               doc["reps"],
               ", each repetition starting with the next variant"
               if doc.get("order") == "rotated" else
               " in the same order in every repetition",
               doc["seconds"], longer_note(doc), 0.2,
               ramp_note(doc["results"])),
           "- Rates are medians over the repetitions (min-max in brackets).  "
           "Ratio = the median of the per-repetition %s/%s rate ratios "
           "(each repetition runs the variants back to back), and in "
           "brackets its %d%% confidence interval: a percentile bootstrap of "
           "that median (%d resamples of the ratios, seed %d); **within "
           "noise** where the interval contains 1.0.  With 5 repetitions or "
           "fewer the interval is about the range of the ratios; more "
           "repetitions (BENCH_REPS) narrow it." % (
               "/".join(variants[1:]) or "-", variants[0],
               round(100 * BOOTSTRAP_LEVEL), BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED),
           "- Medians, not the means of glibc's compare_bench.py, which "
           "compares one run's mean (and min) time per call with another's "
           "against a fixed threshold (10%% by default): our repetitions are "
           "few and run on a shared machine, where one disturbed repetition "
           "moves a mean but not a median, and pairing the interleaved "
           "repetitions cancels the machine's drift; the interval, not a "
           "fixed threshold, says what is noise.  The same runs in glibc's "
           "benchtests format, for compare_bench.py: %s." % (
               ", ".join(doc.get("benchout", [])) or "none (no run)"),
           "- CPU %% = the process's CPU time (getrusage) / (wall time x %s cores); "
           "busy %% = the whole machine's non-idle share (/proc/stat; steal, the "
           "time the host gave to other guests, left out) over the same "
           "period, which also counts kernel work done outside the process's "
           "threads (e.g. tearing down exited threads)." % m.get("cores"),
           "- perf: %s; %s%s; %s" % (
               ", ".join(e for e in doc["perf_events"] if e != PERF_CONTROL) or "none",
               doc["perf_note"],
               "; counted over the measured period only (the driver enables "
               "perf's counters after the warm-up, through perf stat --control)"
               if PERF_CONTROL in doc["perf_events"] else "",
               "in the profile run only: the timed runs run without perf, and "
               "their ctxsw/op is the process's context switches (getrusage: "
               "its threads, not its child processes) over all its operations, "
               "start and warm-up included"
               if doc.get("timed_perf") is False else
               "the timed runs ran under perf stat with the software events"),
           ""]
    for v in variants + inst:
        out.append("- %s: %s" % (v, doc["sysroots"].get(v, "")))
    out.append("")
    if doc.get("partial"):
        out += ["**Partial:** the run stopped before its end (a time limit, or "
                "killed); the tables have the configurations that ran.", ""]
    if doc.get("failed"):
        out += ["**Failed:** %s (their output is below)." % "; ".join(doc["failed"]), ""]
    for group in (g for g in GROUPS if g in TITLES):
        grows = [r for r in rows if r["group"] == group]
        if not grows:
            continue
        out += ["## " + TITLES[group], ""]
        hdr = ["case", "param", "threads"]
        for v in variants:
            hdr += ["%s /s" % v, "%s CPU %%" % v, "%s busy %%" % v]
            if v != variants[0]:
                hdr += ["%s/%s" % (v, variants[0])]
        hdr += ["ctxsw/op (%s)" % v for v in variants]
        if group == "stack-advise":
            hdr += ["RSS MiB (%s)" % v for v in variants]
        if group == "create-join":
            hdr += ["%s of floor" % v for v in variants]
        out.append("| " + " | ".join(hdr) + " |")
        out.append("|" + "---|" * len(hdr))
        for r in grows:
            cells = [r["case"], r["param"] or "-", str(r["threads"])]
            for v in variants:
                s = r["variants"][v]
                err = " (%d failed)" % len(s["errors"]) if s["errors"] else ""
                cells.append("%s [%s-%s]%s" % (fmt(s["median"]), fmt(s["min"]),
                                               fmt(s["max"]), err))
                cells.append(fmt(s["cpu_pct"], 1))
                cells.append(fmt(s["busy_pct"], 1))
                if v != variants[0]:
                    cells.append(ratio_cell(s))
            for v in variants:
                cells.append(fmt(r["variants"][v]["ctxsw_per_op"], 2))
            if group == "stack-advise":
                cells += [fmt(r["variants"][v]["rss_mib"], 1) for v in variants]
            if group == "create-join":
                floor = floor_row(rows, r)
                for v in variants:
                    fl = floor["variants"][v]["median"] if floor else None
                    me = r["variants"][v]["median"]
                    cells.append(fmt(me / fl, 2) if fl and me
                                 and r is not floor else "-")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out += cost_report(rows, variants)
    out += lockstat_report(rows, variants + inst, doc)
    out += syscall_report(rows, variants)
    out += task_report(rows, variants, doc)
    out += latency_report(rows, variants)
    out += apps_report(doc, variants)
    for extra in ("glibc_benchtests", "stress_ng"):
        if doc.get(extra):
            out += ["## " + {"glibc_benchtests": "glibc benchtests (bench-pthread: %s), compared as compare_bench.py --stats mean --threshold 5 does" % doc.get("glibc_bench_set", GLIBC_BENCH),
                             "stress_ng": "stress-ng --pthread under each sysroot"}[extra],
                    "", "```", doc[extra].rstrip(), "```", ""]
    if doc.get("plots"):
        out += ["## Plots", ""] + ["![%s](%s)" % (p, p) for p in doc["plots"]] + [""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def cost_report(rows, variants):
    """Each variant's operations per CPU second against the first
    variant's, paired by repetition as the rates are."""
    lines = [[r["case"], r["param"] or "-", str(r["threads"])]
             + [ratio_cell(r["variants"][v].get(k, {}))
                for v in variants[1:] for k in ("per_cpu", "per_busy")]
             for r in rows
             if any(r["variants"][v].get(k, {}).get("ratio_n")
                    for v in variants[1:] for k in ("per_cpu", "per_busy"))]
    if not lines:
        return []
    hdr = ["case", "param", "threads"]
    for v in variants[1:]:
        hdr += ["%s/%s per process CPU s" % (v, variants[0]),
                "%s/%s per busy CPU s" % (v, variants[0])]
    return ["## Operations per CPU second (the rate over the CPU time it took)",
            "",
            "The same runs as the rates: each run's operations per second "
            "of the process's CPU time (its rate over CPU %%) and per second "
            "of the whole machine's non-idle time (over busy %%), over the "
            "measured period (time the host gave to other guests, steal, "
            "is left out of the machine's); the median of the "
            "per-repetition ratios to %s, with its interval as above.  "
            "Above 1: the variant spends less CPU on an operation.  Where "
            "the CPUs idle part of the time (a thread waiting to be woken), "
            "a run's rate moves with that idle time and these ratios do "
            "not: they resolve the cost of an operation where the rate's "
            "interval cannot, and they say nothing about the waiting.  "
            "Runs whose CPU share reads above 100%% (a driver before "
            "2026-12-07, preempted between its reads) are left out; fork "
            "rows have no process column, as the process's CPU time leaves "
            "out its children's." % variants[0], ""] + table(hdr, lines)


def table(hdr, lines):
    return ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)] + \
        ["| " + " | ".join(cells) + " |" for cells in lines] + [""]


def us(ns, digits=1):
    return fmt(ns / 1e3, digits) if ns is not None else "-"


# What the profile runs' counts per operation cover, by their windows.
WINDOW_TEXT = {
    "measure": "perf's counts over the measured period (the driver enables "
               "the counters after its warm-up and disables them at the end, "
               "through perf stat --control) divided by the operations of "
               "that period: the steady state, without the threads' start",
    "process": "perf's counts for the whole process divided by all its "
               "operations (the start of the threads, the warm-up and the "
               "driver's thread creation included; this perf has no "
               "--control)",
}
WINDOW_TEXT["measure process"] = (WINDOW_TEXT["measure"] + "; where perf has no "
                                  "--control (a resumed run), "
                                  + WINDOW_TEXT["process"].split("(")[0].strip())


def syscall_report(rows, variants):
    prof = [(r, v) for r in rows if r["group"] in THREAD_GROUPS
            for v in variants if r["variants"][v].get("profile", {}).get("syscalls") is not None]
    if not prof:
        return []
    lines = []
    windows = {r["variants"][v]["profile"].get("window", "process") for r, v in prof}
    for r, v in prof:
        p = r["variants"][v]["profile"]
        fl = floor_row(rows, r)
        fp = fl["variants"][v].get("profile", {}).get("syscalls_all") if fl else None
        partial = p.get("perf_partial")
        floor_partial = fl and fl["variants"][v].get("profile", {}).get("perf_partial")
        lines.append([r["case"], r["param"] or "-", str(r["threads"]), v,
                      syscall_cell(p["syscalls"])
                      + (" (**partial**: %s)" % partial if partial else ""),
                      fmt(p["syscalls_total"], 2),
                      "-" if r is fl or fp is None
                      else "- (the floor's count is partial)" if floor_partial
                      else floor_diff(p["syscalls_all"], fp),
                      fmt(p.get("tlb_flush"), 3), fmt(p.get("ipi"), 3),
                      fmt(p.get("page_faults"), 1)])
    return ["## System calls, TLB flushes, function-call IPIs and page faults per operation", "",
            "One more run per configuration and variant, with tracepoints, not "
            "used for the rates: %s.  Calls named where above %s per operation; other = "
            "every call (raw_syscalls:sys_enter) less the named ones.  Beyond "
            "the floor = the calls per operation less those of clone-floor "
            "at the same thread count under the same variant: what glibc adds "
            "to the kernel's minimum.  IPIs = irq_vectors:call_function_entry "
            "+ call_function_single_entry.  Page faults = the page-faults "
            "event: first touches of memory, also of memory that an munmap "
            "or madvise gave back (a thread's stack, or malloc's heap trimmed "
            "by free).  **Partial**: perf counted only "
            "part of that run's measured period (fewer than %s clones per "
            "operation where each operation makes one; elsewhere a "
            "task-clock below %d%% of the CPU time the driver measured over "
            "the period), so the row's counts are low; run it again.  In "
            "results.json only, not in the benchout files: glibc's "
            "benchtests format has no field for counts." % (
                WINDOW_TEXT[" ".join(sorted(windows))], SYSCALL_MIN,
                PERF_CLONES_MIN, round(100 * PERF_TASK_CLOCK_MIN)),
            ""] + table(
        ["case", "param", "threads", "variant", "calls per operation", "total",
         "beyond the clone floor", "tlb_flush", "IPIs", "page faults"], lines)


# How the peak task count was read (TaskMonitor.priority); "?": a result
# of the driver's own sampler, inside the process, which earlier runs used.
_OUTSIDE = ("read every 2 ms by run.py from outside the process, from its "
            "start to its exit, at ")
SAMPLERS = {"fifo": _OUTSIDE + "real-time priority (SCHED_FIFO 1)",
            "normal": _OUTSIDE + "normal priority (real-time refused: a "
                      "peak may be missed)",
            "?": "sampled every 5 ms inside the process through warm-up and "
                 "measurement (results of earlier runs: a peak under churn "
                 "is missed)"}


def sampler_note(trs):
    """The priorities the peak task counts of TRS were read at, in words."""
    used = sorted({x for r, v in trs for x in r["variants"][v].get("samplers", ["?"])})
    return " and ".join(SAMPLERS.get(x, x) for x in used)


def task_report(rows, variants, doc):
    trs = [(r, v) for r in rows if r["group"] in THREAD_GROUPS
           for v in variants if "tasks_peak" in r["variants"][v]]
    if not trs:
        return []
    pid_max = next((x.get("pid_max") for x in doc["results"] if x.get("pid_max")), None)
    lines = []
    for r, v in trs:
        s = r["variants"][v]
        d = s.get("profile", {}).get("exit_delays") or {}
        rel, fr = d.get("released"), d.get("freed")
        failed = ", ".join("%s %s" % kv for kv in sorted(s["create_failed"].items()))
        lines.append([r["case"], r["param"] or "-", str(r["threads"]), v,
                      fmt(s["tasks_peak"]), fmt(s["tasks_live"]),
                      fmt(s["unreleased_peak"]),
                      "%s (%d of %d runs)" % (failed, s["runs_with_failed_creates"], s["n"])
                      if failed else "0",
                      "%s / %s / %s" % (us(rel["p50"]), us(rel["p99"]), us(rel["max"]))
                      if rel else "-",
                      "%s / %s" % (us(fr["p50"]), us(fr["p99"])) if fr else "-",
                      ramp_cell(s)])
    return ["## Tasks the kernel has not released, and failed creates", "",
            "Tasks = the process's threads as the kernel counts them "
            "(Threads: of /proc/PID/status), %s, peak per run, median "
            "over the runs; a "
            "joined thread counts until the kernel releases its task.  Live "
            "= the threads the benchmark has alive at most (main, its "
            "threads, their children); above = peak - live, tasks that "
            "exited and were joined but not released (at least).  They hold "
            "PIDs: pid_max here is %s, and a create that finds none fails "
            "with EAGAIN (counted by errno over all runs, the run goes on).  "
            "Exit to released / freed: per thread, from sched_process_exit "
            "(do_exit, beside the TID clear that wakes pthread_join) to its "
            "last switch out as a reaped task (sched_switch, prev_state X: "
            "its PID is free) and to sched_process_free (after an RCU grace "
            "period), in us, p50 / p99 / max, from the profile run.  "
            "Ramp = the time from the start of the threads until every one "
            "had done its first operation (its first create maps a stack), "
            "after which the warm-up began, median [max] over the runs."
            % (sampler_note(trs), fmt(pid_max)), ""] + table(
        ["case", "param", "threads", "variant", "peak tasks", "live", "above live",
         "failed creates", "exit to released us", "exit to freed us", "ramp s"],
        lines)


def ramp_cell(s):
    """The ramp of summary S (task_summary) for the tasks table."""
    if "ramp_s" not in s:
        return "-"
    cell = "%s [%s]" % (fmt(s["ramp_s"], 2), fmt(s["ramp_s_max"], 2))
    if s["runs_not_ramped"]:
        cell += " (%d runs: not every thread by %d s)" % (
            s["runs_not_ramped"], s["ramp_limit_s"])
    return cell


def latency_report(rows, variants):
    lrs = [(r, v) for r in rows for v in variants if "create_latency" in r["variants"][v]]
    if not lrs:
        return []
    lines = []
    for r, v in lrs:
        s = r["variants"][v]
        lat = s["create_latency"]
        sched = ([fmt(lat["seconds"], 1), fmt(lat["preempted_per_op"], 3),
                  fmt(lat["runnable_mean"], 1)] if "preempted_per_op" in lat
                 else ["-", "-", "-"])
        lines.append([r["param"] or "-", str(r["threads"]), v, fmt(lat["n"]),
                      us(lat["p50_ns"]), us(lat["p99_ns"]), us(lat["p999_ns"]),
                      fmt(lat["max_ns"] / 1e6, 1)] + sched +
                     ["%s [%s]" % (fmt(s["startup_s"], 2), fmt(s["startup_s_max"], 2)),
                      fmt(s["startup_create_max_ns"] / 1e6, 1)])
    return ["## Create latency under churn", "",
            "Each of N threads loops creating a thread and joining it (empty: "
            "an empty body; work: the seed's work unit; clone: a bare clone "
            "and a wait on the TID, the kernel's and the scheduler's bound on "
            "this machine), and times every create, from the call to its "
            "return.  Quantiles of the measured period per run (from a "
            "histogram, at most 6.25% above the true value), medians over the "
            "runs; max = the largest of all runs.  Measured s = the measured "
            "period of one run, which is longer with more threads "
            "(LATENCY_SECONDS).  What bounds the tail is the scheduler: a "
            "create that is preempted (by the thread it creates, or at the "
            "end of its slice) returns when the creator runs again, behind "
            "the other runnable tasks; preempted = the involuntary context "
            "switches of the whole process (creators and the threads they "
            "create) per create+join, runnable = the machine's runnable "
            "tasks (procs_running, less the driver's sampling thread), mean "
            "over the period; both medians over the runs.  Startup = the time the "
            "driver took to create the N threads, each starting its loop at "
            "once (median [max] over the runs), and its longest single "
            "create.", ""] + table(
        ["churn", "threads", "variant", "creates per run", "p50 us", "p99 us",
         "p99.9 us", "max ms", "measured s", "preempted per op", "runnable",
         "startup s", "longest startup create ms"], lines)


MODEL_CORES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def lock_model(rows, variants):
    """For each instrumented variant: a global lock held H ns per create+join
    caps the machine at 1/H operations/s whatever the core count, so the
    projected rate at N cores is min(N x r1, 1/H), with r1 the measured
    1-creator rate of the uninstrumented counterpart and H the ns held per
    create+join of the most-held global lock.  Two rows per variant: H
    measured with 1 creator (the lock's own cost, no contention) and with
    the most creators run (what contention makes of it on this machine)."""
    model = {}
    cj = [r for r in rows if r["case"] == "create-join" and r["group"] == "create-join"]
    for v in variants:
        base = lockstat_base(v)
        one = [r for r in cj if r["threads"] == 1]
        if not base or not one or "lockstat" not in one[0]["variants"].get(v, {}):
            continue
        r1 = one[0]["variants"].get(base, {}).get("median")
        most = max((r for r in cj if "lockstat" in r["variants"].get(v, {})),
                   key=lambda r: r["threads"])
        for label, row in (("1 creator", one[0]),
                           ("%d creators" % most["threads"], most)):
            st = row["variants"][v]["lockstat"]
            held = {lock: st[lock]["held_ns"] for lock in GLOBAL_LOCKS if lock in st}
            lock = max(held, key=held.get)
            if not r1 or not held[lock]:
                continue
            ceiling = 1e9 / held[lock]
            model["%s, H at %s" % (base, label)] = {
                "r1": r1, "lock": lock, "held_ns": held[lock], "ceiling": ceiling}
    return model


def projected(m, n):
    """The modelled rate of model entry M at N cores."""
    return min(n * m["r1"], m["ceiling"])


def lockstat_report(rows, variants, doc):
    inst = instrumented(variants)
    srows = [r for r in rows if any("lockstat" in r["variants"].get(v, {}) for v in inst)]
    # Their failed runs: the rate tables, which name the others', leave
    # these variants out.
    failed = ["%s %s %d threads, %s: %d failed" % (
        r["case"], r["param"] or "-", r["threads"], v, len(r["variants"][v]["errors"]))
        for r in rows for v in inst if r["variants"].get(v, {}).get("errors")]
    if not srows and not failed:
        return []
    out = ["## Lock statistics (instrumented variants, experiments/lockstat.patch)", "",
           "Per operation (create+join, or seed work unit), medians over the "
           "repetitions; counted over the whole process (warm-up and the "
           "driver's own thread creation included), divided by all its "
           "operations.  stack_list = GL (dl_stack_cache_lock), load_tls = "
           "GL (dl_load_tls_lock), default_attr = __default_pthread_attr_lock "
           "(all three global); shards = the stack-cache "
           "shard locks, summed (per CPU).  acq = acquisitions, cont = "
           "acquisitions that found the lock taken, held/wait in ns.", ""]
    hdr = ["case", "param", "threads"]
    for v in inst:
        for lock in LOCKSTAT_LOCKS:
            hdr += ["%s %s acq" % (v, lock), "cont", "held ns", "wait ns"]
    out.append("| " + " | ".join(hdr) + " |")
    out.append("|" + "---|" * len(hdr))
    for r in srows:
        cells = [r["case"], r["param"] or "-", str(r["threads"])]
        for v in inst:
            st = r["variants"].get(v, {}).get("lockstat")
            for lock in LOCKSTAT_LOCKS:
                x = st.get(lock, {}) if st else {}
                cells += [fmt(x.get("acq"), 2), fmt(x.get("contended"), 3),
                          fmt(x.get("held_ns"), 0), fmt(x.get("wait_ns"), 0)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    if failed:
        out += ["**Failed** (their output is in results.json): %s." % "; ".join(failed), ""]
    model = doc.get("lock_model") or {}
    if model:
        out += ["## Model: the ceiling a global lock puts on create+join", "",
                "A model, not a measurement: a global lock held H ns per "
                "create+join allows at most 1/H create+join per second on any "
                "number of cores, so the projected rate at N cores is "
                "min(N x r1, 1/H).  Inputs measured on this machine (%s cores): "
                "r1 = the 1-creator create+join rate of the uninstrumented "
                "variant, H = ns held per create+join of its most-held global "
                "lock in the instrumented variant, with 1 creator (the lock's own cost) "
                "and with the most creators run (what contention on this machine "
                "makes of it).  It ignores "
                "everything else that stops scaling (the kernel's own locks, "
                "memory bandwidth), so it is an upper bound." % doc["machine"].get("cores"), ""]
        hdr = ["variant", "r1 /s", "lock", "H ns", "ceiling /s"] + \
            ["N=%d" % n for n in MODEL_CORES]
        out.append("| " + " | ".join(hdr) + " |")
        out.append("|" + "---|" * len(hdr))
        for base, m in model.items():
            out.append("| " + " | ".join(
                [base, fmt(m["r1"]), m["lock"], fmt(m["held_ns"], 0), fmt(m["ceiling"])]
                + [fmt(projected(m, n)) for n in MODEL_CORES]) + " |")
        out.append("")
    return out


def model_plot(model, cores, outdir):
    if not model or not shutil.which("gnuplot"):
        return []
    dat = os.path.join(outdir, "lock-model.dat")
    with open(dat, "w") as f:
        for base, m in model.items():
            f.write("# %s\n" % base)
            for n in MODEL_CORES:
                f.write("%d %f\n" % (n, projected(m, n)))
            f.write("\n\n")
    png = "lock-model.png"
    title = ("Model (not measured): min(N x r1, 1/H); inputs measured on %s cores"
             % cores)
    items = ["'%s' index %d using 1:2 with linespoints title '%s: r1 %s/s, %s held %s ns'"
             % (dat, i, base, fmt(m["r1"]), m["lock"], fmt(m["held_ns"], 0))
             for i, (base, m) in enumerate(model.items())]
    cmds = ["set terminal png size 900,540 noenhanced",
            "set output '%s'" % os.path.join(outdir, png),
            "set logscale x 2", "set logscale y 10", "set xlabel 'cores'",
            "set ylabel 'projected create+join per second'", "set grid",
            "set key top left", "set title '%s'" % title,
            "plot " + ", ".join(items)]
    r = sh(["gnuplot"], input="\n".join(cmds) + "\n")
    return [png] if r.returncode == 0 else []


def plots(rows, variants, outdir):
    if not rows or not shutil.which("gnuplot"):
        return []
    made = []
    series = [(v, "create-join") for v in variants] + [(variants[0], "clone-floor")]
    dat = os.path.join(outdir, "create-join.dat")
    with open(dat, "w") as f:
        for v, case in series:
            f.write("# %s %s\n" % (case, v))
            for r in rows:
                if r["case"] == case and r["group"] == "create-join" \
                        and not (case == "clone-floor" and r["param"]):
                    s = r["variants"][v]
                    if s["median"]:
                        f.write("%d %f %f %f\n" % (r["threads"], s["median"],
                                                   100 - (s["cpu_pct"] or 0),
                                                   100 - (s["busy_pct"] or 0)))
            f.write("\n\n")
    for name, col, ylabel in (("create-join-rate", 2, "create+join per second"),
                              ("create-join-idle", 3, "CPU idle % (process CPU time)"),
                              ("create-join-machine-idle", 4, "CPU idle % (whole machine)")):
        png = name + ".png"
        cmds = ["set terminal png size 900,540 noenhanced",
                "set output '%s'" % os.path.join(outdir, png),
                "set logscale x 2", "set xlabel 'concurrent creators'",
                "set ylabel '%s'" % ylabel, "set key outside bottom center horizontal",
                "set grid", "set title '%s'" % ylabel]
        items = ["'%s' index %d using 1:%d with linespoints title '%s %s'"
                 % (dat, i, col, case, v) for i, (v, case) in enumerate(series)]
        cmds.append("plot " + ", ".join(items))
        r = sh(["gnuplot"], input="\n".join(cmds) + "\n")
        if r.returncode == 0:
            made.append(png)
    return made


def benchout(results, variants):
    """Our runs in the format of glibc's benchtests, one document per
    variant (benchtests/scripts/benchout.schema.json, copied in
    bench/benchout.schema.json), so that glibc's compare_bench.py compares
    two variants: a function per case (its name with _ for what the
    schema's pattern does not allow: create_join), a function variant per
    thread count and parameter (threads=40,direct_idle1000), times in
    wall-clock ns per operation of the whole process (1e9 / rate; lower is
    faster), one timing per repetition.  Configurations without a
    successful run of every variant are left out, as compare_bench.py
    expects the same functions and variants in both files; the group is
    not part of the name, as no two groups run the same case, threads and
    parameter."""
    docs = {v: {"timing_type": "ns_per_op", "functions": {}} for v in variants}
    for case, n, param in sorted({(r["case"], r["threads"], r["param"])
                                  for r in results}):
        func = re.sub(r"[^_a-zA-Z0-9]", "_", case)
        var = ",".join(["threads=%d" % n] + (
            [re.sub(r"[^_a-zA-Z0-9,=.-]", "_", param)] if param else []))
        ok = {v: [r for r in results if r.get("rate") and r["variant"] == v
                  and (r["case"], r["threads"], r["param"]) == (case, n, param)]
              for v in variants}
        if not all(ok.values()):
            continue
        for v, runs in ok.items():
            times = [1e9 / r["rate"] for r in runs]
            duration = sum(r["ops"] * t for r, t in zip(runs, times))
            iterations = sum(r["ops"] for r in runs)
            docs[v]["functions"].setdefault(func, {})[var] = {
                "duration": duration, "iterations": iterations,
                "mean": duration / iterations if iterations else statistics.mean(times),
                "min": min(times), "max": max(times), "timings": times}
    return {v: d for v, d in docs.items() if d["functions"]}


def write_benchout(results, variants, outdir):
    """Write benchout-VARIANT.json into OUTDIR, and remove those of
    variants that are not in this run (a report must not sit beside
    another run's files); returns their names."""
    for old in glob.glob(os.path.join(outdir, "benchout-*.json")):
        os.remove(old)
    names = []
    for v, d in benchout(results, variants).items():
        names.append("benchout-%s.json" % v)
        with open(os.path.join(outdir, names[-1]), "w") as f:
            json.dump(d, f, indent=1)
    return names


def compare_glibc_bench(a_path, b_path, threshold):
    """compare_bench.py's comparison with --stats mean (per function and
    variant, the mean time, a difference over THRESHOLD percent flagged;
    its defaults are min and mean, 10%), without its plotting and schema
    dependencies."""
    with open(a_path) as f:
        a = json.load(f)["functions"]
    with open(b_path) as f:
        b = json.load(f)["functions"]
    lines, flagged = [], 0
    for func in sorted(set(a) & set(b)):
        for var in sorted(set(a[func]) & set(b[func])):
            x, y = a[func][var], b[func][var]
            if not (isinstance(x, dict) and isinstance(y, dict)
                    and "mean" in x and "mean" in y and x["mean"]):
                continue
            d = 100.0 * (y["mean"] - x["mean"]) / x["mean"]
            mark = "+++" if d < -threshold else "---" if d > threshold else "   "
            flagged += mark != "   "
            lines.append("%s %-16s %-58s %12.1f %12.1f %+7.1f%%" % (
                mark, func, var[:58], x["mean"], y["mean"], d))
    head = ("mean time per call; +++ faster, --- slower by more than %g%%; "
            "%d of %d flagged" % (threshold, flagged, len(lines)))
    return "\n".join([head] + lines)


def glibc_benchtests(variants, builddir, outdir, in_env, benches=GLIBC_BENCH):
    """Run part of glibc's bench-pthread set in each build tree; compare.
    Returns the report's text and what failed, one line each."""
    outs, texts, failed = {}, [], []
    for v in variants:
        obj = variant_dir(builddir, v, "obj")
        print("==> glibc benchtests (%s) for %s" % (benches, v), flush=True)
        r = sh(in_env + [obj] + env_prefix(v) + ["make", "-s", "BENCHSET=bench-pthread",
                         "bench-pthread=" + benches, "bench"])
        f = os.path.join(obj, "benchtests", "bench.out")
        if r.returncode != 0 or not os.path.exists(f):
            failed.append("glibc benchtests for %s: %s" % (
                v, "exit %d" % r.returncode if r.returncode else "no bench.out"))
            texts.append("glibc benchtests failed for %s:\n%s"
                         % (v, (r.stdout + r.stderr)[-2000:]))
            continue
        outs[v] = os.path.join(outdir, "glibc-bench-%s.json" % v)
        shutil.copy(f, outs[v])
    texts += ["%s -> %s: %s" % (variants[0], v, compare_glibc_bench(
        outs[variants[0]], outs[v], 5)) for v in variants[1:]
        if variants[0] in outs and v in outs]
    return "\n\n".join(texts), failed


def elf_target(path):
    """The ELF class and machine of PATH (bytes 4 and 18-19 of its header),
    or None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            h = f.read(20)
    except OSError:
        return None
    return (h[4], h[18:20]) if len(h) == 20 and h[:4] == b"\x7fELF" else None


def other_target(exe, root):
    """True if the program EXE is built for another target than the
    libc.so.6 of ROOT (a sysroot, or a bundle's lib directory), as this
    machine's programs are for ARCH=i686 on x86_64."""
    libc = glob.glob(os.path.join(root, "libc.so.6")) + \
        glob.glob(os.path.join(root, "lib*", "libc.so.6"))
    return bool(libc) and elf_target(libc[0]) != elf_target(os.path.realpath(exe))


def stress_ng(variants, builddir, seconds, required):
    """Run stress-ng --pthread under each sysroot.  Returns the report's
    text and what failed, one line each; stress-ng not installed, or built
    for another target than the sysroots (ARCH=i686 on x86_64), is a
    failure if REQUIRED."""
    exe = shutil.which("stress-ng")
    if not exe:
        return "stress-ng not installed", ["stress-ng: not installed"] if required else []
    if other_target(exe, variant_dir(builddir, variants[0], "root")):
        why = "this machine's stress-ng is built for another target than the sysroots"
        return "not run: " + why, ["stress-ng: " + why] if required else []
    lines, failed = [], []
    for v in variants:
        run = variant_dir(builddir, v, "run")
        r = sh(env_prefix(v) + [run, exe, "--pthread", str(4 * (os.cpu_count() or 1)),
                "--timeout", str(seconds), "--metrics-brief"])
        m = re.search(r"pthread\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)",
                      r.stdout + r.stderr)
        if r.returncode != 0 or not m:
            why = "exit %d%s" % (r.returncode, "" if m else ", no result")
            failed.append("stress-ng for %s: %s" % (v, why))
            tail = (r.stdout + r.stderr).strip().splitlines()[-1:]
            lines.append("%-8s failed (%s)%s" % (v, why, ": " + tail[0] if tail else ""))
        else:
            lines.append("%-8s bogo ops %s in %s s real: %s bogo ops/s (real time)"
                         % (v, m.group(1), m.group(2), m.group(5)))
    return "\n".join(lines), failed


# The real workloads: repetitions unless --reps says, seconds per run.
APPS_REPS, APPS_SECONDS = 3, 5


def run_apps(doc, a, manifest, required):
    """The real workloads (bench/apps.py) under each variant, into DOC
    ("apps": the runs; "apps_note": why they did not run); returns what
    failed.  Missing programs fail the run if REQUIRED (BENCH names apps),
    else they are a note."""
    miss = apps.missing()
    if miss:
        why = "not installed: " + ", ".join(miss)
    elif other_target(apps.MARIADBD,
                      os.path.join(a.bundle, "sysroots", sysroot(a.variants[0]), "lib")
                      if manifest else variant_dir(a.build, a.variants[0], "root")):
        why = "this machine's MariaDB is built for another target than the sysroots"
    else:
        why = None
    if why:
        doc["apps_note"] = "not run: " + why
        print("run.py: apps: %s" % doc["apps_note"], file=sys.stderr)
        return ["apps: " + why] if required else []
    variants = compared(a.variants)
    prefixes = {v: env_prefix(v) + (bundle_launcher(a.bundle, manifest, v) if manifest
                                    else [variant_dir(a.build, v, "run")])
                for v in variants}
    reps = a.reps or APPS_REPS
    print("run.py: apps: MariaDB under sysbench, %d repetitions" % reps, flush=True)
    t0 = time.time()
    try:
        doc["apps"], failed = apps.run_apps(variants, prefixes, reps, APPS_SECONDS,
                                            os.path.join(a.out, "apps-logs"))
    except Exception as e:  # keep what the other groups measured
        doc["apps"], failed = [], ["apps: %s: %s" % (type(e).__name__, e)]
    doc["apps_reps"], doc["apps_minutes"] = reps, (time.time() - t0) / 60
    return failed


def apps_report(doc, variants):
    runs = doc.get("apps") or []
    if not runs and not doc.get("apps_note"):
        return []
    out = ["## Real workloads: MariaDB under sysbench, http.server under ab", ""]
    if doc.get("apps_note"):
        return out + [doc["apps_note"], ""]
    libcs = sorted({r["server_libc"] for r in runs if r.get("server_libc")})
    out += ["Debian's MariaDB server (%s) and sysbench, both run through each "
            "variant's loader (the servers mapped %s), on a Unix socket; %d "
            "tables of %d rows; server options: %s.  Per repetition (%d, "
            "variants interleaved, each repetition starting with the next "
            "variant, %.0f minutes in all) each variant's server "
            "starts from a copy of one prepared data directory, warms up, "
            "runs each workload for %d s per client count and shuts down.  "
            "connect = every sysbench event connects, runs 4 point selects "
            "and disconnects, with thread_cache_size=0: a server thread "
            "created and ended per event.  tx/s = sysbench's events per "
            "second, median [min-max]; p95 / p99 = latency percentiles in ms "
            "from sysbench's histogram (medians); ratio and interval as "
            "above; retried = transactions sysbench retried after a deadlock "
            "(any other error stops it and fails the run).  %s = Debian's "
            "python3 running the standard library's ThreadingHTTPServer (a "
            "thread per connection; listen backlog 256) under the variant, "
            "loaded by ab -c CLIENTS -n %d without keep-alive (a connection, "
            "and a server thread, per request) for a %d-byte file; its tx/s "
            "are ab's requests/s, p95 / p99 ab's, in whole ms; any failed "
            "request fails the run.  %s cores: the 256-core "
            "case of the condvar report cannot be shown here."
            % (apps.MARIADBD, ", ".join(libcs) or "?", apps.TABLES, apps.TABLE_SIZE,
               " ".join(apps.SERVER_OPTS), doc.get("apps_reps", 0),
               doc.get("apps_minutes", 0), APPS_SECONDS, apps.HTTP, apps.HTTP_REQUESTS,
               apps.HTTP_FILE_BYTES, doc["machine"].get("cores")),
            ""]
    lines = []
    for case, n in sorted({(r["case"], r["threads"]) for r in runs},
                          key=lambda k: (apps.CASES.index(k[0]) if k[0] in apps.CASES
                                         else len(apps.CASES), k[0], k[1])):
        cfg = [r for r in runs if (r["case"], r["threads"]) == (case, n)]
        for v in variants:
            ok = [r for r in cfg if r["variant"] == v and "rate" in r]
            bad = len([r for r in cfg if r["variant"] == v and "error" in r])
            rates = [r["rate"] for r in ok]
            cell = "%s [%s-%s]" % (fmt(median(rates)), fmt(min(rates, default=None)),
                                   fmt(max(rates, default=None)))
            lines.append([case, str(n), v, cell + (" (%d failed)" % bad if bad else ""),
                          fmt(median([r["p95_ms"] for r in ok if r["p95_ms"] is not None]), 2),
                          fmt(median([r["p99_ms"] for r in ok if r["p99_ms"] is not None]), 2),
                          ratio_cell(paired_ratio(cfg, variants[0], v))
                          if v != variants[0] else "-",
                          str(sum(r["retried"] for r in ok))])
    return out + table(["workload", "clients", "variant", "tx/s", "p95 ms", "p99 ms",
                        "ratio to %s" % variants[0], "retried"], lines)


def derive(doc, variants, outdir):
    """The summary rows of DOC's results; sets DOC's lock model and plots,
    and writes the runs in glibc's benchtests format (DOC's benchout)."""
    main = compared(variants)
    rows = summarize([r for r in doc["results"] if r["variant"] in main], main)
    inst = instrumented(variants)
    if inst:
        # The instrumented variants' figures join the rows of the same
        # configurations, for the lock table and the model only.
        by_key = {config_key(r): r for r in rows}
        for lrow in summarize([r for r in doc["results"] if r["variant"] in inst], inst):
            if config_key(lrow) in by_key:
                by_key[config_key(lrow)]["variants"].update(lrow["variants"])
    attach_profiles(rows, doc.get("syscall_profile", []))
    doc["lock_model"] = lock_model(rows, variants)
    doc["benchout"] = write_benchout(doc["results"], main, outdir)
    doc["plots"] = plots(rows, main, outdir) + model_plot(
        doc["lock_model"], doc["machine"].get("cores"), outdir)
    return rows


def resumed(doc, outdir, variants, profiled):
    """For --resume: take into DOC the runs of the configurations that the
    partial OUTDIR/results.json of the same plan (mode, repetitions,
    seconds, variants) finished (with their profile run if PROFILED), and
    return those configurations; the runs of a configuration it did not
    finish are run again."""
    try:
        with open(os.path.join(outdir, "results.json")) as f:
            old = json.load(f)
    except (OSError, ValueError):
        return set()
    same = ("mode", "threads", "reps", "seconds", "timed_perf")
    if not old.get("partial") or any(old.get(k) != doc[k] for k in same) \
            or sorted(old.get("sysroots", {})) != sorted(variants):
        sys.exit("run.py: --resume: %s is not a stopped run of this plan "
                 "(mode, threads, reps, seconds, the version of the harness "
                 "and variants must match)"
                 % os.path.join(outdir, "results.json"))
    runs = collections.Counter(config_key(r) for r in old["results"])
    profiles = collections.Counter(config_key(r) for r in old.get("syscall_profile", []))
    done = {k for k, n in runs.items()
            if n == doc["reps"] * len(runs_in(variants, k[0], k[1]))
            and (not profiled
                 or profiles[k] == len(compared(runs_in(variants, k[0], k[1]))))}
    doc["date"] = old["date"]
    doc["results"] = [r for r in old["results"] if config_key(r) in done]
    doc["syscall_profile"] = [r for r in old.get("syscall_profile", []) if config_key(r) in done]
    print("==> resuming: %d configurations done" % len(done))
    return done


def save_results(doc, outdir, partial=False):
    """Write OUTDIR/results.json (through a temporary file: a run killed
    while writing leaves the previous one); PARTIAL marks a run still
    going, or stopped before its end."""
    doc["partial"] = partial
    tmp = os.path.join(outdir, "results.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, os.path.join(outdir, "results.json"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base")
    ap.add_argument("--build", help="build/<base>")
    ap.add_argument("--out")
    ap.add_argument("--counts-locks", action="store_true",
                    help="exit 0 if --bench with --threads runs what the "
                    "lock-counting variants count, 1 if not; run nothing")
    ap.add_argument("--bundle", help="run the bundle in this directory")
    ap.add_argument("--make-bundle", action="store_true",
                    help="write a bundle of VARIANTS into --out, run nothing")
    ap.add_argument("--bench", default="default")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--threads", type=thread_counts,
                    help="only these thread counts (as 2 or 1,2,500)")
    ap.add_argument("--in-env", default="", help="command prefix: run DIR CMD...")
    ap.add_argument("--resume", action="store_true",
                    help="keep the configurations that a stopped run of the same "
                    "plan in --out finished, and run the rest")
    ap.add_argument("--report-only", action="store_true",
                    help="render report.md and the plots again from results.json")
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args()
    if a.counts_locks:
        return 0 if counts_locks(a.bench, a.threads) else 1
    if not a.out:
        sys.exit("run.py: give --out")
    if a.variants and not compared(a.variants):
        sys.exit("run.py: %s count locks for the lock table; name them beside "
                 "the variants they count (e.g. stock patched %s)"
                 % (" ".join(a.variants), " ".join(a.variants)))
    manifest = None
    if a.bundle:
        with open(os.path.join(a.bundle, "manifest.json")) as f:
            manifest = json.load(f)
        a.base = manifest["base"]
        a.variants = a.variants or manifest["variants"]
        unknown = [v for v in a.variants if sysroot(v) not in manifest["sysroots"]]
        if unknown:
            sys.exit("run.py: not in this bundle: %s (it has: %s)"
                     % (" ".join(unknown), " ".join(manifest["variants"])))
    elif not (a.base and a.build and a.variants):
        sys.exit("run.py: give --base, --build and the variants (or --bundle DIR)")
    if a.make_bundle:
        make_bundle(a.variants, a.build, a.out, a.base)
        print("==> bundle in %s" % a.out)
        return 0
    if a.report_only:
        with open(os.path.join(a.out, "results.json")) as f:
            doc = json.load(f)
        rows = derive(doc, a.variants, a.out)
        report(doc, rows, a.variants, os.path.join(a.out, "report.md"))
        print("==> %s" % os.path.join(a.out, "report.md"))
        return 0
    quick = a.bench == "quick"
    if not counts_locks(a.bench, a.threads) and len(compared(a.variants)) < len(a.variants):
        print("run.py: BENCH=%s runs nothing that %s count: not run" % (
            a.bench, " ".join(instrumented(a.variants))))
        a.variants = compared(a.variants)
    reps = a.reps or (3 if quick else 5)
    seconds = a.seconds or (0.3 if quick else 0.5)
    if reps < 1:
        sys.exit("run.py: --reps must be at least 1")
    p = plan(a.bench, a.threads)
    cfgs = p.cfgs
    if manifest and not cfgs and not p.apps:
        # glibc's benchtests and stress-ng need the build trees.
        sys.exit("run.py: BENCH=%s runs nothing from a bundle" % a.bench)
    if "apps" in p.named and apps.missing():
        sys.exit("run.py: BENCH=apps needs %s (harness/tools.sh names their packages)"
                 % ", ".join(apps.missing()))
    os.makedirs(a.out, exist_ok=True)
    events, perf_note = perf_events()
    if manifest:
        bins = {(v, c): os.path.join(a.bundle, "bin", sysroot(v), c)
                for v in a.variants for c in cases()}
    else:
        bins = build(a.variants, a.build, a.out) if cfgs else {}
    doc = {"base": a.base, "mode": a.bench, "threads": a.threads, "reps": reps,
           "seconds": seconds, "timed_perf": False, "order": "rotated",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": machine(), "perf_events": events, "perf_note": perf_note,
           "sysroots": {}, "results": [], "syscall_profile": []}
    for v in a.variants:
        try:
            if manifest:
                doc["sysroots"][v] = manifest["sysroots"][sysroot(v)] + "; from a bundle"
            else:
                with open(os.path.join(variant_dir(a.build, v, "root"), "NPTL-SCALE")) as f:
                    doc["sysroots"][v] = "; ".join(f.read().strip().splitlines())
            if tunables(v):
                doc["sysroots"][v] += "; run with GLIBC_TUNABLES=" + tunables(v)
        except OSError:
            doc["sysroots"][v] = "?"
    # The timed runs run without perf: its counters are inherited by every
    # thread, and the kernel links each thread's copy to the process's
    # counter at clone and unlinks it at exit, under a mutex of that
    # counter, one for the whole process: a lock that perf adds to the
    # very path measured (500 creators on 2 cores: 15-20% fewer
    # create+joins per second, and in one run of 3 a convoy with 7
    # runnable tasks at 1/4 of the rate).  Their context switches come
    # from getrusage in the driver.  Tracepoints (system calls, TLB
    # flushes, IPIs) and software events are counted by one more run per
    # configuration and variant, not used for the rates.
    timed_events = []
    # Software events only beside tracepoints: alone, nothing reads them.
    syscall_events = [e for e in events if ":" in e]
    if syscall_events:
        syscall_events += [e for e in events if e in PERF_SW]
    if syscall_events and PERF_CONTROL in events:
        syscall_events.append(PERF_CONTROL)
    done_cfgs = resumed(doc, a.out, a.variants, bool(syscall_events)) \
        if a.resume else set()
    limits = {c.name: c.limit for c in CASES}
    periods = {c.name: c.seconds for c in CASES}
    total = sum(len(runs_in(a.variants, c[0], c[1])) for c in cfgs) * reps
    done = 0
    for group, case, n, param in cfgs:
        variants = runs_in(a.variants, group, case)
        if (group, case, n, param) in done_cfgs:
            done += reps * len(variants)
            continue
        measured = periods[case](n, seconds)
        for rep in range(reps + (1 if syscall_events else 0)):
            profile = rep == reps
            # The system calls per operation of the compared variants.
            for v in run_order(compared(variants) if profile else variants, rep):
                def once():
                    return run_one(
                        bins[(v, case)], n, param,
                        max(measured, PROFILE_SECONDS) if profile else measured,
                        syscall_events if profile else timed_events,
                        timeout=max(limits[case](n), int(measured * 20)),
                        env=env_prefix(v),
                        launcher=bundle_launcher(a.bundle, manifest, v)
                        if manifest else (),
                        trace=profile and group in EXIT_TRACE_GROUPS
                        and EXIT_TRACE in events,
                        tasks=group in THREAD_GROUPS)
                res = once()
                why = profile and partial_profile(res)
                if why:
                    # perf counted part of the period: once more (the
                    # report marks the row if that one is partial too).
                    res = dict(once(), perf_rerun=why)
                res.update({"group": group, "case": case, "threads": n,
                            "param": param, "variant": v, "rep": rep})
                (doc["syscall_profile"] if profile else doc["results"]).append(res)
                done += 0 if profile else 1
            if profile:
                continue
            last = sorted(doc["results"][-len(variants):],
                          key=lambda r: variants.index(r["variant"]))
            print("[%3d/%d] %-13s %-18s t=%-3d %s" % (
                done, total, case, param or "-", n,
                "  ".join("%s %s" % (r["variant"], fmt(r.get("rate")) if "rate" in r
                                     else r.get("error")) for r in last)),
                flush=True)
        # What has run so far, once per configuration, between runs, so
        # that a run stopped by a time limit still has its data
        # (--report-only renders it; the report says that it is partial;
        # --resume goes on from it, running again any configuration it
        # had not finished).
        save_results(doc, a.out, partial=True)
    # glibc's benchtests and stress-ng need the build trees: not in a bundle.
    # Where BENCH does not name stress-ng, a machine without it skips it.
    failed = []
    if p.glibc and not manifest:
        doc["glibc_bench_set"] = p.glibc
        doc["glibc_benchtests"], f = glibc_benchtests(
            compared(a.variants), a.build, a.out, a.in_env.split() if a.in_env else [],
            p.glibc)
        failed += f
    if p.stress_ng and not manifest:
        doc["stress_ng"], f = stress_ng(compared(a.variants), a.build, 2 if quick else 5,
                                        "stress-ng" in p.named)
        failed += f
    if p.apps:
        save_results(doc, a.out, partial=True)
        failed += run_apps(doc, a, manifest, "apps" in p.named)
    doc["failed"] = failed
    rows = derive(doc, a.variants, a.out)
    doc["summary"] = rows
    save_results(doc, a.out)
    report(doc, rows, a.variants, os.path.join(a.out, "report.md"))
    print("==> %s" % os.path.join(a.out, "report.md"))
    # A failed run is shown in the report; a configuration without any
    # successful run fails the benchmark, and so does a failure of glibc's
    # benchtests or of stress-ng.
    for r in doc["results"] + doc["syscall_profile"]:
        if "error" in r:
            print("run.py: %s %s %s t=%d rep %d failed: %s" % (
                r["variant"], r["case"], r["param"], r["threads"], r["rep"],
                r["error"]), file=sys.stderr)
    empty = [(row["case"], row["param"], row["threads"], v)
             for row in rows for v, st in row["variants"].items() if not st["n"]]
    if empty:
        print("run.py: no successful run for %s" % empty, file=sys.stderr)
    for f in failed:
        print("run.py: failed: %s (see %s)" % (f, os.path.join(a.out, "report.md")),
              file=sys.stderr)
    return 1 if empty or failed else 0


if __name__ == "__main__":
    sys.exit(main())
