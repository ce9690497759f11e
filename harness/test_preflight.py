#!/usr/bin/env python3
"""Self-test of harness/preflight.sh through make: each bad value of a
variable is refused with one line, in under two seconds, before any
recipe runs.  The test runs make in a copy of the tree whose scripts
(build.sh, check.sh, bench.sh...) are replaced by a fake that records
that it was reached; with good values the fake is reached, so the test
can tell the two apart."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from makeenv import make_env  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKED = ("build.sh", "check.sh", "bench.sh", "check-series.sh", "check-fixes.sh", "mail.sh",
         "export-debian.sh", "linetraffic.sh", "smoke.sh", "docker-image.sh",
         "check-arches.sh")

# (goal and variables, a word the error line must contain)
BAD = [
    (["bench", "BENCH=nonsense"], "nonsense"),
    (["bench", "ARCH=aarch64"], "qemu-user"),
    (["bench-bundle", "ARCH=aarch64"], "qemu-user"),
    (["sysroot", "ARCH=sparc"], "sparc"),
    (["check", "ARCH=powerpc64le"], "compiled only"),
    (["sysroot", "BASE=9.99"], "9.99"),
    (["check", "STOCK=fedora"], "fedora"),
    (["sysroot", "VARIANTS=stock bogus"], "bogus"),
    (["bench", "VARIANTS=bogus@glibc.pthread.rseq=0"], "bogus"),
    (["check", "SELECTION=/nonexistent/selection"], "SELECTION"),
    (["sysroot", "PATCHES=/nonexistent/series"], "PATCHES"),
    (["sysroot", "GLIBC_SRC=/nonexistent/glibc"], "GLIBC_SRC"),
    (["sysroot", "ISOLATION=vm"], "vm"),
    (["sysroot", "JOBS=many"], "JOBS"),
    (["bench", "BENCH_REPS=0"], "BENCH_REPS"),
    (["bench", "BENCH_SECONDS=two"], "BENCH_SECONDS"),
    (["bench", "BENCH_SECONDS=0.0"], "BENCH_SECONDS"),
    (["bench", "BENCH_THREADS=two"], "BENCH_THREADS"),
    (["bench", "BENCH_THREADS=2,0"], "BENCH_THREADS"),
    (["check-series", "BASE=2.99"], "2.99"),
    (["check-fixes", "BASE=2.99"], "2.99"),
    (["check-fixes", "ARCH=powerpc64le"], "compiled only"),
    (["mail", "BASE=2.99"], "2.99"),
    (["mail", "BZ=no-such-bug=123"], "no-such-bug"),
    (["mail", "BZ=setxid-create-fail-deadlock=soon"], "name=NUMBER"),
    (["export-debian", "SERIES=everything"], "everything"),
]

GOOD = [
    ["sysroot"],
    ["bench", "BENCH=create-join", "BENCH_REPS=21", "BENCH_SECONDS=2"],
    ["bench", "BENCH_SECONDS=.5"],
    ["bench", "BENCH=create-join", "BENCH_THREADS=2,500"],
    ["check", "BASE=2.36"],
    ["sysroot", "ARCH=powerpc64le"],
    ["mail", "BZ=setxid-create-fail-deadlock=30001"],
    ["export-debian", "SERIES=scale"],
]


class PreflightTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="nptl-scale-preflight-")
        for d in ("harness", "bench", "patches"):
            shutil.copytree(os.path.join(TOP, d), os.path.join(cls.dir, d),
                            ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(os.path.join(TOP, "Makefile"), cls.dir)
        cls.marker = os.path.join(cls.dir, "reached")
        for f in FAKED:
            p = os.path.join(cls.dir, "harness", f)
            with open(p, "w") as out:
                out.write('#!/bin/sh\necho "$0 $*" >> %s\nexit 1\n' % cls.marker)
            os.chmod(p, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def make(self, args):
        env = make_env(os.path.join(self.dir, "build"))
        if os.path.exists(self.marker):
            os.unlink(self.marker)
        start = time.monotonic()
        r = subprocess.run(["make", "-C", self.dir, "--no-print-directory"] + args,
                           env=env, capture_output=True, text=True, timeout=60)
        return r, time.monotonic() - start, os.path.exists(self.marker)

    def test_bad_values_refused_before_any_recipe(self):
        for args, word in BAD:
            with self.subTest(args=args):
                r, secs, reached = self.make(args)
                self.assertNotEqual(r.returncode, 0)
                self.assertFalse(reached, "a recipe ran")
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(word, lines[0])
                self.assertLess(secs, 2.0)
                self.assertFalse(os.path.exists(os.path.join(self.dir, "build")))

    def test_good_values_reach_the_recipe(self):
        for args in GOOD:
            with self.subTest(args=args):
                r, _, reached = self.make(args)
                self.assertTrue(reached, r.stderr)


if __name__ == "__main__":
    unittest.main()
