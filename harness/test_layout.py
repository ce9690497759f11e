#!/usr/bin/env python3
"""Self-test of the one home of variants and layout: harness/lib.sh's
variants, sysroot_of and variant_dir, and what reads them (the Makefile's
default VARIANTS, bench/run.py's Python twin of variant_dir)."""
import os
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench"))
sys.path.insert(0, os.path.join(TOP, "harness"))
import run  # noqa: E402  (bench/run.py)
from makeenv import make_env  # noqa: E402


def lib(*words, build="/b", base="2.43", arch="x86_64"):
    """What `. harness/lib.sh; WORDS` prints, one line each."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GLIBC_SRC", "CHECK_OUT", "STOCK")}
    env.update(BUILD=build, BASE=base, ARCH=arch)
    r = subprocess.run(["bash", "-c", '. harness/lib.sh && "$@"', "-"] + list(words),
                       cwd=TOP, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError("%s: %s" % (" ".join(words), r.stderr))
    return r.stdout.splitlines()


class LayoutTest(unittest.TestCase):
    def test_variant_dir(self):
        self.assertEqual(lib("variant_dir", "patched"), ["/b/2.43/patched"])
        self.assertEqual(lib("variant_dir", "stock", "cc"), ["/b/2.43/stock/bin/cc"])
        self.assertEqual(lib("variant_dir", "stock", "root", base="2.36"),
                         ["/b/2.36/stock/root"])
        self.assertEqual(lib("base_dir", "check"), ["/b/2.43/check"])
        with self.assertRaises(AssertionError):
            lib("variant_dir", "stock", "nope")

    def test_arch(self):
        # Another target: its own directories, the one source of the base,
        # its own known failures; x86_64 keeps the plain layout.
        self.assertEqual(lib("variant_dir", "patched", "root", arch="aarch64"),
                         ["/b/2.43-aarch64/patched/root"])
        self.assertEqual(lib("base_dir", "check", arch="i686", base="2.36"),
                         ["/b/2.36-i686/check"])
        for arch in ("x86_64", "aarch64"):
            self.assertEqual(lib("source_dir", arch=arch), ["/b/2.43/source"])
        self.assertEqual(lib("known_failures", arch="aarch64"),
                         [os.path.join(TOP, "harness/known-failures/2.43-aarch64")])
        self.assertEqual(lib("known_failures"), [os.path.join(TOP, "harness/known-failures/2.43")])
        for arch in ("aarch64", "i686"):
            for base in ("2.43", "2.36"):
                self.assertTrue(os.path.exists(lib("known_failures", arch=arch, base=base)[0]))
        self.assertEqual(lib("arch_tool", "gcc", arch="hppa"), ["hppa-linux-gnu-gcc"])
        self.assertEqual(lib("glibc_label", arch="aarch64"), ["2.43 (upstream, aarch64)"])
        self.assertEqual(lib("glibc_label", arch="i686", base="2.36"), ["2.36 (Debian, i686)"])
        self.assertEqual(lib("glibc_label"), ["2.43 (upstream)"])
        self.assertEqual(lib("check_arch", "run", arch="i686"), [])
        self.assertEqual(lib("check_arch", arch="riscv64"), [])
        with self.assertRaisesRegex(AssertionError, "unknown ARCH 'sparc'"):
            lib("check_arch", arch="sparc")
        with self.assertRaisesRegex(AssertionError, "ARCH=s390x is compiled only"):
            lib("check_arch", "run", arch="s390x")

    def test_python_twin_agrees(self):
        # Every part run.py knows, for a sysroot and for SYSROOT@TUNABLES.
        for v in ("stock", "patched@cond_legacy=1:glibc.pthread.rseq=0"):
            for part in [None] + sorted(run.PARTS):
                with self.subTest(variant=v, part=part):
                    self.assertEqual(
                        lib("variant_dir", v, *([part] if part else [])),
                        [run.variant_dir("/b/2.43", v, part)])

    def test_sysroot_of(self):
        for v in ("patched", "patched@cond_legacy=1", "padded@a=1:b=2"):
            self.assertEqual(lib("sysroot_of", v), [run.sysroot(v)])

    def test_variants(self):
        self.assertEqual(lib("eval", 'echo "$DEFAULT_VARIANTS"'), ["stock patched"])
        self.assertEqual(lib("compared_variants"), ["stock patched"])
        self.assertEqual(lib("compared_variants", "padded"), ["stock padded"])
        self.assertEqual(lib("compared_variants", "patched", "patched@x=1"),
                         ["stock patched patched@x=1"])
        self.assertEqual(lib("compared_variants", "patched", "stock"), ["patched stock"])

    def test_makefile_default_is_lib_sh(self):
        env = make_env()
        out = subprocess.run(["make", "-s", "-C", TOP, "--no-print-directory", "-n", "check"],
                             env=env, capture_output=True, text=True).stdout
        self.assertEqual(out.splitlines()[-1], "harness/check.sh stock patched")

    def test_bench_adds_the_lock_counting_variants(self):
        # Where the series has them (2.43) and BENCH runs create+join or
        # the seed cases; a named VARIANTS stays as named.
        env = make_env()
        inst = "harness/bench.sh stock patched stock-lockstat patched-lockstat"
        plain = "harness/bench.sh stock patched"
        for args, want in ((["BASE=2.43"], inst), (["BASE=2.43", "BENCH=seed"], inst),
                           (["BASE=2.43", "BENCH=condvar,create-join"], inst),
                           (["BASE=2.43", "BENCH=quick"], plain),
                           (["BASE=2.43", "BENCH_THREADS=32"], plain),
                           (["BASE=2.43", "BENCH=condvar"], plain),
                           (["BASE=2.43", "VARIANTS=stock patched"], plain),
                           (["BASE=2.36"], plain)):
            with self.subTest(args=args):
                out = subprocess.run(["make", "-s", "-C", TOP, "--no-print-directory",
                                      "-n", "bench"] + args,
                                     env=env, capture_output=True, text=True).stdout
                self.assertEqual([l for l in out.splitlines()
                                  if l.startswith("harness/bench.sh")], [want], out)
        # Only the benchmarks build and run them: not make check, named
        # beside bench.
        out = subprocess.run(["make", "-s", "-C", TOP, "--no-print-directory", "-n",
                              "check", "bench", "BASE=2.43"],
                             env=env, capture_output=True, text=True).stdout.splitlines()
        self.assertIn("harness/check.sh stock patched", out)
        self.assertIn("ARCH_NEED=run harness/build.sh stock-lockstat patched-lockstat", out)
        self.assertIn(inst, out)


def env_sh(script):
    """Run SCRIPT in bash with harness/lib.sh and harness/env.sh sourced."""
    return subprocess.run(["bash", "-c",
                           ". harness/lib.sh && . harness/env.sh && " + script],
                          cwd=TOP, capture_output=True, text=True,
                          env=dict(os.environ, BUILD="/tmp/nptl-scale-test-build"))


class InEnvTest(unittest.TestCase):
    def test_no_inherited_fds(self):
        # A descriptor the harness was started with (7 here) does not
        # reach what in_env runs on the host; without in_env it does.
        probe = "sh -c '[ -e /proc/$$/fd/7 ] && echo inherited || echo closed'"
        for how, want in (("in_env / " + probe, "closed"), (probe, "inherited")):
            r = env_sh("ISOLATION=none && %s 7</dev/null" % how)
            self.assertEqual((r.returncode, r.stdout.strip()), (0, want), r.stderr)

    def test_data_limit_reaches_the_container(self):
        # check.sh limits emulated tests' data; a container would otherwise
        # start with dockerd's limits.  docker is a function here that
        # prints its arguments.
        for limit, want in (("8388608", True), ("unlimited", False)):
            r = env_sh("ISOLATION=docker IMAGE=img && docker () { printf '%%s\\n' \"$@\"; } "
                       "&& ulimit -S -d %s && in_env / true" % limit)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual("data=%d" % (8 << 30) in r.stdout.splitlines(), want, r.stdout)


if __name__ == "__main__":
    unittest.main()
