#!/usr/bin/env python3
"""Self-test of the Makefile's own recipes: the targets that act on the
build directory act on $(BUILD).  They are only printed (make -n), never
run; the one recipe run is the test's own echo."""
import os
import subprocess
import unittest
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from makeenv import make_env  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dry_run(target, *args, env_build=None):
    """The commands `make -n TARGET ARGS...` prints, one per line."""
    return make("-n", target, *args, env_build=env_build)


def make(*args, env_build=None):
    """The output of `make ARGS...` in the top directory, one line each."""
    env = make_env(env_build)
    r = subprocess.run(["make", "-C", TOP, "--no-print-directory"] + list(args),
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError("make %s failed: %s" % (" ".join(args), r.stderr))
    return r.stdout.splitlines()


class MakefileTest(unittest.TestCase):
    def test_clean_default(self):
        self.assertEqual(dry_run("clean"),
                         ['rm -rf "%s/build/2.43"' % TOP])

    def test_clean_build_and_base(self):
        self.assertEqual(dry_run("clean", "BUILD=/tmp/x", "BASE=2.36"),
                         ['rm -rf "/tmp/x/2.36"'])

    def test_clean_build_from_environment(self):
        self.assertEqual(dry_run("clean", env_build="/tmp/y"),
                         ['rm -rf "/tmp/y/2.43"'])

    def test_empty_build_is_the_default(self):
        self.assertEqual(dry_run("clean", "BUILD="),
                         ['rm -rf "%s/build/2.43"' % TOP])

    def test_distclean(self):
        self.assertEqual(dry_run("distclean", "BUILD=/tmp/x"), ['rm -rf "/tmp/x"'])

    def test_docker_stop(self):
        out = "\n".join(dry_run("docker-stop", "BUILD=/tmp/x"))
        self.assertIn('p="/tmp/x/docker/dockerd.pid";', out)
        self.assertNotIn(" build/docker", out)

    def test_build_exported_to_the_harness(self):
        # What the scripts see: a recipe of our own, an echo, really run.
        probe = ["--eval", 'print-build: ; @echo "BUILD=$$BUILD"']
        self.assertEqual(make("print-build", *probe), ["BUILD=%s/build" % TOP])
        self.assertEqual(make("print-build", "BUILD=/tmp/x", *probe), ["BUILD=/tmp/x"])

    # make help: the targets' comments with the make variables' values.
    def test_help_expands_variables(self):
        out = make("help", "BUILD=/tmp/x")
        self.assertFalse([l for l in out if "$(" in l], out)
        self.assertIn("  sysroot        build and install stock and patched glibc into "
                      "/tmp/x/2.43/*/root", out)
        self.assertIn("  clean          remove /tmp/x/2.43 (sources and ccache stay cached)", out)
        self.assertIn("  distclean      remove /tmp/x (default build/) entirely", out)

    # STOCK other than the base's default has a directory of its own.
    def test_stock_directories(self):
        self.assertEqual(dry_run("clean", "BUILD=/tmp/x", "STOCK=debian"),
                         ['rm -rf "/tmp/x/2.43-debian"'])
        self.assertEqual(dry_run("clean", "BUILD=/tmp/x", "STOCK=upstream"),
                         ['rm -rf "/tmp/x/2.43"'])
        self.assertEqual(dry_run("clean", "BUILD=/tmp/x", "BASE=2.36", "STOCK=upstream"),
                         ['rm -rf "/tmp/x/2.36-upstream"'])
        out = make("help", "BUILD=/tmp/x", "BASE=2.36")
        self.assertTrue(out[-1].startswith("Variables: BASE=2.36 (2.43|2.36|local), STOCK=debian "),
                        out[-1])

    def test_help_with_glibc_src(self):
        out = make("help", "BUILD=/tmp/x", "GLIBC_SRC=/src/glibc")
        self.assertIn("  clean          remove /tmp/x/local (sources and ccache stay cached)", out)
        self.assertTrue(out[-1].startswith("Variables: BASE=local "), out[-1])

    # A GLIBC_SRC tree is BASE=local unless BASE is given (README).
    def test_glibc_src_base(self):
        probe = ["--eval", 'print-base: ; @echo "BASE=$$BASE"']
        self.assertEqual(make("print-base", *probe), ["BASE=2.43"])
        self.assertEqual(make("print-base", "GLIBC_SRC=/src/glibc", *probe), ["BASE=local"])
        self.assertEqual(make("print-base", "GLIBC_SRC=/src/glibc", "BASE=2.36", *probe),
                         ["BASE=2.36"])
        self.assertEqual(dry_run("clean", "GLIBC_SRC=/src/glibc", "BUILD=/tmp/x"),
                         ['rm -rf "/tmp/x/local"'])

if __name__ == "__main__":
    unittest.main()
