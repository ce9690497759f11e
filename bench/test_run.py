#!/usr/bin/env python3
"""Self-test of run.py: what each BENCH selects (plan), how repetitions
become medians and ratios (summarize, compare_glibc_bench), and whole runs
on fake sysroots (a compiler that writes a program printing a fixed
result, a make that writes glibc's bench.out, a stress-ng that prints its
metrics line), so that no glibc is needed."""
import argparse
import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402

RUN_PY = os.path.join(HERE, "run.py")


def groups(cfgs):
    return sorted({c[0] for c in cfgs})


class PlanTest(unittest.TestCase):
    def test_default(self):
        p = run.plan("default")
        self.assertEqual(groups(p.cfgs), ["condvar", "create-join", "create-latency", "fork",
                                          "seed", "stack-advise", "syncpoint"])
        self.assertEqual(p.glibc, run.GLIBC_BENCH)
        self.assertTrue(p.stress_ng)
        self.assertEqual(p.named, [])
        creators = sorted(c[2] for c in p.cfgs if c[:2] == ("create-join", "create-join"))
        self.assertEqual(creators, sorted(set(run.CREATORS + [os.cpu_count() or 1])))

    def test_quick(self):
        p = run.plan("quick")
        self.assertEqual(groups(p.cfgs), ["condvar", "create-join", "create-latency", "fork",
                                          "seed", "syncpoint"])
        self.assertEqual(sorted(c[2] for c in p.cfgs if c[1] == "create-join"),
                         [1, 2, 8, 120])
        self.assertEqual(p.glibc, "")
        self.assertTrue(p.stress_ng)

    def test_full_has_the_default_runs(self):
        p = run.plan("full")
        self.assertEqual(p.cfgs, run.plan("default").cfgs)
        self.assertEqual(groups(p.cfgs), ["condvar", "create-join", "create-latency", "fork",
                                          "seed", "stack-advise", "syncpoint"])
        self.assertEqual(len([c for c in p.cfgs if c[0] == "stack-advise"]), 9)
        self.assertEqual(p.glibc, run.GLIBC_BENCH)
        self.assertTrue(p.stress_ng)

    def test_threads_narrow_the_plan(self):
        p = run.plan("create-join", "2,500")
        self.assertEqual(sorted({(c[1], c[2]) for c in p.cfgs}),
                         [("clone-floor", 2), ("clone-floor", 500),
                          ("create-detached", 2),
                          ("create-join", 2), ("create-join", 500)])
        # The suites that are not ours do not run.
        p = run.plan("default", "2")
        self.assertEqual((p.glibc, p.stress_ng, p.apps), ("", False, False))
        with self.assertRaises(SystemExit) as e:
            run.plan("create-latency", "2")
        self.assertIn("40, 120, 500", str(e.exception))
        with self.assertRaises(SystemExit) as e:
            run.plan("glibc", "2")
        self.assertIn("none", str(e.exception))
        self.assertEqual(run.thread_counts("1,2,500"), "1,2,500")
        for bad in ("1,,2", "abc", "0", ""):
            with self.assertRaises(argparse.ArgumentTypeError):
                run.thread_counts(bad)

    def test_glibc_alone(self):
        p = run.plan("glibc")
        self.assertEqual(p.cfgs, [])
        self.assertEqual(p.glibc, run.GLIBC_BENCH)
        self.assertFalse(p.stress_ng)

    def test_stress_ng_alone(self):
        p = run.plan("stress-ng")
        self.assertEqual(p.cfgs, [])
        self.assertEqual(p.glibc, "")
        self.assertTrue(p.stress_ng)
        self.assertEqual(p.named, ["stress-ng"])

    def test_group_and_glibc(self):
        p = run.plan("create-join,glibc")
        self.assertEqual(groups(p.cfgs), ["create-join"])
        self.assertEqual(sorted({c[1] for c in p.cfgs}),
                         ["clone-floor", "create-detached", "create-join"])
        self.assertEqual(p.glibc, run.GLIBC_BENCH)
        self.assertFalse(p.stress_ng)

    def test_condvar_runs_glibc_locks(self):
        p = run.plan("condvar")
        self.assertEqual(groups(p.cfgs), ["condvar"])
        self.assertEqual(p.glibc, "pthread-locks")
        self.assertEqual(run.plan("condvar,glibc").glibc, run.GLIBC_BENCH)

    def test_case_and_stress_ng(self):
        p = run.plan("clone-floor,stress-ng")
        self.assertEqual(sorted({(c[0], c[1]) for c in p.cfgs}),
                         [("create-join", "clone-floor")])
        self.assertEqual(p.glibc, "")
        self.assertTrue(p.stress_ng)

    def test_stack_advise_not_selected_by_its_case(self):
        self.assertNotIn("stack-advise", groups(run.plan("create-join").cfgs))
        p = run.plan("stack-advise")
        self.assertEqual(groups(p.cfgs), ["stack-advise"])
        self.assertEqual(sorted({c[3] for c in p.cfgs}),
                         ["frame=256", "touch=0", "touch=256"])

    def test_every_case_file_has_one_table_entry(self):
        # A case is its file plus its entries in CASES: neither without
        # the other.
        self.assertEqual(sorted(run.cases()), sorted({c.name for c in run.CASES}))

    def test_quick_is_a_subset_of_default_shapes(self):
        for c in run.CASES:
            self.assertTrue(c.runs, c.name)
            for n, p in c.runs + c.quick:
                self.assertGreater(n, 0, c.name)
                self.assertNotIn("{", p, c.name)

    def test_pc_params_split_the_threads(self):
        p = run.plan("cond-queue")
        self.assertIn(("condvar", "cond-queue", 32, "16:16:signal"), p.cfgs)
        self.assertIn(("condvar", "cond-queue", 128, "64:64:broadcast"), p.cfgs)

    def test_unknown_name_exits(self):
        with self.assertRaises(SystemExit) as e:
            run.plan("create-join,nosuch")
        self.assertIn("no benchmark named 'nosuch'", str(e.exception))


def result(variant, rep, rate, **kw):
    r = {"group": "create-join", "case": "create-join", "threads": 4, "param": "",
         "variant": variant, "rep": rep, "rate": rate, "ops": 1000,
         "ops_total": 1000, "process_cpu_pct": 50.0, "machine_busy_pct": 60.0,
         "rss_kib": 2048, "thread_ops_min": 1, "thread_ops_max": 2, "perf": {}}
    r.update(kw)
    return r


class SummaryTest(unittest.TestCase):
    def test_median(self):
        self.assertEqual(run.median([3, 1, 2]), 2)
        self.assertEqual(run.median([4, 1, 3, 2]), 2.5)
        self.assertIsNone(run.median([]))

    def test_medians_and_pairwise_ratios(self):
        results = [
            result("stock", 0, 100.0, process_cpu_pct=10.0, rss_kib=1024),
            result("patched", 0, 150.0, process_cpu_pct=20.0),
            result("stock", 1, 300.0, process_cpu_pct=30.0, rss_kib=3072),
            result("patched", 1, 330.0, process_cpu_pct=40.0),
            result("stock", 2, 200.0, process_cpu_pct=20.0, rss_kib=2048,
                   perf={"context-switches": 500}),
            result("patched", 2, 400.0, process_cpu_pct=30.0, ctxsw_total=3000,
                   ops_total=1000, perf={"context-switches": 1}),
            # A repetition that failed for patched: in no ratio.
            result("stock", 3, 1000.0, process_cpu_pct=40.0, rss_kib=-1),
            {k: v for k, v in result("patched", 3, 0).items() if k != "rate"}
            | {"error": "exit 1: boom"},
        ]
        rows = run.summarize(results, ["stock", "patched"])
        self.assertEqual(len(rows), 1)
        st, pa = rows[0]["variants"]["stock"], rows[0]["variants"]["patched"]
        self.assertEqual((st["median"], st["min"], st["max"], st["n"]),
                         (250.0, 100.0, 1000.0, 4))
        self.assertEqual((pa["median"], pa["min"], pa["max"], pa["n"]),
                         (330.0, 150.0, 400.0, 3))
        self.assertEqual(st["cpu_pct"], 25.0)
        self.assertEqual(pa["cpu_pct"], 30.0)
        self.assertEqual(st["rss_mib"], 2.0)  # rss_kib -1: not measured
        self.assertEqual(st["busy_pct"], 60.0)
        self.assertEqual(st["fairness"], 0.5)
        # Only the run with perf's count (older results) ...
        self.assertEqual(st["ctxsw_per_op"], 0.5)
        # ... and the driver's, which wins over perf's.
        self.assertEqual(pa["ctxsw_per_op"], 3.0)
        self.assertEqual(st["errors"], [])
        self.assertEqual(pa["errors"], ["exit 1: boom"])
        # Ratios per repetition: 1.5, 1.1, 2.0.
        self.assertAlmostEqual(pa["ratio"], 1.5)
        self.assertEqual(pa["ratio_n"], 3)
        self.assertEqual(pa["ratio_ci"], list(run.bootstrap([1.5, 1.1, 2.0])))
        self.assertFalse(pa["ratio_noise"])
        self.assertNotIn("ratio", st)

    def test_operations_per_cpu_second(self):
        # Equal rates; patched's process takes 0.8 and 0.5 of stock's CPU
        # and the machine 0.9 and 1.0 of its busy time.
        # (rep, rate, stock's CPU % and busy %, patched's); the last
        # stock run has no CPU time: in no ratio.
        runs = [(0, 100.0, 50.0, 60.0, 40.0, 54.0), (1, 300.0, 80.0, 90.0, 40.0, 90.0),
                (2, 300.0, 0.0, 0.0, 40.0, 90.0)]
        results = [result(v, rep, rate, ncpu=2, process_cpu_pct=cpu,
                          machine_busy_pct=busy)
                   for rep, rate, *pcts in runs
                   for v, cpu, busy in (("stock", *pcts[:2]), ("patched", *pcts[2:]))]
        self.assertEqual(run.ops_per_cpu_s(results[0]), 100.0)
        self.assertIsNone(run.ops_per_cpu_s(results[4]))
        pa = run.summarize(results, ["stock", "patched"])[0]["variants"]["patched"]
        self.assertEqual(pa["ratio"], 1.0)
        self.assertEqual(pa["per_cpu"]["ratio_n"], 2)
        self.assertAlmostEqual(pa["per_cpu"]["ratio"], (1.25 + 2.0) / 2)
        self.assertAlmostEqual(pa["per_busy"]["ratio"], (60 / 54 + 1.0) / 2)
        rows = run.summarize(results, ["stock", "patched"])
        text = "\n".join(run.cost_report(rows, ["stock", "patched"]))
        self.assertIn("| create-join | - | 4 | 1.625", text)
        self.assertIn("patched/stock per process CPU s", text)
        # A share above 100 (a driver before 2026-12-07) or of -1 (no
        # /proc/stat): no value.
        self.assertIsNone(run.ops_per_cpu_s(result("stock", 0, 1.0, ncpu=2,
                                                    process_cpu_pct=130.0)))
        self.assertIsNone(run.ops_per_cpu_s(result("stock", 0, 1.0, ncpu=2,
                                                    machine_busy_pct=-1.0),
                                             "machine_busy_pct"))
        # fork: the machine's column only (the process's leaves out the
        # children); no value at all: no table.
        forks = [dict(r, group="fork", case="fork-cached") for r in results]
        fk = run.summarize(forks, ["stock", "patched"])[0]["variants"]["patched"]
        self.assertEqual((fk["per_cpu"]["ratio_n"], fk["per_busy"]["ratio_n"]), (0, 2))
        none = [dict(r, process_cpu_pct=0.0, machine_busy_pct=-1.0) for r in results]
        self.assertEqual(run.cost_report(
            run.summarize(none, ["stock", "patched"]), ["stock", "patched"]), [])

    def test_rows_per_configuration_in_order(self):
        results = [result(v, 0, 10.0 * n, threads=n) for n in (8, 1, 2)
                   for v in ("stock", "patched")]
        rows = run.summarize(results, ["stock", "patched"])
        self.assertEqual([r["threads"] for r in rows], [1, 2, 8])
        self.assertEqual([r["variants"]["stock"]["median"] for r in rows],
                         [10.0, 20.0, 80.0])
        self.assertEqual([r["variants"]["patched"]["ratio"] for r in rows],
                         [1.0, 1.0, 1.0])

    def test_no_successful_run(self):
        results = [result("stock", 0, 100.0),
                   {k: v for k, v in result("patched", 0, 0).items() if k != "rate"}
                   | {"error": "timed out after 60s"}]
        pa = run.summarize(results, ["stock", "patched"])[0]["variants"]["patched"]
        self.assertEqual((pa["median"], pa["n"], pa["ratio"]), (None, 0, None))
        self.assertEqual((pa["ratio_ci"], pa["ratio_noise"]), (None, None))

    def test_compare_glibc_bench(self):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, means in (("a", (100.0, 50.0)), ("b", (110.0, 49.0))):
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w") as f:
                    json.dump({"functions": {
                        "thread_create": {"": {"mean": means[0]}},
                        "pthread_once": {"": {"mean": means[1]}}}}, f)
            text = run.compare_glibc_bench(paths[0], paths[1], 5)
        self.assertIn("1 of 2 flagged", text)
        self.assertRegex(text, r"--- thread_create .* 100\.0 +110\.0 +\+10\.0%")
        self.assertRegex(text, r"    pthread_once .* 50\.0 +49\.0 +-2\.0%")


class InstrumentTest(unittest.TestCase):
    """The parsing and summaries of issue 27's instruments: system calls
    by name, exit delays, tasks and failed creates, create latency."""

    SCRIPT = """\
 4242/4243 100.000100: sched:sched_process_exit: comm=cj pid=4243 prio=120 group_dead=false
 4242/4244 100.000200: sched:sched_process_exit: comm=cj pid=4244 prio=120 group_dead=false
 9999/9998 100.000250: sched:sched_process_exit: comm=other pid=9998 prio=120 group_dead=false
   -1/-1   100.000400: sched:sched_switch: prev_comm=cj prev_pid=4243 prev_prio=120 prev_state=X ==> next_comm=cj next_pid=4242 next_prio=120
   -1/-1   100.001200: sched:sched_switch: prev_comm=cj prev_pid=4244 prev_prio=120 prev_state=X ==> next_comm=cj next_pid=4242 next_prio=120
   -1/-1   100.001300: sched:sched_switch: prev_comm=o prev_pid=9998 prev_prio=120 prev_state=X ==> next_comm=o next_pid=1 next_prio=120
   16/16   100.020100: sched:sched_process_free: comm=cj pid=4243 prio=120
   16/16   100.030200: sched:sched_process_free: comm=cj pid=4244 prio=120
"""

    def test_exit_delays(self):
        d = run.exit_delays(self.SCRIPT, 4242)
        self.assertEqual(d["exits"], 2)  # not the other process's thread
        self.assertEqual(d["released"], {"n": 2, "p50": 1000000, "p99": 1000000,
                                         "max": 1000000})
        self.assertEqual(d["freed"]["n"], 2)
        self.assertEqual(d["freed"]["max"], 30000000)
        self.assertEqual(d["freed"]["p50"], 30000000)
        self.assertEqual(run.exit_delays("", 1),
                         {"exits": 0, "released": None, "freed": None})

    def test_lockstat_lines(self):
        # libc's line (2 ticks per ns) and ld.so's, which counts no
        # default_attr; a line from before default_attr was counted.
        err = ("noise\n"
               "lockstat dso=libc ticks=2000 ns=1000 stack_list=1,0,2,4 "
               "load_tls=0,0,0,0 default_attr=5,2,10,20 shards=3,0,0,6\n"
               "lockstat dso=ld.so ticks=9 ns=9 stack_list=0,0,0,0 "
               "load_tls=7,1,4,8 default_attr=0,0,0,0 shards=0,0,0,0\n")
        st = run.parse_lockstat(err)
        self.assertEqual(st["default_attr"], {"acq": 5, "contended": 2,
                                              "wait_ns": 5.0, "held_ns": 10.0})
        self.assertEqual(st["load_tls"]["acq"], 7)
        self.assertEqual(st["stack_list"]["held_ns"], 2.0)
        self.assertIn("default_attr", run.GLOBAL_LOCKS)
        old = run.parse_lockstat("lockstat dso=libc ticks=1 ns=1 stack_list=1,0,0,0 "
                                 "load_tls=2,0,0,0 shards=0,0,0,0\n")
        self.assertNotIn("default_attr", old)
        self.assertEqual(old["load_tls"]["acq"], 2)
        self.assertIsNone(run.parse_lockstat("no lines\n"))

    def test_run_order_pairs_the_compared_variants(self):
        vs = ["stock", "patched", "stock-lockstat", "patched-lockstat"]
        self.assertEqual(run.run_order(vs, 0), vs)
        self.assertEqual(run.run_order(vs, 1), ["patched", "stock"] + vs[2:])

    def test_counts_locks(self):
        # Whether make bench needs the lock-counting builds.
        self.assertTrue(run.counts_locks("default"))
        self.assertTrue(run.counts_locks("seed"))
        self.assertTrue(run.counts_locks("condvar,create-join"))
        self.assertFalse(run.counts_locks("condvar"))
        self.assertFalse(run.counts_locks("stack-advise"))
        self.assertFalse(run.counts_locks("default", "32"))
        self.assertTrue(run.counts_locks("default", "1,32"))
        self.assertFalse(run.counts_locks("quick"))

    def test_resume_counts_the_variants_each_case_runs(self):
        """--resume: a configuration is done when every variant that runs
        it has run; the instrumented ones run create+join, not the floor."""
        variants = ["stock", "patched", "stock-lockstat"]
        floor = dict(case="clone-floor")
        results = ([result(v, 0, 10.0) for v in variants]
                   + [result(v, 0, 10.0, **floor) for v in variants[:2]]
                   + [result(v, 0, 10.0, threads=8) for v in variants[:2]])
        profiles = [result(v, 1, 10.0, **kw) for v in variants[:2]
                    for kw in ({}, floor, {"threads": 8})]
        keys = ("mode", "threads", "reps", "seconds", "timed_perf")
        doc = {"mode": "create-join", "threads": None, "reps": 1, "seconds": 0.5,
               "timed_perf": False, "sysroots": {v: "" for v in variants}}
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "results.json"), "w") as f:
                json.dump(dict(doc, partial=True, date="then", results=results,
                               syscall_profile=profiles), f)
            new = {k: doc[k] for k in keys}
            done = run.resumed(new, out, variants, True)
        self.assertEqual(done, {("create-join", "create-join", 4, ""),
                                ("create-join", "clone-floor", 4, "")})
        self.assertEqual(len(new["results"]), 5)

    def test_lockstat_summary_of_older_results(self):
        # A result stored before default_attr was counted (read back by
        # --resume) beside one that counts it.
        zero = {"acq": 0, "contended": 0, "wait_ns": 0, "held_ns": 0}
        old = {"stack_list": {"acq": 4, "contended": 0, "wait_ns": 0, "held_ns": 8},
               "load_tls": zero, "shards": zero}
        new = dict(old, default_attr={"acq": 2, "contended": 0, "wait_ns": 0, "held_ns": 4})
        runs = [result("stock-lockstat", i, 10.0, ops_total=2, lockstat=st)
                for i, st in enumerate((old, new, new))]
        st = run.summarize(runs, ["stock-lockstat"])[0]["variants"]["stock-lockstat"]["lockstat"]
        # The median of the runs that counted it, not of zeros put in.
        self.assertEqual(st["default_attr"]["acq"], 1.0)
        self.assertEqual(st["stack_list"]["acq"], 2.0)
        # Runs that all lack it: no figure, shown as "-".
        st = run.summarize(runs[:1], ["stock-lockstat"])[0]["variants"]["stock-lockstat"]["lockstat"]
        self.assertNotIn("default_attr", st)

    def test_quantiles_nearest_rank(self):
        q = run.quantiles(list(range(1, 101)))
        self.assertEqual((q["n"], q["p50"], q["p99"], q["max"]), (100, 51, 100, 100))
        self.assertIsNone(run.quantiles([]))

    def test_profile_summary(self):
        perf = {"syscalls:sys_enter_clone3": 1000, "syscalls:sys_enter_futex": 1500,
                "syscalls:sys_enter_madvise": 5, "syscalls:sys_enter_exit": 1000,
                run.SYSCALL_TOTAL: 3600, "tlb:tlb_flush": 540,
                run.IPIS[0]: 10, run.IPIS[1]: 20, "page-faults": 52000}
        p = run.profile_summary({"perf": perf, "ops": 500, "ops_total": 1000,
                                 "exit_delays": {"exits": 3}})
        # Per operation of the whole process (ops_total); madvise at 0.005
        # is below SYSCALL_MIN, and is part of "other" no more.
        self.assertEqual(sorted(p["syscalls"]), ["clone3", "exit", "futex", "other"])
        # Every count stays for differences: madvise 0.005 against a floor
        # of 0 is below SYSCALL_MIN, not +0.005 hidden in a cut list.
        self.assertAlmostEqual(p["syscalls_all"]["madvise"], 0.005)
        self.assertEqual(len(p["syscalls_all"]), len(run.SYSCALLS) + 1)
        for call, x in (("clone3", 1.0), ("futex", 1.5), ("exit", 1.0), ("other", 0.095)):
            self.assertAlmostEqual(p["syscalls"][call], x)
        self.assertAlmostEqual(p["syscalls_total"], 3.6)
        self.assertAlmostEqual(p["tlb_flush"], 0.54)
        self.assertAlmostEqual(p["ipi"], 0.03)
        self.assertAlmostEqual(p["page_faults"], 52.0)
        self.assertEqual(p["exit_delays"], {"exits": 3})
        self.assertEqual(p["window"], "process")
        self.assertEqual(run.profile_summary({"perf": {}, "ops": 1}), {})
        # Counted over the measured period alone: per operation of that
        # period (ops), not of the process.
        p = run.profile_summary({"perf": perf, "ops": 500, "ops_total": 1000,
                                 "perf_window": "measure"})
        self.assertAlmostEqual(p["syscalls"]["clone3"], 2.0)
        self.assertEqual(p["window"], "measure")
        # Between the period's operations and those around perf's enable
        # and disable: their midpoint.
        p = run.profile_summary({"perf": perf, "ops": 500, "ops_total": 1000,
                                 "perf_window": "measure", "perf_ops": [500, 600]})
        self.assertAlmostEqual(p["syscalls"]["clone3"], 1000 / 550)

    def test_partial_profile_is_marked(self):
        def prof(variant, unit, clones=1000, ms=None, case="create-join",
                 window="measure", **kw):
            perf = {run.SYSCALL_TOTAL: 9000, "syscalls:sys_enter_clone3": clones}
            if ms is not None:
                perf["task-clock"] = ms
            return result(variant, 0, 1000.0, **{
                "case": case, "unit": unit, "ncpu": 2, "process_cpu_pct": 80.0,
                "seconds": 1.0, "perf": perf, "perf_window": window, **kw})
        # One clone per operation: 0.95 clones per operation is a full
        # count, 0.85 is not (whatever the task-clock).
        self.assertIsNone(run.profile_summary(
            prof("stock", "create+join", 950, 100.0))["perf_partial"])
        self.assertEqual(run.profile_summary(
            prof("stock", "create+join", 850, 1300.0))["perf_partial"],
            "0.85 clones counted per operation")
        # Elsewhere, perf's task-clock against the driver's 1,600 ms of CPU.
        self.assertIsNone(run.profile_summary(
            prof("stock", "wait", 0, 880.0))["perf_partial"])
        self.assertEqual(run.profile_summary(
            prof("stock", "wait", 0, 720.0))["perf_partial"],
            "perf's task-clock 45% of the process's CPU time")
        # No task-clock, a CPU share above 100 (an older driver), or perf
        # over the whole process: nothing to tell.
        self.assertIsNone(run.profile_summary(prof("stock", "wait", 0))["perf_partial"])
        self.assertIsNone(run.profile_summary(
            prof("stock", "wait", 0, 100.0, process_cpu_pct=300.0))["perf_partial"])
        self.assertNotIn("perf_partial", run.profile_summary(
            prof("stock", "wait", 0, 100.0, window="process")))
        # What decides whether main runs a profile run again.
        self.assertIsNone(run.partial_profile(
            prof("stock", "create+join", 100, window="process")))
        self.assertIsNone(run.partial_profile(result("stock", 0, 1.0, perf={})))
        self.assertTrue(run.partial_profile(prof("stock", "create+join", 100)))
        # In the table: the row, and the rows that subtract a partial floor.
        runs = [prof("stock", "create+join"), prof("patched", "create+join", 100),
                prof("stock", "clone+wait", case="clone-floor"),
                prof("patched", "clone+wait", 100, case="clone-floor")]
        rows = run.summarize(runs, ["stock", "patched"])
        run.attach_profiles(rows, runs)
        lines = [l for l in run.syscall_report(rows, ["stock", "patched"])
                 if l.startswith(("| create-join", "| clone-floor"))]
        self.assertEqual(len(lines), 4)
        join = [l for l in lines if l.startswith("| create-join")]
        self.assertNotIn("partial", join[0])
        self.assertIn("| 9.00 | none |", join[0])
        self.assertIn("(**partial**: 0.10 clones counted per operation)", join[1])
        self.assertIn("| - (the floor's count is partial) |", join[1])

    def test_floor_diff(self):
        self.assertEqual(run.floor_diff({"clone3": 1.0, "madvise": 1.0, "futex": 1.2},
                                        {"clone": 1.0, "futex": 1.0}),
                         "clone -1.00, clone3 +1.00, madvise +1.00, futex +0.20")
        self.assertEqual(run.syscall_cell({"futex": 1.5, "exit": 1.0, "clone3": 1.0}),
                         "futex 1.50, clone3 1.00, exit 1.00")
        self.assertEqual(run.floor_diff({"futex": 1.0}, {"futex": 1.005}), "none")
        # From the uncut counts: 0.015 against 0.008 is +0.007, not shown.
        self.assertEqual(run.floor_diff({"mmap": 0.015}, {"mmap": 0.008}), "none")

    def test_task_summary(self):
        runs = [result("stock", i, 10.0, tasks_peak=peak, tasks_live=1001,
                       startup_s=st, startup_create_max_ns=mx,
                       create_failed=failed)
                for i, (peak, st, mx, failed) in enumerate(
                    ((21525, 14.0, 2e9, {"EAGAIN": 3}), (900, 63.0, 21e9, {}),
                     (28895, 20.0, 1e9, {"EAGAIN": 2})))]
        s = run.task_summary(runs)
        self.assertEqual(s["tasks_peak"], 21525)
        self.assertEqual(s["unreleased_peak"], 20524)  # 900 - 1001 counts as 0
        self.assertEqual(s["create_failed"], {"EAGAIN": 5})
        self.assertEqual(s["runs_with_failed_creates"], 2)
        self.assertEqual((s["startup_s"], s["startup_s_max"]), (20.0, 63.0))
        self.assertEqual(s["startup_create_max_ns"], 21e9)
        self.assertNotIn("create_latency", s)
        self.assertEqual(run.task_summary([result("stock", 0, 1.0)]), {})

    def test_task_monitor_reads_the_benchmark_below_its_wrappers(self):
        # sh forks (the command is not its last), as perf does: the
        # monitor follows the chain down to the process with 41 threads.
        prog = ("import threading, time; e = threading.Event(); "
                "ts = [threading.Thread(target=e.wait) for _ in range(40)]; "
                "[t.start() for t in ts]; time.sleep(0.3); e.set(); "
                "[t.join() for t in ts]")
        mon = {}
        rc, _, _ = run.run_cmd(["sh", "-c", "%s -c '%s'; true" % (sys.executable, prog)],
                               30, mon, sys.executable)
        self.assertEqual(rc, 0)
        self.assertEqual(mon["peak"], 41)
        self.assertIn(mon["priority"], ("fifo", "normal"))
        s = run.task_summary([result("stock", 0, 1.0, tasks_peak=41, tasks_live=41,
                                     tasks_sampler=mon["priority"], startup_s=0.1,
                                     startup_create_max_ns=1, create_failed={})])
        self.assertEqual(s["samplers"], [mon["priority"]])
        # A process that is not the benchmark is not read: the peak stays 0.
        mon = {}
        run.run_cmd([sys.executable, "-c", prog], 30, mon, "/nonexistent/bench")
        self.assertEqual(mon["peak"], 0)

    def test_latency_summary_and_report(self):
        runs = [result("stock", i, 10.0, case="create-latency", param="empty",
                       group="create-latency", threads=500,
                       tasks_peak=1001, tasks_live=1001, startup_s=1.0,
                       startup_create_max_ns=5e6, create_failed={},
                       create_latency={"n": 100, "p50_ns": p50, "p99_ns": 10 * p50,
                                       "p999_ns": 20 * p50, "max_ns": mx})
                for i, (p50, mx) in enumerate(((6400, 5e7), (7000, 9e8), (5000, 1e8)))]
        rows = run.summarize(runs, ["stock"])
        lat = rows[0]["variants"]["stock"]["create_latency"]
        self.assertEqual((lat["p50_ns"], lat["p99_ns"], lat["max_ns"]), (6400, 64000, 9e8))
        text = "\n".join(run.latency_report(rows, ["stock"]))
        self.assertRegex(text, r"\| empty \| 500 \| stock \| 100 \| 6\.4 \| 64\.0 \| 128\.0 \| 900\.0 \|")

    def test_timeout_names_the_phase(self):
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "bench")
            with open(exe, "w") as f:
                f.write("#!/bin/sh\necho bench-phase: startup >&2\n"
                        "echo bench-phase: warmup >&2\nexec sleep 30\n")
            os.chmod(exe, 0o755)
            r = run.run_one(exe, 1, "", 0.1, [], timeout=1)
        self.assertEqual(r["timeout"], "warmup")
        self.assertIn("timed out after 1s in phase warmup", r["error"])
        self.assertEqual(run.last_phase(""), "before startup")

    def test_every_case_has_a_limit(self):
        for c in run.CASES:
            self.assertGreaterEqual(c.limit(500), 60, c.name)
        self.assertGreater(run.CHURN_LIMIT(500), run.CHURN_LIMIT(40))


# A case whose thread I counts its first operation I x 60 ms after the
# start, then one per millisecond.
LATE_CASE = r"""#include "bench.h"
static void
run (struct bench_thread *self)
{
  usleep (self->id * 60000);
  while (!bench_stopped ())
    {
      bench_count (self);
      usleep (1000);
    }
}
const struct bench_case bench_case = { "late", "op", NULL, run, NULL,
                                       .ramp_up = RAMP };
"""


# Threads that never block: more of them than CPUs are preempted.
SPIN_CASE = r"""#include "bench.h"
static void
run (struct bench_thread *self)
{
  while (!bench_stopped ())
    {
      for (volatile int i = 0; i < 1000; i++)
        ;
      bench_count (self);
    }
}
const struct bench_case bench_case = { "spin", "op", NULL, run, NULL };
"""


class DriverTest(unittest.TestCase):
    """The driver itself, built with the machine's compiler."""

    def build_case(self, d, source, ramp=0):
        """The driver with the case SOURCE, built in directory D: its path."""
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            self.skipTest("no C compiler")
        src, exe = os.path.join(d, "case.c"), os.path.join(d, "case")
        with open(src, "w") as f:
            f.write(source)
        subprocess.run([cc, "-O2", "-Wall", "-Werror", "-pthread", "-I", HERE,
                        "-DRAMP=%d" % ramp, "-o", exe,
                        os.path.join(HERE, "driver.c"), src], check=True)
        return exe

    def build_late(self, d, ramp):
        """The driver with LATE_CASE, built in directory D: its path."""
        return self.build_case(d, LATE_CASE, ramp)

    def run_late(self, ramp):
        with tempfile.TemporaryDirectory() as d:
            exe = self.build_late(d, ramp)
            out = subprocess.run([exe, "-t", "4", "-w", "0", "-d", "0.1"],
                                 check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def test_create_detached(self):
        with tempfile.TemporaryDirectory() as d:
            # The case's own "../bench.h" is found beside it.
            exe = self.build_case(d, '#include "cases/create-detached.c"\n')
            for param in ([], ["-p", "stack=292"]):
                out = subprocess.run([exe, "-t", "2", "-w", "0", "-d", "0.05"] + param,
                                     check=True, capture_output=True, text=True).stdout
                r = json.loads(out)
                self.assertGreater(r["thread_ops_min"], 0)
                self.assertEqual(r["create_failed"], {})
            for bad in ("stack=1", "stack=292k", "touch=1"):
                p = subprocess.run([exe, "-t", "1", "-d", "0.05", "-p", bad],
                                   capture_output=True, text=True)
                self.assertNotEqual(p.returncode, 0, bad)
                self.assertIn("bad parameter", p.stderr)

    def test_ramp_waits_for_every_thread(self):
        r = self.run_late(1)
        # The last thread counts its first operation 180 ms after the start.
        self.assertGreaterEqual(r["ramp_s"], 0.17)
        self.assertLess(r["ramp_s"], 5)
        self.assertIs(r["ramped"], True)
        # Every thread counted in the measured period.
        self.assertGreater(r["thread_ops_min"], 10)

    def test_perf_counts_the_measured_period_alone(self):
        if not shutil.which("perf") or not run.perf_control_works():
            self.skipTest("no perf stat --control here")
        with tempfile.TemporaryDirectory() as d:
            exe = self.build_late(d, 1)
            # Each operation is one usleep: clock_nanosleep counts them.
            ev = "syscalls:sys_enter_clock_nanosleep"
            whole = run.run_one(exe, 4, "", 0.2, [ev], timeout=30)
            measured = run.run_one(exe, 4, "", 0.2, [ev, run.PERF_CONTROL], timeout=30)
        self.assertNotIn("perf_window", whole)
        self.assertEqual(measured["perf_window"], "measure")
        inner, outer = measured["perf_ops"]
        self.assertEqual(inner, measured["ops"])
        self.assertGreaterEqual(outer, inner)
        # The whole process: the ramp's and warm-up's sleeps too.
        self.assertGreater(whole["perf"][ev], whole["ops"] * 1.3)
        # The measured period: one sleep per operation, give or take the
        # driver's own sampling sleeps and the threads' sleeps in progress
        # at its ends.
        self.assertAlmostEqual(measured["perf"][ev] / run.per_op(measured), 1.0, delta=0.1)

    def test_preemptions_and_runnable_tasks(self):
        n = 2 * len(os.sched_getaffinity(0)) + 1
        with tempfile.TemporaryDirectory() as d:
            exe = self.build_case(d, SPIN_CASE)
            out = subprocess.run([exe, "-t", str(n), "-w", "0", "-d", "0.5",
                                  "-i", "0.05"],
                                 check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        # More spinning threads than CPUs: the scheduler preempts them at
        # the end of their slices (a few ms), and at every sample they
        # are all runnable, machine-wide.
        self.assertGreater(r["preemptions"], 10)
        # (A CPU quota can throttle some: half of them, at least.)
        self.assertGreaterEqual(r["runnable_mean"], n / 2)
        # The whole process's switches, the measured period's preemptions
        # among them.
        self.assertGreaterEqual(r["ctxsw_total"], r["preemptions"])

    def test_latency_period_and_scheduler_columns(self):
        periods = {c.name: c.seconds for c in run.CASES}
        self.assertEqual(periods["create-latency"](500, 0.5), 5.0)
        self.assertEqual(periods["create-latency"](40, 0.5), 0.5)
        self.assertEqual(periods["create-join"](500, 0.5), 0.5)
        self.assertEqual(periods["seed-work"](120, 0.5), 2.4)
        self.assertEqual(periods["seed-work"](500, 0.5), 10.0)
        runs = [result("stock", i, 10.0, case="create-latency", threads=500,
                       param="empty", ops=ops, seconds=5.0, tasks_peak=1001,
                       tasks_live=1001, startup_s=0.1, startup_create_max_ns=1,
                       create_failed={}, preemptions=pre, runnable_mean=rq,
                       create_latency={"n": ops, "p50_ns": 1000, "p99_ns": 2000,
                                       "p999_ns": 3000, "max_ns": 4000})
                for i, (ops, pre, rq) in enumerate(((1000, 100, 400.0),
                                                     (2000, 100, 300.0),
                                                     (1000, 300, 500.0)))]
        lat = run.task_summary(runs)["create_latency"]
        self.assertEqual((lat["preempted_per_op"], lat["runnable_mean"], lat["seconds"]),
                         (0.1, 400.0, 5.0))
        row = {"param": "empty", "threads": 500,
               "variants": {"stock": run.task_summary(runs)}}
        text = "\n".join(run.latency_report([row], ["stock"]))
        self.assertIn("| preempted per op | runnable |", text)
        self.assertIn("| 5.0 | 0.100 | 400.0 |", text)

    def test_no_ramp_unless_asked(self):
        r = self.run_late(0)
        self.assertNotIn("ramp_s", r)
        # Measured from 0: the last thread started after the 100 ms.
        self.assertEqual(r["thread_ops_min"], 0)

    def test_ramp_in_summary_and_report(self):
        runs = [result("stock", i, 10.0, threads=500, tasks_peak=1001, tasks_live=1001,
                       startup_s=0.1, startup_create_max_ns=1, create_failed={},
                       ramp_s=rs, ramped=ok, ramp_limit_s=30)
                for i, (rs, ok) in enumerate(((0.8, True), (30.0, False), (1.2, True)))]
        s = run.task_summary(runs)
        self.assertEqual((s["ramp_s"], s["ramp_s_max"], s["runs_not_ramped"]),
                         (1.2, 30.0, 1))
        self.assertEqual(run.ramp_cell(s),
                         "1.20 [30.00] (1 runs: not every thread by 30 s)")
        self.assertEqual(run.ramp_cell({}), "-")
        self.assertIn("create-join begins when every thread", run.ramp_note(runs))
        # create-join measures BENCH_SECONDS at every thread count.
        self.assertEqual(run.longer_note({"results": runs, "seconds": 0.5}), "")
        doc = {"results": runs + [result("stock", 0, 1.0, case="seed-work"),
                                  result("stock", 0, 1.0, case="create-latency")],
               "seconds": 0.5}
        self.assertIn("for seed-work, create-latency:", run.longer_note(doc))
        self.assertEqual(run.ramp_note([result("stock", 0, 1.0)]), "")


class BootstrapTest(unittest.TestCase):
    def test_equal_ratios_give_a_degenerate_interval(self):
        self.assertEqual(run.bootstrap([1.25] * 5), (1.25, 1.25))

    def test_separated_samples_exclude_one(self):
        lo, hi = run.bootstrap([1.48, 1.5, 1.52, 1.49, 1.51, 1.5, 1.53, 1.47])
        self.assertTrue(1.0 < lo <= 1.5 <= hi, (lo, hi))
        lo, hi = run.bootstrap([0.7, 0.72, 0.69, 0.71, 0.7])
        self.assertTrue(lo <= hi < 1.0, (lo, hi))

    def test_noise_contains_one(self):
        lo, hi = run.bootstrap([0.95, 1.04, 0.99, 1.02, 0.97, 1.01])
        self.assertTrue(lo < 1.0 < hi, (lo, hi))

    def test_seeded_and_stable(self):
        xs = [1.1, 0.9, 1.3, 1.05, 0.98, 1.2, 1.01]
        self.assertEqual(run.bootstrap(xs), run.bootstrap(list(xs)))
        # The fixed seed's figures: a change of method or seed shows here.
        self.assertEqual(run.bootstrap(xs), (0.98, 1.2))
        self.assertNotEqual(run.bootstrap(xs, seed=1, resamples=20),
                            run.bootstrap(xs, seed=2, resamples=20))

    def test_narrows_with_more_repetitions(self):
        few = run.bootstrap([0.9, 1.0, 1.1, 1.2, 1.3])
        many = run.bootstrap([0.9, 1.0, 1.1, 1.2, 1.3] * 8)
        self.assertEqual(few, (0.9, 1.3))  # 5 repetitions: the range
        self.assertGreater(many[0], few[0])
        self.assertLess(many[1], few[1])

    def test_fewer_than_two(self):
        self.assertIsNone(run.bootstrap([]))
        self.assertIsNone(run.bootstrap([1.5]))

    def test_ratio_cell(self):
        self.assertEqual(run.ratio_cell({"ratio": 1.02, "ratio_ci": [0.97, 1.06],
                                         "ratio_noise": True}),
                         "1.020 [0.970, 1.060] within noise")
        self.assertEqual(run.ratio_cell({"ratio": 1.5, "ratio_ci": [1.1, 2.0],
                                         "ratio_noise": False}),
                         "1.500 [1.100, 2.000]")
        self.assertEqual(run.ratio_cell({"ratio": 1.5, "ratio_ci": None,
                                         "ratio_noise": None}), "1.500")


SCHEMA = os.path.join(HERE, "benchout.schema.json")


class BenchoutTest(unittest.TestCase):
    """Our runs in glibc's benchtests format (benchout.schema.json)."""

    def results(self):
        return [result("stock", 0, 100.0, ops=50), result("patched", 0, 200.0),
                result("stock", 1, 50.0, ops=50), result("patched", 1, 250.0),
                result("stock", 0, 10.0, case="cond-handoff", group="condvar",
                       param="1:1:signal"),
                result("patched", 0, 20.0, case="cond-handoff", group="condvar",
                       param="1:1:signal"),
                result("stock", 0, 10.0, case="seed-work", group="seed",
                       param="direct+idle1000"),
                # Patched failed: left out of both files.
                {k: v for k, v in result("patched", 0, 0, case="seed-work", group="seed",
                                         param="direct+idle1000").items()
                 if k != "rate"} | {"error": "exit 1"}]

    def test_layout(self):
        docs = run.benchout(self.results(), ["stock", "patched"])
        self.assertEqual(sorted(docs), ["patched", "stock"])
        st = docs["stock"]
        self.assertEqual(st["timing_type"], "ns_per_op")
        self.assertEqual(sorted(st["functions"]), ["cond_handoff", "create_join"])
        self.assertEqual(list(st["functions"]["cond_handoff"]), ["threads=4,1_1_signal"])
        cj = st["functions"]["create_join"]["threads=4"]
        # 50 ops at 100/s and 50 ops at 50/s: 1.5 s for 100 ops.
        self.assertEqual(cj["timings"], [1e7, 2e7])
        self.assertEqual((cj["iterations"], cj["duration"]), (100, 1.5e9))
        self.assertEqual((cj["mean"], cj["min"], cj["max"]), (1.5e7, 1e7, 2e7))
        self.assertEqual(sorted(docs["patched"]["functions"]), ["cond_handoff", "create_join"])

    @unittest.skipUnless(importlib.util.find_spec("jsonschema"), "needs jsonschema")
    def test_valid_against_glibcs_schema(self):
        import jsonschema
        with open(SCHEMA) as f:
            schema = json.load(f)
        for doc in run.benchout(self.results(), ["stock", "patched"]).values():
            jsonschema.validate(doc, schema)

    def test_names_fit_the_schema(self):
        # Every configuration of the full plan has a name of its own that
        # the schema's patterns allow.
        with open(SCHEMA) as f:
            fn = json.load(f)["properties"]["functions"]["patternProperties"]
        (fpat, fschema), = fn.items()
        (vpat, _), = fschema["patternProperties"].items()
        cfgs = run.plan("full").cfgs
        results = [result(v, 0, 1.0, group=g, case=c, threads=n, param=p)
                   for g, c, n, p in cfgs for v in ("stock", "patched")]
        doc = run.benchout(results, ["stock", "patched"])["stock"]
        names = [(f, var) for f, vs in doc["functions"].items() for var in vs]
        self.assertEqual(len(names), len(cfgs))
        for f, var in names:
            self.assertRegex(f, fpat)
            self.assertRegex(var, vpat)

    def test_write_benchout_leaves_no_other_runs_files(self):
        """A variant of an earlier run in the same directory (step4) must
        not stay beside this run's files."""
        with tempfile.TemporaryDirectory() as out:
            for stale in ("benchout-step4.json", "benchout-stock.json"):
                with open(os.path.join(out, stale), "w") as f:
                    f.write("{}")
            names = run.write_benchout(self.results(), ["stock", "patched"], out)
            self.assertEqual(sorted(os.listdir(out)), sorted(names))
            self.assertEqual(sorted(names), ["benchout-patched.json", "benchout-stock.json"])
            with open(os.path.join(out, "benchout-stock.json")) as f:
                self.assertIn("functions", json.load(f))


FAKE_CC = r"""#!/bin/sh
# Writes, as the program -o names, one that prints a fixed result line.
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
cat > "$out" <<EOF
#!/bin/sh
# At 500 threads, with FAKE_DIR/hang, as a run stopped by a time limit.
case " \$* " in *" -t 500 "*) [ -e "\$FAKE_DIR/hang" ] && sleep 600;; esac
# With FAKE_DIR/fail-VARIANT, as a run that fails.
[ -e "\$FAKE_DIR/fail-%(variant)s" ] && { echo "bench: pthread_create: EAGAIN" >&2; exit 1; }
echo '{"ops": 1000, "rate": %(rate)s, "thread_ops_min": 1, "thread_ops_max": 1, "process_cpu_pct": 50.0, "machine_busy_pct": 50.0, "rss_kib": 1024, "ops_total": 1000}'
%(stderr)s
EOF
chmod +x "$out"
"""
# What an instrumented libc.so prints at exit (stack_list acquisitions
# per 1000 operations as given).
LOCKSTAT_LINE = ("echo 'lockstat dso=libc ticks=1000 ns=1000 stack_list=%d,0,4000,8000 "
                 "load_tls=0,0,0,0 default_attr=0,0,0,0 shards=0,0,0,0' >&2")
FAKE_RUN = """#!/bin/sh
FAKE_VARIANT=%(variant)s exec "$@"
"""
# The PATH of a fake run: make (glibc's benchtests), stress-ng, and a perf
# and gnuplot that do not work, so that runs are neither wrapped nor plotted.
FAKE_TOOLS = {
    "in-env": '#!/bin/sh\ncd "$1" && shift && exec "$@"\n',
    "make": """#!/bin/sh
if [ -e fail ]; then echo "make: *** [bench] Error 2" >&2; exit 2; fi
mkdir -p benchtests
echo '{"functions": {"thread_create": {"": {"mean": '"$(cat mean)"'}}}}' > benchtests/bench.out
""",
    "stress-ng": """#!/bin/sh
if [ -e "$FAKE_DIR/stress-ng-fails-$FAKE_VARIANT" ]; then
  echo "stress-ng: error: [1] pthread: fork failed" >&2; exit 2
fi
echo "stress-ng: metrc: [1] pthread  4000  2.00  1.0  1.0  2000.00  2000.00"
""",
    "perf": "#!/bin/sh\nexit 1\n",
    "gnuplot": "#!/bin/sh\nexit 1\n",
}


class RunTest(unittest.TestCase):
    """Whole runs of run.py on fake sysroots stock (rate 100, glibc mean
    200) and patched (rate 150, glibc mean 100)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        tools = os.path.join(self.dir, "tools")
        os.makedirs(tools)
        for name, text in FAKE_TOOLS.items():
            self.write(os.path.join(tools, name), text, 0o755)
        for v, rate, mean, stderr in (
                ("stock", 100, 200, ""), ("patched", 150, 100, ""),
                # The instrumented builds print their counts at exit.
                ("stock-lockstat", 90, 200, LOCKSTAT_LINE % 2000),
                ("patched-lockstat", 140, 100, LOCKSTAT_LINE % 0)):
            build = os.path.join(self.dir, "build")
            self.write(run.variant_dir(build, v, "cc"),
                       FAKE_CC % {"rate": rate, "stderr": stderr, "variant": v}, 0o755)
            self.write(run.variant_dir(build, v, "run"), FAKE_RUN % {"variant": v}, 0o755)
            self.write(os.path.join(run.variant_dir(build, v, "root"), "NPTL-SCALE"),
                       "base: fake %s\n" % v)
            self.write(os.path.join(run.variant_dir(build, v, "obj"), "mean"), "%d\n" % mean)
        self.env = dict(os.environ, FAKE_DIR=self.dir,
                        PATH=tools + os.pathsep + os.environ["PATH"])
        self.out = os.path.join(self.dir, "out")

    def write(self, path, text, mode=0o644):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)

    def bench(self, mode, variants=("stock", "patched"), reps=1):
        r = subprocess.run(
            [sys.executable, RUN_PY, "--base", "fake", "--build",
             os.path.join(self.dir, "build"), "--out", self.out, "--bench", mode,
             "--reps", str(reps), "--seconds", "0.01", "--in-env",
             os.path.join(self.dir, "tools", "in-env")] + list(variants),
            env=self.env, capture_output=True, text=True, timeout=300)
        with open(os.path.join(self.out, "results.json")) as f:
            doc = json.load(f)
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        return r, doc, report

    def test_instrumented_variants_count_locks_only(self):
        """The instrumented variants run create+join and the seed cases
        alone, and have the lock table and the model only: no column of
        the rate tables, no ratio, no glibc benchtests."""
        r, doc, report = self.bench(
            "create-join,seed-work,glibc,stress-ng",
            ("stock", "patched", "stock-lockstat", "patched-lockstat"), reps=2)
        self.assertEqual(r.returncode, 0, r.stderr)
        ran = collections.defaultdict(set)
        for x in doc["results"]:
            ran[x["variant"]].add((x["group"], x["case"]))
        self.assertEqual(ran["stock-lockstat"], run.LOCKSTAT_RUNS)
        self.assertEqual(ran["patched-lockstat"], run.LOCKSTAT_RUNS)
        self.assertIn(("create-join", "clone-floor"), ran["stock"])
        self.assertNotIn("lockstat /s", report)
        self.assertNotIn("stock-lockstat ->", doc["glibc_benchtests"])
        self.assertIn("stock -> patched", doc["glibc_benchtests"])
        self.assertNotIn("lockstat", doc["stress_ng"])
        # The compared variants are paired back to back, the instrumented
        # ones after them.
        order = [x["variant"] for x in doc["results"] if x["case"] == "create-join"]
        self.assertEqual(order[:8], ["stock", "patched", "stock-lockstat", "patched-lockstat",
                                     "patched", "stock", "stock-lockstat", "patched-lockstat"])
        self.assertIn("## Lock statistics", report)
        lock_rows = [l for l in report.splitlines()
                     if l.startswith("| create-join |") and l.count("|") > 30]
        self.assertTrue(lock_rows, report)
        # 2000 stack_list acquisitions over 1000 operations, and none.
        self.assertTrue(all(l.split(" | ")[3:5] == ["2.00", "0.000"] for l in lock_rows),
                        lock_rows)
        self.assertIn("| seed-work |", "\n".join(l for l in report.splitlines()
                                                 if l.count("|") > 30))
        self.assertIn("stock, H at 1 creator", doc["lock_model"])
        self.assertEqual(doc["lock_model"]["stock, H at 1 creator"]["r1"], 100)
        self.assertIn("- stock-lockstat: base: fake stock-lockstat", report)

    def test_failed_instrumented_runs_are_named(self):
        """The rate tables leave the instrumented variants out, so the
        lock table names their failed runs; make bench fails."""
        self.write(os.path.join(self.dir, "fail-patched-lockstat"), "")
        r, doc, report = self.bench("create-join", ("stock", "patched", "stock-lockstat",
                                                    "patched-lockstat"))
        self.assertNotEqual(r.returncode, 0)
        lock_part = report.split("## Lock statistics")[1]
        self.assertIn("**Failed**", lock_part)
        self.assertIn("create-join - 1 threads, patched-lockstat: 1 failed", lock_part)

    def test_instrumented_variants_alone_are_refused(self):
        r = subprocess.run(
            [sys.executable, RUN_PY, "--base", "fake", "--build",
             os.path.join(self.dir, "build"), "--out", self.out, "--bench", "create-join",
             "stock-lockstat", "patched-lockstat"],
            env=self.env, capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("name them beside the variants they count", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_floor_with_calls_is_a_share_of_the_bare_floor(self):
        """The clone floor with glibc's calls is reported as a share of the
        bare floor at its thread count; the bare floor has no share."""
        r, doc, report = self.bench("clone-floor")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {(l.split(" | ")[1], l.split(" | ")[2]): l for l in report.splitlines()
                if l.startswith("| clone-floor |")}
        self.assertTrue(rows[("calls", "1")].endswith("| 1.00 | 1.00 |"), rows)
        self.assertTrue(rows[("-", "1")].endswith("| - | - |"), rows)

    def test_stopped_run_leaves_its_results(self):
        """A run killed before its end (as by a time limit) leaves what
        has run in results.json, marked partial, and --report-only
        renders it; a run that ends is not partial."""
        r, doc, report = self.bench("clone-floor")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(doc["partial"])
        self.assertNotIn("**Partial:**", report)
        shutil.rmtree(self.out)
        self.write(os.path.join(self.dir, "hang"), "")
        cfgs = run.plan("clone-floor").cfgs
        cmd = [sys.executable, RUN_PY, "--base", "fake", "--build",
               os.path.join(self.dir, "build"), "--out", self.out, "--bench",
               "clone-floor", "--reps", "1", "--seconds", "0.01", "stock", "patched"]
        p = subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            # Wait until results.json has every configuration below 500
            # threads (the 500-thread ones hang).
            below = sorted((c[2], c[3]) for c in cfgs if c[2] < 500)
            for _ in range(600):
                try:
                    with open(os.path.join(self.out, "results.json")) as f:
                        if sorted({(x["threads"], x["param"]) for x in
                                   json.load(f)["results"]}) == below:
                            break
                except (OSError, ValueError):
                    pass
                time.sleep(0.1)
        finally:
            os.killpg(p.pid, 9)
            p.wait()
        with open(os.path.join(self.out, "results.json")) as f:
            doc = json.load(f)
        self.assertTrue(doc["partial"])
        self.assertEqual(sorted({(x["threads"], x["param"]) for x in doc["results"]}),
                         below)
        r = subprocess.run(cmd[:-2] + ["--report-only", "stock", "patched"],
                           env=self.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        self.assertIn("**Partial:**", report)
        self.assertIn("| clone-floor | - | 120 | 100 [100-100] |", report)
        self.assertNotIn("| clone-floor | - | 500 |", report)
        # --resume of another plan refuses, and leaves the file as it was.
        r = subprocess.run([c if c != "1" else "2" for c in cmd] + ["--resume"],
                           env=self.env, capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a stopped run of this plan", r.stderr)
        with open(os.path.join(self.out, "results.json")) as f:
            self.assertEqual(json.load(f), doc)
        # --resume of the same plan runs only what is left.
        os.remove(os.path.join(self.dir, "hang"))
        r = subprocess.run(cmd + ["--resume"], env=self.env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        ran = [l for l in r.stdout.splitlines() if l.startswith("[")]
        at500 = [c for c in cfgs if c[2] == 500]
        self.assertEqual(len(ran), len(at500), r.stdout)
        for line in ran:
            self.assertIn("t=500", line)
        with open(os.path.join(self.out, "results.json")) as f:
            doc = json.load(f)
        self.assertFalse(doc["partial"])
        per = collections.Counter((x["threads"], x["param"], x["variant"])
                                  for x in doc["results"])
        self.assertEqual(set(per.values()), {1})
        self.assertIn(500, {x["threads"] for x in doc["results"]})

    def test_glibc_alone(self):
        r, doc, report = self.bench("glibc")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(doc["results"], [])
        self.assertEqual(doc["glibc_bench_set"], run.GLIBC_BENCH)
        self.assertRegex(doc["glibc_benchtests"],
                         r"stock -> patched: .*\n\+\+\+ thread_create .* 200\.0 +100\.0 +-50\.0%")
        self.assertIn("## glibc benchtests", report)
        self.assertNotIn("stress_ng", doc)

    def test_stress_ng_alone(self):
        r, doc, report = self.bench("stress-ng")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(doc["results"], [])
        self.assertEqual(doc["stress_ng"].splitlines(), [
            "stock    bogo ops 4000 in 2.00 s real: 2000.00 bogo ops/s (real time)",
            "patched  bogo ops 4000 in 2.00 s real: 2000.00 bogo ops/s (real time)"])
        self.assertIn("## stress-ng --pthread under each sysroot", report)
        self.assertNotIn("glibc_benchtests", doc)

    def test_group_and_glibc(self):
        r, doc, report = self.bench("create-join,glibc")
        self.assertEqual(r.returncode, 0, r.stderr)
        cj = [row for row in doc["summary"] if row["case"] == "create-join"]
        self.assertEqual([row["threads"] for row in cj],
                         sorted(set(run.CREATORS + [os.cpu_count() or 1])))
        self.assertEqual({row["variants"]["patched"]["ratio"] for row in cj}, {1.5})
        self.assertEqual({row["group"] for row in doc["summary"]}, {"create-join"})
        self.assertIn("thread_create", doc["glibc_benchtests"])
        self.assertIn("## glibc benchtests", report)
        self.assertIn("| create-join | - | 1 | 100 [100-100] |", report)
        # One repetition: a ratio without an interval.
        self.assertRegex(report, r"\| create-join \| - \| 1 \| 100 \[100-100\] \|"
                         r" 50\.0 \| 50\.0 \| 150 \[150-150\] \| 50\.0 \| 50\.0 \| 1\.500 \|")
        # The same runs in glibc's format, named in the report.
        self.assertEqual(doc["benchout"], ["benchout-stock.json", "benchout-patched.json"])
        self.assertIn("compare_bench.py: benchout-stock.json, benchout-patched.json", report)
        with open(os.path.join(self.out, "benchout-patched.json")) as f:
            pa = json.load(f)
        self.assertEqual(pa["functions"]["create_join"]["threads=1"]["timings"], [1e9 / 150])

    def test_glibc_failure_fails_the_run(self):
        self.write(os.path.join(run.variant_dir(os.path.join(self.dir, "build"), "patched",
                                                "obj"), "fail"), "")
        r, doc, report = self.bench("create-join,glibc")
        self.assertEqual(r.returncode, 1)
        self.assertIn("run.py: failed: glibc benchtests for patched: exit 2", r.stderr)
        self.assertEqual(doc["failed"], ["glibc benchtests for patched: exit 2"])
        # What did run is in the report.
        self.assertIn("| create-join | - | 1 | 100 [100-100] |", report)
        self.assertIn("**Failed:** glibc benchtests for patched: exit 2", report)
        self.assertIn("glibc benchtests failed for patched:\nmake: *** [bench] Error 2",
                      doc["glibc_benchtests"])
        self.assertNotIn("stock -> patched", doc["glibc_benchtests"])

    def test_stress_ng_failure_fails_the_run(self):
        self.write(os.path.join(self.dir, "stress-ng-fails-stock"), "")
        r, doc, report = self.bench("stress-ng")
        self.assertEqual(r.returncode, 1)
        self.assertIn("run.py: failed: stress-ng for stock: exit 2, no result", r.stderr)
        self.assertEqual(doc["stress_ng"].splitlines(), [
            "stock    failed (exit 2, no result): "
            "stress-ng: error: [1] pthread: fork failed",
            "patched  bogo ops 4000 in 2.00 s real: 2000.00 bogo ops/s (real time)"])
        self.assertIn("**Failed:** stress-ng for stock: exit 2, no result", report)


class StressNgTest(unittest.TestCase):
    @mock.patch.object(run.shutil, "which", return_value=None)
    def test_not_installed(self, _):
        # Skipped where BENCH does not name it, a failure where it does.
        self.assertEqual(run.stress_ng(["stock"], "/nonexistent", 1, False),
                         ("stress-ng not installed", []))
        self.assertEqual(run.stress_ng(["stock"], "/nonexistent", 1, True),
                         ("stress-ng not installed", ["stress-ng: not installed"]))

    def test_other_target(self):
        # A sysroot of another target (an i686 libc.so.6) does not run
        # this machine's stress-ng: skipped, or a failure where named.
        with tempfile.TemporaryDirectory() as b:
            lib = os.path.join(run.variant_dir(b, "stock", "root"), "lib")
            os.makedirs(lib)
            with open(os.path.join(lib, "libc.so.6"), "wb") as f:
                f.write(b"\x7fELF\x01\x01\x01" + bytes(11) + b"\x03\x00")
            host = run.elf_target(os.path.realpath(sys.executable))
            self.assertIsNotNone(host)
            self.assertNotEqual(run.elf_target(os.path.join(lib, "libc.so.6")), host)
            why = "this machine's stress-ng is built for another target than the sysroots"
            with mock.patch.object(run.shutil, "which", return_value=sys.executable):
                self.assertEqual(run.stress_ng(["stock"], b, 1, False), ("not run: " + why, []))
                self.assertEqual(run.stress_ng(["stock"], b, 1, True),
                                 ("not run: " + why, ["stress-ng: " + why]))
        self.assertIsNone(run.elf_target(__file__))


if __name__ == "__main__":
    unittest.main()
