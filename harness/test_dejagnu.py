#!/usr/bin/env python3
"""Self-test of testsuite/lib/nptl-scale.exp: how the FAIL line of a test
that fails, crashes or hangs reads (testsuite/nptl-scale.selftest/).

The programs are built with $NPTL_SCALE_CC (check.sh: stock's bin/cc), or
cc; the test is skipped where runtest is not installed."""
import os
import shutil
import subprocess
import tempfile
import unittest

TESTSUITE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "testsuite")
CC = os.environ.get("NPTL_SCALE_CC") or "cc"


@unittest.skipUnless(shutil.which("runtest") and shutil.which(CC),
                     "needs runtest (Debian package dejagnu) and a compiler")
class DejaGnuLibTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["runtest", "--tool", "nptl-scale", "--srcdir", TESTSUITE,
                            "--outdir", d, "CC=" + CC, "selftest.exp"],
                           cwd=d, capture_output=True, timeout=120)
            with open(os.path.join(d, "nptl-scale.sum")) as f:
                cls.results = {line.split(":")[1].strip(): line.rstrip("\n")
                               for line in f if line.startswith(("PASS: ", "FAIL: "))}
            with open(os.path.join(d, "nptl-scale.log")) as f:
                cls.log = f.read()

    def test_exit_status_and_last_line(self):
        line = self.results["exit"]
        self.assertTrue(line.startswith("FAIL: exit: exit 1: "), line)
        self.assertIn("exit.c:", line)
        self.assertIn("differ", line)

    def test_verify_records_and_continues(self):
        # Two failed TEST_VERIFY, then main returns 0: both printed, the
        # test goes on to its end, and the recorded failures fail it.
        self.assertEqual(self.results["verify"],
                         "FAIL: verify: exit 1: error: 2 test failures; the first: "
                         "verify.c:11: not true: one == 2")
        for line in ("error: verify.c:11: not true: one == 2",
                     "error: verify.c:12: not true: one == 3", "reached the end"):
            self.assertIn(line + "\n", self.log)

    def test_compare_message(self):
        # One FILE:LINE prefix, glibc's "left == right: differ" wording.
        self.assertIn("error: exit.c:8: 1 + 1 == 3: differ; left: 2, right: 3\n",
                      self.log)
        self.assertFalse([line for line in self.log.splitlines()
                          if line.count("exit.c:8:") > 1])

    def test_signal_named(self):
        self.assertEqual(self.results["segv"], "FAIL: segv: killed by SIGSEGV")

    def test_hang_is_timeout(self):
        self.assertEqual(self.results["hang"], "FAIL: hang: TIMEOUT after 2s")


if __name__ == "__main__":
    unittest.main()
