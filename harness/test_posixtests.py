#!/usr/bin/env python3
"""Self-test of posixtests.py: a fake suite of three tests (pass, fail,
unsupported), one of which reads the condvar mode, built with the host's
gcc: each result line, in both modes, and --only."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

POSIXTESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "posixtests.py")
TESTS = {
    "pthread_cond_wait/1-1.c": "int main (void) { return 0; }",
    "pthread_cond_wait/2-1.c": """
        #include <stdio.h>
        int main (void) { puts ("Test FAILED: lost wake-up"); return 1; }""",
    # Passes as it is, fails in the legacy mode: the mode reaches the test.
    "pthread_cond_signal/1-1.c": """
        #include <stdlib.h>
        #include <string.h>
        int main (void) {
          const char *t = getenv ("GLIBC_TUNABLES");
          return t != NULL && strstr (t, "cond_legacy=1") != NULL ? 4 : 0; }""",
    "pthread_mutex_lock/1-1.c": "int main (void) { return 1; }",
    # Leaves a child behind, which the harness must not leave running.
    "pthread_cond_destroy/1-1.c": """
        #include <unistd.h>
        int main (void) { if (fork () == 0) { pause (); } return 0; }""",
}


class PosixTestsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, "src")
        os.makedirs(os.path.join(self.src, "include"))
        for rel, text in TESTS.items():
            p = os.path.join(self.src, "conformance", "interfaces", rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(textwrap.dedent(text))

    def tearDown(self):
        self.tmp.cleanup()

    def run_suite(self, *args):
        r = subprocess.run([sys.executable, POSIXTESTS, "--src", self.src, "--cc", "gcc",
                            "--out", os.path.join(self.tmp.name, "out"), "--jobs", "2"]
                           + list(args), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()

    def test_every_cond_test_in_both_modes(self):
        self.assertEqual(self.run_suite(), [
            "PASS: posix/pthread_cond_destroy/1-1",
            "PASS: posix/pthread_cond_destroy/1-1/cond_legacy",
            "PASS: posix/pthread_cond_signal/1-1",
            "UNSUPPORTED: posix/pthread_cond_signal/1-1/cond_legacy: exit 4",
            "PASS: posix/pthread_cond_wait/1-1",
            "PASS: posix/pthread_cond_wait/1-1/cond_legacy",
            "FAIL: posix/pthread_cond_wait/2-1: exit 1: Test FAILED: lost wake-up",
            "FAIL: posix/pthread_cond_wait/2-1/cond_legacy: exit 1: Test FAILED: lost wake-up",
        ])

    def test_no_process_left_behind(self):
        self.run_suite("--only", "posix/pthread_cond_destroy/1-1")
        exe = os.path.join(self.tmp.name, "out", "posix_pthread_cond_destroy_1-1")
        left = subprocess.run(["pgrep", "-f", exe], capture_output=True, text=True)
        self.assertEqual(left.stdout, "")

    def test_only_one(self):
        self.assertEqual(self.run_suite("--only", "posix/pthread_cond_wait/2-1/cond_legacy"),
                         ["FAIL: posix/pthread_cond_wait/2-1/cond_legacy: exit 1: "
                          "Test FAILED: lost wake-up"])


if __name__ == "__main__":
    unittest.main()
