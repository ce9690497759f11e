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

    def test_exit_status_and_last_line(self):
        line = self.results["exit"]
        self.assertTrue(line.startswith("FAIL: exit: exit 1: "), line)
        self.assertIn("exit.c:", line)
        self.assertIn("differ", line)

    def test_signal_named(self):
        self.assertEqual(self.results["segv"], "FAIL: segv: killed by SIGSEGV")

    def test_hang_is_timeout(self):
        self.assertEqual(self.results["hang"], "FAIL: hang: TIMEOUT after 2s")


if __name__ == "__main__":
    unittest.main()
