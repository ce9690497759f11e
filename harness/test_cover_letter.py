#!/usr/bin/env python3
"""Self-test of cover_letter.py: the cover letter quotes the comparisons
that were run (make check; make check-full when it was run), says what was
not, and notes a diffstat made without the manual."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COVER = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Subject: [PATCH 0/6] *** SUBJECT HERE ***

*** BLURB HERE ***

A (1):
  nptl: x
"""


def comparison(path, stock, patched, regressions=()):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"stock": {"counts": stock}, "patched": {"counts": patched},
                   "regressions": list(regressions)}, f)


class CoverLetterTest(unittest.TestCase):
    def letter(self, build, *args):
        p = os.path.join(build, "cover.patch")
        with open(p, "w") as f:
            f.write(COVER)
        r = subprocess.run([sys.executable, os.path.join(HERE, "cover_letter.py"), "--base", "2.43",
                            "--label", "2.43 (upstream)", "--build", build,
                            "--results", os.path.join(build, "results"), *args, p],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(p) as f:
            return " ".join(f.read().split())

    def test_quick_only(self):
        with tempfile.TemporaryDirectory() as b:
            comparison(b + "/2.43/check/compare-glibc-patched.json", {"PASS": 511}, {"PASS": 576})
            t = self.letter(b)
            self.assertIn("on glibc 2.43 (upstream)", t)
            self.assertIn("stock: PASS 511 patched: PASS 576 regressions: 0", t)
            self.assertIn("glibc's whole test suite (make check-full).", t)  # not measured
            self.assertIn("nptl-scale's stress and regression suite: not run in this tree", t)
            self.assertNotIn("manual/", t)
            self.assertNotIn("Other targets", t)
            self.assertIn("; other architectures;", t)

    def test_full_and_manual(self):
        with tempfile.TemporaryDirectory() as b:
            comparison(b + "/2.43/check/compare-glibc-patched.json", {"PASS": 511}, {"PASS": 576})
            comparison(b + "/2.43/check-full/compare-glibc-patched.json",
                       {"PASS": 5000, "FAIL": 3}, {"PASS": 5060, "FAIL": 3})
            t = self.letter(b, "--manual-left-out")
            self.assertIn("glibc's whole test suite (make check-full) (", t)
            self.assertIn("stock: FAIL 3, PASS 5000 patched: FAIL 3, PASS 5060 regressions: 0", t)
            self.assertNotIn("glibc's whole test suite (make check-full).", t)
            self.assertIn("The diffstat below leaves out the manual/ hunks", t)

    def test_committed_full(self):
        # No make check-full in the build tree: the newest committed one.
        with tempfile.TemporaryDirectory() as b:
            comparison(b + "/2.43/check/compare-glibc-patched.json", {"PASS": 511}, {"PASS": 576})
            comparison(b + "/results/2.43/2026-11-01-check-full/compare-glibc-patched.json",
                       {"PASS": 1}, {"PASS": 1})
            comparison(b + "/results/2.43/2026-12-01-check-full/compare-glibc-patched.json",
                       {"PASS": 7347, "FAIL": 3}, {"PASS": 7419, "FAIL": 3})
            t = self.letter(b)
            self.assertIn("glibc's whole test suite (make check-full) (2026-12-01, "
                          "results/2.43/2026-12-01-check-full): stock: FAIL 3, PASS 7347 "
                          "patched: FAIL 3, PASS 7419 regressions: 0", t)
            self.assertNotIn("; glibc's whole test suite (make check-full).", t)

    def test_arches(self):
        with tempfile.TemporaryDirectory() as b:
            comparison(b + "/2.43/check/compare-glibc-patched.json", {"PASS": 511}, {"PASS": 576})
            comparison(b + "/2.43-aarch64/check/compare-glibc-patched.json",
                       {"PASS": 500, "FAIL": 2}, {"PASS": 560, "FAIL": 2})
            os.makedirs(b + "/arches/2.43")
            with open(b + "/arches/2.43/summary.txt", "w") as f:
                f.write("aarch64        900s  checked: check: 700 passed, 0 failed\n"
                        "hppa           600s  compiled, 12 warnings on stock, 0 added by the series\n")
            t = self.letter(b)
            self.assertIn("Other targets, built and compared the same way: aarch64 (under qemu-user", t)
            with open(os.path.join(b, "cover.patch")) as f:
                self.assertIn("\n      stock: FAIL 2, PASS 500\n", f.read())
            self.assertIn("stock: FAIL 2, PASS 500 patched: FAIL 2, PASS 560 regressions: 0", t)
            self.assertIn("hppa: compiled, 12 warnings on stock, 0 added by the series", t)
            self.assertNotIn("i686", t)
            self.assertIn("benchmarks on other architectures", t)
            # The emulator that ran the check, named by check.sh, without its path.
            with open(b + "/2.43-aarch64/check/emulator", "w") as f:
                f.write("qemu-aarch64 version 10.0.13 (Debian 1:10.0.13+ds-0+deb13u1) "
                        "(/root/.cache/q/qemu-aarch64), registered with binfmt_misc\n")
            t = self.letter(b)
            self.assertIn("aarch64 (under qemu-aarch64 version 10.0.13 (Debian "
                          "1:10.0.13+ds-0+deb13u1), which has no rseq", t)
            self.assertNotIn("/root/.cache", t)

    def test_private(self):
        # What each patch changes between ld.so and libc.so, from its diff,
        # and the abi results of make check.
        versions = ("diff --git a/elf/Versions b/elf/Versions\n--- a/elf/Versions\n"
                    "+++ b/elf/Versions\n@@ -1,2 +1,3 @@\n     _rtld_global;\n"
                    "+    _dl_new;\n-    _dl_old;\n")
        layout = ("diff --git a/sysdeps/generic/ldsodefs.h b/sysdeps/generic/ldsodefs.h\n"
                  "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ struct rtld_global\n"
                  "-  EXTERN list_t _dl_a;\n+  EXTERN list_t _dl_b;\n")
        comment = ("diff --git a/sysdeps/generic/ldsodefs.h b/sysdeps/generic/ldsodefs.h\n"
                   "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ struct rtld_global\n"
                   "-  /* Old.  */\n+  /* New.  */\n   EXTERN list_t _dl_a;\n")
        tunable = ("diff --git a/sysdeps/nptl/dl-tunables.list b/sysdeps/nptl/dl-tunables.list\n"
                   "--- a/x\n+++ b/x\n@@ -1,1 +1,4 @@\n+    knob {\n+      type: INT_32\n%s"
                   "+    }\n")
        with tempfile.TemporaryDirectory() as b:
            comparison(b + "/2.43/check/compare-glibc-patched.json", {"PASS": 511}, {"PASS": 576})
            for n, diff in enumerate([comment, versions + layout, tunable % "",
                                      tunable % "+      id: last\n"], 1):
                with open("%s/%04d-x.patch" % (b, n), "w") as f:
                    f.write("Subject: x\n---\n" + diff)
            with open(b + "/2.43/check/abi-patched.sum", "w") as f:
                f.write("PASS: abi/pthread_cond_t\nXFAIL: abi/layout/rtld_global: size\n"
                        "PASS: abi/mixed-loader/variant-libc\n")
            t = self.letter(b)
            self.assertIn("1: nothing", t)
            self.assertIn("2: elf/Versions adds _dl_new; elf/Versions removes _dl_old; "
                          "changes the members of struct rtld_global", t)
            self.assertIn("3: adds tunable knob, which can move the IDs", t)
            self.assertIn("4: adds tunable knob after the release's (their IDs stay)", t)
            self.assertIn("XFAIL: abi/layout/rtld_global: size PASS: abi/mixed-loader/variant-libc", t)
            self.assertNotIn("abi/pthread_cond_t", t)
            self.assertIn("Patches that change none of it: 1 (", t)

    def test_parts(self):
        # The fixes thread quotes make check of the fixes variant, no
        # benchmark; the scale thread says what it depends on.
        with tempfile.TemporaryDirectory() as b:
            comparison(b + "/2.43/check/compare-glibc-patched.json", {"PASS": 511}, {"PASS": 576})
            t = self.letter(b, "--part", "fixes")
            self.assertIn("Fix set*id deadlocks in pthread_create", t)
            self.assertIn("not run in this tree (make check VARIANTS=\"stock fixes\")", t)
            self.assertNotIn("PASS 576", t)
            self.assertNotIn("make bench", t)
            self.assertNotIn("figures of each patch", t)
            comparison(b + "/2.43/check/compare-glibc-fixes.json", {"PASS": 511}, {"PASS": 530})
            t = self.letter(b, "--part", "fixes")
            self.assertIn("stock: PASS 511 fixes: PASS 530 regressions: 0", t)
            t = self.letter(b, "--part", "scale", "--fixes-count", "4")
            self.assertIn("Stack cache lock off the create and exit paths", t)
            self.assertIn('depends on the 4 patches of "[PATCH 0/4] nptl: Fix set*id deadlocks', t)
            self.assertIn("PASS 576", t)
            # The committed whole-suite run of the whole series is not the
            # fixes'.
            comparison(b + "/results/2.43/2026-12-01-check-full/compare-glibc-patched.json",
                       {"PASS": 7347}, {"PASS": 7419})
            t = self.letter(b, "--part", "fixes")
            self.assertNotIn("7419", t)
            self.assertIn('make check-full VARIANTS="stock fixes"', t)

    def test_bench(self):
        # The create+join rows with their intervals, and the create
        # latency beside the bare clone's; a thread count without both
        # variants is left out.
        lat = lambda p99, p999, mx: {"create_latency": {
            "n": 1000, "p50_ns": 20000, "p99_ns": p99, "p999_ns": p999, "max_ns": mx}}
        locks = lambda s, t, d: {"lockstat": {  # noqa: E731
            "stack_list": {"acq": s}, "load_tls": {"acq": t}, "default_attr": {"acq": d},
            "shards": {"acq": 1}}}
        row = lambda case, group, n, p, v: {"case": case, "group": group, "threads": n,
                                            "param": p, "variants": v}
        doc = {"machine": {"cores": 2, "cpu": "Xeon", "mem_gib": 24, "kernel": "6.18"},
               "date": "2026-12-07T08:00:00", "reps": 5, "summary": [
                   row("create-join", "create-join", 1, "", {
                       "stock": {"median": 100000}, "patched": {
                           "median": 108000, "ratio": 1.08, "ratio_ci": [1.03, 1.12]},
                       "stock-lockstat": locks(2, 1, 1), "patched-lockstat": locks(0, 0, 0)}),
                   row("create-join", "create-join", 500, "", {
                       "stock": {"median": 20000}, "patched": {
                           "median": 30000, "ratio": 1.5, "ratio_ci": [1.2, 1.9]},
                       "stock-lockstat": locks(2.01, 1, 1),
                       "patched-lockstat": locks(0.004, 0, 0)}),
                   row("create-latency", "create-latency", 500, "empty", {
                       "stock": lat(12100000, 109000000, 365000000),
                       "patched": lat(720000, 27000000, 852000000)}),
                   row("create-latency", "create-latency", 500, "clone", {
                       "stock": lat(2100000, 27000000, 979000000),
                       "patched": lat(1500000, 27000000, 966000000)}),
                   row("create-latency", "create-latency", 40, "empty", {
                       "stock": lat(60000, 2000000, 11000000)})]}
        with tempfile.TemporaryDirectory() as b:
            os.makedirs(b + "/bench/2.43")
            with open(b + "/bench/2.43/results.json", "w") as f:
                json.dump(doc, f)
            t = self.letter(b)
            self.assertIn("2 cores (Xeon), 24 GiB, Linux 6.18; 2026-12-07; 5 repetitions", t)
            self.assertIn("1 threads stock 100000/s patched 108000/s 1.080 [1.030, 1.120]", t)
            self.assertIn("500 threads stock 12 / 109 / 365 patched 0.72 / 27 / 852 "
                          "clone 2.10 / 27 / 979", t)
            self.assertNotIn(" 40 threads stock", t)
            # Global lock acquisitions at the fewest and most creators.
            self.assertIn("with 1 and 500 creators", t)
            self.assertIn("GL (dl_stack_cache_lock) stock 2.00 / 2.01 patched 0.00 / 0.00", t)
            self.assertIn("GL (dl_load_tls_lock) stock 1.00 / 1.00 patched 0.00 / 0.00", t)


if __name__ == "__main__":
    unittest.main()
