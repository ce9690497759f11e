#!/usr/bin/env python3
"""Self-test of compare.py: each rule of the comparison, on small .sum files."""
import json
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

    def test_intermittent_known_failure(self):
        known = "a/t1  intermittent: passed 5 of 12 runs on both\n"
        # PASS on stock, FAIL on patched (and its -cond-legacy mode): by
        # chance, listed apart, not a regression.
        rc, out = run("PASS: a/t1\n", "FAIL: a/t1\nFAIL: a/t1-cond-legacy\n", known)
        self.assertEqual(rc, 0, out)
        self.assertIn("a/t1: PASS -> FAIL (intermittent: passed 5 of 12", out)
        self.assertIn("a/t1-cond-legacy: PASS -> FAIL (intermittent:", out)
        self.assertNotIn("REGRESSIONS", out)
        # PASS on stock is not a stale entry.
        rc, out = run("PASS: a/t1\n", "PASS: a/t1\n", known)
        self.assertEqual(rc, 0, out)
        # No result (not built, make killed), UNRESOLVED or a disappearance
        # is not chance: still a regression.
        rc, out = run("PASS: a/t1\n", "FAIL: a/t1 (no result: the test did not "
                      "build or was killed)\n", known)
        self.assertEqual(rc, 1, out)
        rc, out = run("PASS: a/t1\n", "UNRESOLVED: a/t1\n", known)
        self.assertEqual(rc, 1, out)
        # Nor is a hang that the runner killed at its time limit.
        rc, out = run("PASS: a/t1\n", "FAIL: a/t1: TIMEOUT after 60s\n", known)
        self.assertEqual(rc, 1, out)
        self.assertIn("REGRESSIONS", out)
        rc, out = run("PASS: a/t1\nPASS: a/t2\n", "PASS: a/t2\n", known)
        self.assertEqual(rc, 1, out)
        # Only the marked entry: another known failure passing is still stale.
        rc, out = run("PASS: a/t2\n", "PASS: a/t2\n", known + "a/t2  lacks X\n")
        self.assertEqual(rc, 1, out)

    def test_dejagnu_names_with_details(self):
        rc, out = run("PASS: storm\n", "FAIL: storm: exit 1: child killed\n")
        self.assertEqual(rc, 1)
        self.assertIn("storm: PASS -> FAIL", out)


def write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return p


def cli(*args):
    r = subprocess.run([sys.executable, COMPARE] + list(args),
                       capture_output=True, text=True)
    return r.returncode, r.stdout


class JsonTest(unittest.TestCase):
    """--json: the comparison as data, the same as the text says."""

    def compare(self, stock, patched, known=""):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cmp.json")
            rc, text = cli("--known", write(d, "known", known), "--json", out,
                           write(d, "glibc-stock.sum", stock),
                           write(d, "glibc-patched.sum", patched))
            with open(out) as f:
                return rc, text, json.load(f)

    def test_sides_and_lists(self):
        rc, text, doc = self.compare(
            "PASS: a/t1\nPASS: a/t2\nFAIL: a/t3\nFAIL: a/t4\nUNSUPPORTED: a/t5\n",
            "FAIL: a/t1\nFLAKY: a/t2 (failed, then 1 of 2 re-runs passed)\n"
            "PASS: a/t3\nFAIL: a/t4\nXFAIL: a/t5\n",
            "a/t4  no network here\n")
        self.assertEqual(rc, 1)
        self.assertEqual(doc["exit_status"], 1)
        self.assertEqual(doc["stock"]["name"], "glibc-stock")
        self.assertEqual(doc["stock"]["tests"], 5)
        self.assertEqual(doc["stock"]["counts"], {"PASS": 2, "FAIL": 2, "UNSUPPORTED": 1})
        self.assertEqual(doc["patched"]["counts"],
                         {"PASS": 1, "FAIL": 2, "FLAKY": 1, "XFAIL": 1})
        self.assertEqual(doc["regressions"],
                         [{"test": "a/t1", "stock": "PASS", "patched": "FAIL"}])
        self.assertEqual(doc["flaky"],
                         [{"test": "a/t2", "stock": "PASS", "patched": "FLAKY"}])
        self.assertEqual(doc["improvements"],
                         [{"test": "a/t3", "stock": "FAIL", "patched": "PASS"}])
        self.assertEqual(doc["changes"],
                         [{"test": "a/t5", "stock": "UNSUPPORTED", "patched": "XFAIL"}])
        self.assertEqual([(c["test"], c["known"]) for c in doc["stock_failures"]],
                         [("a/t3", None), ("a/t4", "no network here")])
        self.assertEqual(doc["stale_known"], [])
        # The text is rendered from the same data.
        self.assertIn("glibc-patched: 5 tests: PASS 1 FAIL 2 FLAKY 1 XFAIL 1\n", text)
        self.assertIn("  a/t1: PASS -> FAIL\n", text)
        self.assertIn("  a/t4: FAIL (known: no network here)\n", text)
        self.assertTrue(text.endswith("RESULT: 1 regression(s)\n"), text)

    def test_clean_and_stale(self):
        rc, text, doc = self.compare("PASS: a/t1\n", "PASS: a/t1\n")
        self.assertEqual((rc, doc["exit_status"], doc["regressions"]), (0, 0, []))
        rc, text, doc = self.compare("PASS: a/t1\n", "PASS: a/t1\n", "a/t1  gone\n")
        self.assertEqual((rc, doc["exit_status"]), (1, 1))
        self.assertEqual(doc["stale_known"],
                         [{"test": "a/t1", "stock": "PASS", "patched": "PASS"}])
        self.assertIn("RESULT: 0 regression(s), stale known-failures entries", text)


class VariantTest(unittest.TestCase):
    """X-cond-legacy, which stock lacks, is compared with stock's X."""

    def test_variant_compared_with_its_stock_test(self):
        rc, out = run("FAIL: a/t1\nPASS: a/t2\n",
                      "FAIL: a/t1\nFAIL: a/t1-cond-legacy\n"
                      "PASS: a/t2\nFAIL: a/t2-cond-legacy\nFAIL: a/t3-cond-legacy\n",
                      "a/t1  qemu-user: no set_robust_list\n")
        self.assertEqual(rc, 1)
        self.assertIn("a/t2-cond-legacy: PASS -> FAIL", out)
        self.assertIn("a/t3-cond-legacy: MISSING -> FAIL", out)
        self.assertNotIn("a/t1-cond-legacy", out)
        self.assertIn("RESULT: 2 regression(s)", out)


class RerunTest(unittest.TestCase):
    """What check.sh's rerun_failures asks: which tests to run again, and
    the .sum once they ran (reruns: result lines, in the order they ran)."""

    def test_failed(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out = cli("--failed", write(d, "raw", (
                "FAIL: a/t1\nPASS: a/t2\nFAIL: storm: exit 1: x\n"
                "UNSUPPORTED: a/t3\nFAIL: a/t1 (no result)\nnoise FAIL: a/t4\n")))
        self.assertEqual((rc, out), (0, "a/t1\nstorm\n"))

    def test_failed_leaves_out_known_failures(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out = cli("--failed", "--known", write(d, "known", (
                "# header\na/t1  qemu-user: no set_robust_list\n")),
                write(d, "raw", "FAIL: a/t1\nFAIL: a/t2\nPASS: a/t3\n"
                      "FAIL: a/t1-cond-legacy\nFAIL: a/t2-cond-legacy\n"))
        self.assertEqual((rc, out), (0, "a/t2\na/t2-cond-legacy\n"))

    def merge(self, raw, reruns):
        with tempfile.TemporaryDirectory() as d:
            return cli("--merge-reruns", write(d, "reruns", reruns), write(d, "raw", raw))

    def test_merge_reruns(self):
        rc, out = self.merge("FAIL: a/t1\nFAIL: a/t2\nPASS: a/t3\nFAIL: a/t4\n",
                             "PASS: a/t1\nFAIL: a/t1\n"
                             "FAIL: a/t2\nFAIL: a/t2 (no result)\n"
                             "FAIL: a/t4\nPASS: a/t4\n")
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines(), [
            "FLAKY: a/t1 (failed, then 1 of 2 re-runs passed)",
            "FAIL: a/t2",
            "PASS: a/t3",
            "FLAKY: a/t4 (failed, then 1 of 2 re-runs passed)"])

    def test_merge_keeps_other_lines_and_details(self):
        raw = "Running x.exp ...\nFAIL: storm: exit 1: boom\nPASS: a/t3\n"
        rc, out = self.merge(raw, "PASS: storm\nPASS: storm\n")
        self.assertEqual(out, "Running x.exp ...\n"
                              "FLAKY: storm (failed: exit 1: boom, then 2 of 2 re-runs passed)\n"
                              "PASS: a/t3\n")
        # No rerun printed anything (a test the rerun could not find).
        rc, out = self.merge(raw, "")
        self.assertEqual(out, raw)

    def test_flaky_merged_is_compared_as_flaky(self):
        with tempfile.TemporaryDirectory() as d:
            rc, merged = cli("--merge-reruns", write(d, "reruns", "PASS: a/t1\n"),
                             write(d, "raw", "FAIL: a/t1\n"))
            rc, out = cli(write(d, "stock.sum", "PASS: a/t1\n"),
                          write(d, "patched.sum", merged))
        self.assertEqual(rc, 0, out)
        self.assertIn("a/t1: stock PASS, patched FLAKY", out)


class LinesTest(unittest.TestCase):
    """--lines: check.sh's result lines of runtest's nptl-scale.sum."""

    SUM = ("Test run by root\nRunning stress.exp ...\nPASS: cond-order\n"
           "FAIL: cond-order/cond_legacy: exit 1: x\nUNSUPPORTED: execstack: no\n"
           "\t\t=== nptl-scale Summary ===\n# of expected passes\t\t1\n")

    def test_lines(self):
        with tempfile.TemporaryDirectory() as d:
            f = write(d, "nptl-scale.sum", self.SUM)
            self.assertEqual(cli("--lines", f), (0, "PASS: cond-order\n"
                             "FAIL: cond-order/cond_legacy: exit 1: x\n"
                             "UNSUPPORTED: execstack: no\n"))
            self.assertEqual(cli("--lines", "--test", "cond-order/cond_legacy", f),
                             (0, "FAIL: cond-order/cond_legacy: exit 1: x\n"))
            self.assertEqual(cli("--lines", "--test", "storm", f), (0, ""))


class SummaryTest(unittest.TestCase):
    """--summary: check.sh's closing line, from the comparisons' JSON."""

    def test_summary(self):
        with tempfile.TemporaryDirectory() as d:
            jsons = []
            for kind, stock, patched in (
                    ("glibc", "PASS: a/t1\nPASS: a/t2\nPASS: a/t3\n",
                     "PASS: a/t1\nFAIL: a/t2\n"),        # t2 fails, t3 is gone
                    ("abi", "PASS: abi/x\n", "PASS: abi/x\n")):
                jsons.append(os.path.join(d, kind + ".json"))
                cli("--json", jsons[-1], write(d, kind + "-stock.sum", stock),
                    write(d, kind + "-patched.sum", patched))
            smoke = write(d, "smoke.sum", "PASS: smoke host program\n"
                          "FAIL: smoke patched loads its own libc: got '0', want '1'\n")
            self.assertEqual(cli("--summary", "--smoke", smoke, *jsons),
                             (0, "check: 2 passed, 3 failed\n"))
            self.assertEqual(cli("--summary", *jsons), (0, "check: 2 passed, 2 failed\n"))
            # A comparison that did not run is a failure, not nothing.
            self.assertEqual(cli("--summary", jsons[1], os.path.join(d, "none.json")),
                             (0, "check: 1 passed, 1 failed\n"))
            self.assertEqual(cli("--summary", "--smoke", smoke),
                             (0, "check: 0 passed, 1 failed\n"))


if __name__ == "__main__":
    unittest.main()
