#!/usr/bin/env python3
"""Self-test of compare.py: each rule of the comparison, on small .sum files."""
import os
import subprocess
import sys
import tempfile
import unittest

COMPARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare.py")


def run(stock, patched, known=None):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, text in (("stock.sum", stock), ("patched.sum", patched),
                           ("known", known or "")):
            p = os.path.join(d, name)
            with open(p, "w") as f:
                f.write(text)
            paths.append(p)
        r = subprocess.run([sys.executable, COMPARE, "--known", paths[2],
                            paths[0], paths[1]], capture_output=True, text=True)
        return r.returncode, r.stdout


class CompareTest(unittest.TestCase):
    def test_identical_passes(self):
        rc, out = run("PASS: a/t1\nPASS: a/t2\n", "PASS: a/t1\nPASS: a/t2\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("RESULT: no regressions", out)

    def test_pass_to_fail_is_regression(self):
        rc, out = run("PASS: a/t1\n", "FAIL: a/t1\n")
        self.assertEqual(rc, 1)
        self.assertIn("a/t1: PASS -> FAIL", out)

    def test_disappeared_is_regression(self):
        rc, out = run("PASS: a/t1\nPASS: a/t2\n", "PASS: a/t1\n")
        self.assertEqual(rc, 1)
        self.assertIn("a/t2: PASS -> MISSING", out)

    def test_no_longer_passing_is_regression(self):
        # Passing on stock; unsupported, an expected failure, untested or
        # gone on patched (and gone after an expected failure).
        for stock, patched, change in (
                ("PASS: a/t1\n", "UNSUPPORTED: a/t1\n", "a/t1: PASS -> UNSUPPORTED"),
                ("PASS: a/t1\nPASS: a/t2\n", "XFAIL: a/t1\nPASS: a/t2\n",
                 "a/t1: PASS -> XFAIL"),
                ("PASS: a/t1\nPASS: a/t2\n", "PASS: a/t1\nUNTESTED: a/t2\n",
                 "a/t2: PASS -> UNTESTED"),
                ("XFAIL: a/t1\nPASS: a/t2\n", "PASS: a/t2\n", "a/t1: XFAIL -> MISSING")):
            with self.subTest(change=change):
                rc, out = run(stock, patched)
                self.assertEqual(rc, 1, out)
                self.assertIn(change, out)
                self.assertIn("RESULT: 1 regression(s)", out)

    def test_not_passing_on_stock_may_change_kind(self):
        # Only a test that passes on stock must keep passing: these are
        # differences, not regressions.
        rc, out = run("FAIL: a/t1\nXFAIL: a/t2\nUNSUPPORTED: a/t3\n",
                      "XFAIL: a/t1\nUNTESTED: a/t2\nXFAIL: a/t3\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("a/t1: FAIL -> XFAIL", out)
        self.assertIn("a/t2: XFAIL -> UNTESTED", out)
        self.assertIn("a/t3: UNSUPPORTED -> XFAIL", out)
        self.assertIn("RESULT: no regressions", out)

    def test_new_failing_test_is_regression(self):
        rc, _ = run("PASS: a/t1\n", "PASS: a/t1\nFAIL: a/t2\n")
        self.assertEqual(rc, 1)

    def test_fail_on_both_is_not_regression(self):
        rc, out = run("FAIL: a/t1\n", "FAIL: a/t1\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("not in the known-failures list", out)

    def test_flaky_is_reported_not_fatal(self):
        rc, out = run("PASS: a/t1\n", "FLAKY: a/t1 (failed, then 2 of 2 re-runs passed)\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("flaky", out)

    def test_unsupported_kept_apart(self):
        rc, out = run("UNSUPPORTED: a/t1\n", "UNSUPPORTED: a/t1\n")
        self.assertEqual(rc, 0)
        self.assertIn("UNSUPPORTED 1", out)

    def test_known_failure_that_passes_is_an_error(self):
        rc, out = run("PASS: a/t1\n", "PASS: a/t1\n", "a/t1  container lacks X\n")
        self.assertEqual(rc, 1)
        self.assertIn("known failure but is PASS on stock", out)

    def test_known_failure_explained(self):
        rc, out = run("FAIL: a/t1\n", "FAIL: a/t1\n", "a/t1  container lacks X\n")
        self.assertEqual(rc, 0)
        self.assertIn("known: container lacks X", out)

    def test_dejagnu_names_with_details(self):
        rc, out = run("PASS: storm\n", "FAIL: storm: exit 1: child killed\n")
        self.assertEqual(rc, 1)
        self.assertIn("storm: PASS -> FAIL", out)

    def test_merge_reruns(self):
        with tempfile.TemporaryDirectory() as d:
            raw, reruns = os.path.join(d, "raw"), os.path.join(d, "reruns")
            with open(raw, "w") as f:
                f.write("FAIL: a/t1\nFAIL: a/t2\nPASS: a/t3\n")
            with open(reruns, "w") as f:
                f.write("run 2: PASS: a/t1\nrun 3: PASS: a/t1\n"
                        "run 2: FAIL: a/t2\nrun 3: FAIL: a/t2\n")
            out = subprocess.run([sys.executable, COMPARE, "--merge-reruns", reruns, raw],
                                 capture_output=True, text=True).stdout
        self.assertIn("FLAKY: a/t1", out)
        self.assertIn("FAIL: a/t2", out)
        self.assertIn("PASS: a/t3", out)


if __name__ == "__main__":
    unittest.main()
