"""Tests of bench/apps.py (the real workloads) that need no server."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import apps  # noqa: E402
import run  # noqa: E402


class AppsTest(unittest.TestCase):
    def test_parse_sysbench_report(self):
        # sysbench 1.0.20's oltp_read_write, 8 threads, its histogram cut
        # to 22 samples: the 21st is 32.525 ms, the 22nd 36.236 ms.
        with open(os.path.join(HERE, "apps", "testdata",
                               "sysbench-oltp_read_write.txt")) as f:
            res = apps.parse(f.read())
        self.assertEqual((res["events"], res["seconds"]), (1969, 2.0458))
        self.assertAlmostEqual(res["rate"], 1969 / 2.0458)
        self.assertEqual((res["p95_ms"], res["p99_ms"]), (32.525, 36.236))
        self.assertEqual((res["retried"], res["reconnects"]), (0, 0))
        self.assertIsNone(apps.parse("FATAL: unable to connect\n"))

    def test_rotated_puts_each_variant_first_in_turn(self):
        v = ["stock", "fixes", "patched"]
        orders = [apps.rotated(v, rep) for rep in range(6)]
        self.assertEqual([o[0] for o in orders],
                         ["stock", "fixes", "patched"] * 2)
        for o in orders:
            self.assertEqual(sorted(o), sorted(v))
        self.assertEqual(apps.rotated(["stock"], 3), ["stock"])

    def test_parse_ab_report(self):
        # ApacheBench 2.3, 300 requests, 4 clients, a 4 KiB file.
        with open(os.path.join(HERE, "apps", "testdata", "ab.txt")) as f:
            res = apps.parse_ab(f.read())
        self.assertEqual(res["rate"], 429.71)
        self.assertEqual((res["failed_requests"], res["non_2xx"]), (0, 0))
        self.assertEqual((res["p95_ms"], res["p99_ms"]), (19.0, 25.0))
        self.assertIsNone(apps.parse_ab("apr_socket_connect(): Connection refused (111)\n"))

    def test_log_failures(self):
        for line in ("2026-12-05 1:02:03 0 [ERROR] InnoDB: Cannot allocate memory",
                     "mariadbd: sql_class.cc:123: Assertion `x' failed.",
                     "261205 1:02:03 [ERROR] mysqld got signal 11 ;"):
            self.assertTrue(apps.LOG_FAILURE.search(line), line)
        for line in ("2026-12-05 1:02:03 0 [Note] /usr/sbin/mariadbd: Shutdown complete",
                     "2026-12-05 1:02:03 0 [Warning] Aborted connection 5 to db"):
            self.assertFalse(apps.LOG_FAILURE.search(line), line)

    def test_missing_names_the_programs(self):
        saved = apps.PROGRAMS
        try:
            apps.PROGRAMS = ("/nonexistent/mariadbd", "no-such-program-here", "sh")
            self.assertEqual(apps.missing(), ["/nonexistent/mariadbd", "no-such-program-here"])
        finally:
            apps.PROGRAMS = saved

    def test_apps_run_only_when_named_or_full(self):
        self.assertFalse(run.plan("default").apps)
        self.assertFalse(run.plan("quick").apps)
        self.assertFalse(run.plan("create-join").apps)
        self.assertTrue(run.plan("full").apps)
        p = run.plan("apps")
        self.assertTrue(p.apps)
        self.assertEqual((p.cfgs, p.glibc, p.stress_ng), ([], "", False))

    def test_report_pairs_the_repetitions(self):
        runs = [{"group": "apps", "case": "connect", "threads": 8, "param": "",
                 "variant": v, "rep": rep, "rate": rate, "p95_ms": 9.0,
                 "p99_ms": 12.0, "retried": 0, "reconnects": 0, "server_libc": "/x/libc.so.6"}
                for rep, (a, b) in enumerate(((600, 660), (500, 560), (700, 700)))
                for v, rate in (("stock", a), ("patched", b))]
        runs.append({"group": "apps", "case": "connect", "threads": 8, "param": "",
                     "variant": "patched", "rep": 3, "error": "sysbench exit 1"})
        doc = {"apps": runs, "apps_reps": 3, "apps_minutes": 1.0,
               "machine": {"cores": 2}}
        text = "\n".join(run.apps_report(doc, ["stock", "patched"]))
        self.assertIn("| connect | 8 | stock | 600 [500-700] | 9.00 | 12.00 | - | 0 |", text)
        self.assertRegex(text, r"\| connect \| 8 \| patched \| 660 \[560-700\] \(1 failed\) "
                               r"\| 9\.00 \| 12\.00 \| 1\.100 \[")


if __name__ == "__main__":
    unittest.main()
