#!/usr/bin/env python3
"""Self-test of bug_reports.py: the manifest is read strictly, a test's
files come out of its patch, the stand-alone reproducer keeps glibc's
test semantics (built here with the host's compiler), and a report that
would claim what its run did not show is refused."""
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bug_reports  # noqa: E402

CC = os.environ.get("NPTL_SCALE_CC", "cc")


def patch_creating(files):
    """A git diff that creates FILES (path -> text)."""
    out = []
    for path, text in files.items():
        lines = text.rstrip("\n").split("\n")
        out.append("diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n"
                   "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n%s\n"
                   % (path, path, path, len(lines), "\n".join("+" + l for l in lines)))
    return "Subject: [PATCH 1/2] nptl: Fix x\n\n---\n" + "".join(out)


def test_source(body, extra=""):
    return textwrap.dedent("""\
        /* A test.  */
        #define TIMEOUT 1
        #include <stdio.h>
        #include <support/check.h>
        #include <support/xthread.h>
        #include <support/xunistd.h>
        %s
        static int
        do_test (void)
        {
        %s
          return 0;
        }
        #include <support/test-driver.c>
        """) % (extra, body)


class BugReportsTest(unittest.TestCase):
    def run_source(self, source):
        """Build the stand-alone form of SOURCE and run it: (status, output)."""
        with open(os.path.join(HERE, "reproducer-support.h")) as f:
            support_h = f.read()
        with open(os.path.join(HERE, "reproducer-driver.c")) as f:
            driver_c = f.read()
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "t.c"), "w") as f:
                f.write(bug_reports.standalone(source, support_h, driver_c))
            r = subprocess.run([CC, "-O2", "-pthread", "-Wall", "-Werror", "-o", d + "/t",
                                d + "/t.c"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = subprocess.run([d + "/t"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=20)
            return r.returncode, r.stdout

    def test_semantics(self):
        st, out = self.run_source(test_source("  TEST_COMPARE (1 + 1, 2);\n"
                                              "  TEST_VERIFY (1);"))
        self.assertEqual((st, out.split()[-1]), (0, "PASS"))
        # A failed check goes on, and fails the test at the end.
        st, out = self.run_source(test_source('  TEST_COMPARE (1 + 1, 3);\n  puts ("after");'))
        self.assertEqual(st, 1)
        self.assertIn("1 + 1 == 3: 2 != 3", out)
        self.assertIn("after", out)
        self.assertEqual(out.split()[-1], "FAIL")
        # A failure in a forked child counts, as in glibc's driver.
        st, out = self.run_source(test_source(
            "  pid_t p = xfork ();\n  if (p == 0)\n    {\n      TEST_VERIFY (0);\n"
            "      _exit (0);\n    }\n  int s;\n  xwaitpid (p, &s, 0);", "#include <sys/wait.h>"))
        self.assertEqual(st, 1)
        self.assertIn("not true: 0", out)
        # A hang fails by timeout (TIMEOUT, as glibc's tests set it).
        st, out = self.run_source(test_source("  pause ();", "#include <unistd.h>"))
        self.assertEqual(st, 1)
        self.assertIn("timed out", out)
        st, out = self.run_source(test_source('  FAIL_UNSUPPORTED ("no %s", "x");'))
        self.assertEqual(st, 77)
        # glibc's TEST_COMPARE compares the signs too.
        st, out = self.run_source(test_source("  TEST_COMPARE ((unsigned long) -1, -1);"))
        self.assertEqual(st, 1)
        # A failure that ends a child whose status nobody reads, or a
        # test that exits 0 after a failure, still fails the test.
        st, out = self.run_source(test_source(
            '  if (xfork () == 0)\n    FAIL_EXIT1 ("in the child");\n  wait (NULL);',
            "#include <sys/wait.h>"))
        self.assertEqual((st, out.split()[-1]), (1, "FAIL"))
        st, out = self.run_source(test_source("  TEST_VERIFY (0);\n  exit (0);"))
        self.assertEqual(st, 1)
        # A hung child does not hold the reproducer past its timeout.
        t0 = time.monotonic()
        st, out = self.run_source(test_source(
            "  if (xfork () == 0)\n    pause ();\n  pause ();"))
        self.assertEqual(st, 1)
        self.assertLess(time.monotonic() - t0, 15)
        # The x* wrappers end the test when the call fails.
        st, out = self.run_source(test_source(
            "  pthread_attr_t a;\n  xpthread_attr_init (&a);\n"
            "  xpthread_attr_setstacksize (&a, 1);"))
        self.assertEqual(st, 1)
        self.assertIn("pthread_attr_setstacksize", out)

    def test_manifest_errors(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "bugs")
            with open(p, "w") as f:
                f.write("Name: a\nPatch: 0001-x.patch\nComponent: nptl\nSummary: s\n"
                        "Test: nptl/tst-a\nObserved: it hangs\n  for good\nExpected: no\n\n"
                        "Name: b\nSummary: s\n")
            with self.assertRaisesRegex(ValueError, "bug b lacks Patch, Component"):
                bug_reports.read_bugs(p)
            with open(p, "w") as f:
                f.write("Name: a\nColour: red\n")
            with self.assertRaisesRegex(ValueError, "bugs:2: not a field"):
                bug_reports.read_bugs(p)
            with open(p, "w") as f:
                f.write("# c\nName: a\nPatch: 0001-x.patch\nComponent: nptl\nSummary: s\n"
                        "Test: nptl/tst-a\nObserved: it hangs\n  for good\nExpected: no\n")
            (b,) = bug_reports.read_bugs(p)
            self.assertEqual(b["Observed"], "it hangs\nfor good")

    def generate(self, d, body, *runs, extra=()):
        series = os.path.join(d, "series")
        os.makedirs(series)
        with open(os.path.join(series, "0001-nptl-Fix-x.patch"), "w") as f:
            f.write(patch_creating({"nptl/tst-x.c": test_source(body),
                                    "nptl/other.c": "int x;\n"}))
        with open(os.path.join(d, "bugs"), "w") as f:
            f.write("Name: x-bug\nPatch: 0001-nptl-Fix-x.patch\nComponent: nptl\n"
                    "Summary: x breaks\nTest: nptl/tst-x\nObserved: x breaks.\nExpected: not.\n")
        mails = os.path.join(d, "mails")
        os.makedirs(mails)
        with open(os.path.join(mails, "0003-nptl-Fix-x.patch"), "w") as f:
            f.write("From: a\nSubject: [PATCH 3/4] nptl: Fix\n x\n\nbody\n")
        out = os.path.join(d, "out")
        r = subprocess.run([sys.executable, os.path.join(HERE, "bug_reports.py"),
                            "--bugs", d + "/bugs", "--series-dir", series, "--mails", mails,
                            "--label", "2.43 (upstream)", "--bz", "x-bug=12345"]
                           + ["--run=%s=%s" % (n, CC) for n in runs] + list(extra)
                           + ([] if "--results" in extra else [out]),
                           capture_output=True, text=True)
        text = None
        if os.path.exists(out + "/x-bug.txt"):
            with open(out + "/x-bug.txt") as f:
                text = f.read()
        return r, text

    def test_report(self):
        with tempfile.TemporaryDirectory() as d:
            # "stock" here is the host's glibc, where this test fails.
            r, text = self.generate(d, "  TEST_COMPARE (2, 3);", "stock")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("Version:    2.43\n", text)
            self.assertIn("BZ #12345", text)
            self.assertIn("[PATCH 3/4] nptl: Fix x", text)
            self.assertIn("glibc 2.43 (upstream) on x86_64-linux-gnu, stock: exit 1, FAIL", text)
            self.assertEqual(text.count("#define _GNU_SOURCE"), 1)
            self.assertIn("--- tst-x.c ---", text)
            self.assertNotIn("<support/", text)
            self.assertNotIn("other.c", text)
        with tempfile.TemporaryDirectory() as d:
            # A reproducer that passes on stock is no reproducer.
            r, _ = self.generate(d, "  TEST_COMPARE (2, 2);", "stock")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("x-bug: the reproducer passed with stock", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            # Nor one that fails with the fix.
            r, _ = self.generate(d, "  TEST_COMPARE (2, 3);", "stock", "fixes")
            self.assertIn("x-bug: the reproducer failed with fixes", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            # A deadlock on stock, ended by the timeout, reproduces the bug.
            r, text = self.generate(d, "  pause ();", "stock")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("stock: exit 1, FAIL: timed out", text)
        with tempfile.TemporaryDirectory() as d:
            # UNSUPPORTED on stock reproduces nothing.
            r, _ = self.generate(d, '  FAIL_UNSUPPORTED ("no");', "stock")
            self.assertIn("x-bug: the reproducer could not run with stock: exit 77", r.stderr)

    def test_results(self):
        # make check-fixes: a line per run, no report; --unfixed must fail.
        with tempfile.TemporaryDirectory() as d:
            r, text = self.generate(d, "  TEST_COMPARE (2, 3);",
                                    extra=("--results", "--unfixed=before=" + CC))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIsNone(text)
            self.assertRegex(r.stdout, r"^x-bug\tbefore\tfail\texit 1, FAIL")
        with tempfile.TemporaryDirectory() as d:
            r, _ = self.generate(d, "  TEST_COMPARE (2, 2);",
                                 extra=("--results", "--unfixed=before=" + CC))
            self.assertIn("x-bug: the reproducer passed with before", r.stderr)
            self.assertRegex(r.stdout, r"^x-bug\tbefore\tpass")
        with tempfile.TemporaryDirectory() as d:
            # --patch keeps only that patch's bugs: none here.
            r, _ = self.generate(d, "  TEST_COMPARE (2, 2);",
                                 extra=("--results", "--patch", "0002-other.patch",
                                        "--unfixed=before=" + CC))
            self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        with tempfile.TemporaryDirectory() as d:
            # --unfixed only in --results: a report would call it "with the fix".
            r, _ = self.generate(d, "  TEST_COMPARE (2, 3);", extra=("--unfixed=x=" + CC,))
            self.assertIn("--unfixed goes with --results", r.stderr)


if __name__ == "__main__":
    unittest.main()
