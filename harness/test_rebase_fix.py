#!/usr/bin/env python3
"""Self-test of rebase_fix.py: a fix made on top of an earlier one that
meets it only in a Makefile's test list applies to stock alone once the
earlier fix's lines are out of its context; a conflict in code, or a fix
that removes an earlier fix's line, is left or refused."""
import os
import subprocess
import sys
import tempfile
import unittest

REBASE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "rebase_fix.py")
STOCK_MAKEFILE = """\
tests = \\
  tst-a \\
  tst-d \\
  tst-e \\
  tst-f \\
  # tests

tst-a-ENV = A=1

tst-f-ENV = F=1
"""
STOCK_CODE = "int a;\nint b;\nint c;\n"


def git(d, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], cwd=d, check=True, capture_output=True,
                          text=True).stdout


class RebaseFix(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = os.path.join(self.tmp.name, "repo")
        self.stock = os.path.join(self.tmp.name, "stock")
        for d in (self.repo, self.stock):
            os.makedirs(os.path.join(d, "nptl"))
            self.write(d, "nptl/Makefile", STOCK_MAKEFILE)
            self.write(d, "nptl/code.c", STOCK_CODE)
        git(self.repo, "init", "-q")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-qm", "stock")

    def tearDown(self):
        self.tmp.cleanup()

    @staticmethod
    def write(d, path, text):
        with open(os.path.join(d, path), "w") as f:
            f.write(text)

    def repo_makefile(self):
        with open(os.path.join(self.repo, "nptl/Makefile")) as f:
            return f.read()

    def read(self, path):
        with open(os.path.join(self.stock, path)) as f:
            return f.read()

    def commit(self, name, makefile=None, code=None):
        """Change the repository's files, commit, and write the change as
        a patch file NAME; its path."""
        if makefile is not None:
            self.write(self.repo, "nptl/Makefile", makefile)
        if code is not None:
            self.write(self.repo, "nptl/code.c", code)
        git(self.repo, "commit", "-qam", name)
        path = os.path.join(self.tmp.name, name)
        self.write(self.tmp.name, name,
                   "Subject: [PATCH] %s\n\n---\n" % name
                   + git(self.repo, "show", "--format=", "HEAD"))
        return path

    def rebase(self, fix, *earlier):
        return subprocess.run([sys.executable, REBASE, "--tree", self.stock,
                               fix, *earlier], capture_output=True, text=True)

    def apply(self, patch_text):
        self.write(self.tmp.name, "out.patch", patch_text)
        return subprocess.run(["git", "apply",
                               os.path.join(self.tmp.name, "out.patch")],
                              cwd=self.stock, capture_output=True, text=True,
                              env=dict(os.environ,
                                       GIT_CEILING_DIRECTORIES=self.tmp.name))

    def test_test_list_conflict(self):
        earlier = self.commit("0001", makefile=STOCK_MAKEFILE
                              .replace("  tst-d \\\n",
                                       "  tst-b \\\n  tst-c \\\n  tst-d \\\n")
                              .replace("tst-f-ENV",
                                       "tst-c-ENV = C=1\n\ntst-f-ENV"))
        fix = self.commit("0002", makefile=self.repo_makefile()
            .replace("  tst-c \\\n", "  tst-bb \\\n  tst-c \\\n  tst-cc \\\n")
            .replace("tst-c-ENV = C=1\n",
                     "tst-c-ENV = C=1\n\ntst-cc-ENV = CC=1\n"))
        with open(fix) as f:
            self.assertNotEqual(self.apply(f.read()).returncode, 0,
                                "the fix must not apply alone unchanged")
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nptl/Makefile: ", r.stderr)
        self.assertIn("context lines of earlier fixes dropped", r.stderr)
        a = self.apply(r.stdout)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(self.read("nptl/Makefile"), STOCK_MAKEFILE
                         .replace("  tst-d \\\n",
                                  "  tst-bb \\\n  tst-cc \\\n  tst-d \\\n")
                         .replace("tst-f-ENV", "tst-cc-ENV = CC=1\n\ntst-f-ENV"))

    def test_no_conflict_unchanged(self):
        earlier = self.commit("0001", code=STOCK_CODE + "int d;\n")
        fix = self.commit("0002", makefile=STOCK_MAKEFILE.replace(
            "  tst-e \\\n", "  tst-e \\\n  tst-ee \\\n"))
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        with open(fix) as f:
            self.assertEqual(r.stdout, f.read())

    def test_code_conflict_left(self):
        earlier = self.commit("0001", code=STOCK_CODE.replace(
            "int b;\n", "int b;\nint b2;\n"))
        fix = self.commit("0002", code=STOCK_CODE.replace(
            "int b;\n", "int b;\nint b3;\nint b2;\n"))
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(fix) as f:
            self.assertEqual(r.stdout, f.read())
        self.assertNotEqual(self.apply(r.stdout).returncode, 0)

    def test_removes_earlier_line_refused(self):
        added = STOCK_MAKEFILE.replace("  tst-d \\\n",
                                       "  tst-b \\\n  tst-d \\\n")
        earlier = self.commit("0001", makefile=added)
        fix = self.commit("0002", makefile=STOCK_MAKEFILE)
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 1)
        self.assertIn("0002: nptl/Makefile: the hunk at line", r.stderr)
        self.assertIn("removes a line that 0001 added", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_changed_stock_line_refused(self):
        earlier = self.commit("0001", makefile=STOCK_MAKEFILE.replace(
            "  tst-d \\\n", "  tst-d2 \\\n"))
        fix = self.commit("0002", makefile=self.repo_makefile().replace(
                "  tst-d2 \\\n", "  tst-d2 \\\n  tst-dd \\\n"))
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 1)
        self.assertIn("stock lines that an earlier fix removed or changed", r.stderr)

    def test_inside_earlier_rule_refused(self):
        """A line added inside a rule that an earlier fix added (its
        continuation lines) has no place in stock: refused, not put after
        the nearest stock line."""
        earlier = self.commit("0001", makefile=STOCK_MAKEFILE.replace(
            "tst-f-ENV", "$(objpfx)tst-b.out: \\\n  $(objpfx)b1.so \\\n"
            "  $(objpfx)b2.so\n\ntst-f-ENV"))
        fix = self.commit("0002", makefile=self.repo_makefile().replace(
            "  $(objpfx)b1.so \\\n",
            "  $(objpfx)b1.so \\\n  $(objpfx)b3.so \\\n"))
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("continues a line that 0001 added", r.stderr)

    def test_inside_earlier_conditional_refused(self):
        earlier = self.commit("0001", makefile=STOCK_MAKEFILE.replace(
            "tst-f-ENV", "ifeq ($(x),yes)\ntests += tst-b\nendif\n\ntst-f-ENV"))
        fix = self.commit("0002", makefile=self.repo_makefile().replace(
            "tests += tst-b\n", "tests += tst-b\ntests += tst-c\n"))
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("inside a conditional that 0001 added", r.stderr)

    def test_two_hunks_and_file_start(self):
        """Several hunks of one file, one of them at the file's first line,
        next to the earlier fix's lines: each lands where it belongs."""
        earlier = self.commit("0001", makefile="# top\n" + STOCK_MAKEFILE
                              .replace("tst-f-ENV", "tst-e-ENV = E=1\n\ntst-f-ENV"))
        fix = self.commit("0002", makefile="# first\n" + self.repo_makefile()
                          .replace("tst-e-ENV = E=1\n",
                                   "tst-e-ENV = E=1\n\ntst-ee-ENV = EE=1\n")
                          .replace("  tst-e \\\n", "  tst-e \\\n  tst-ee \\\n"))
        r = self.rebase(fix, earlier)
        self.assertEqual(r.returncode, 0, r.stderr)
        a = self.apply(r.stdout)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(self.read("nptl/Makefile"), "# first\n" + STOCK_MAKEFILE
                         .replace("  tst-e \\\n", "  tst-e \\\n  tst-ee \\\n")
                         .replace("tst-f-ENV", "tst-ee-ENV = EE=1\n\ntst-f-ENV"))

    def test_form_feed_code_passes_unchanged(self):
        """A form feed is part of a line (glibc's sources have them): a fix
        whose code hunk holds one is written back byte for byte."""
        earlier = self.commit("0001", makefile=STOCK_MAKEFILE.replace(
            "  tst-d \\\n", "  tst-c \\\n  tst-d \\\n"))
        fix = self.commit("0002", code=STOCK_CODE.replace(
            "int b;\n", "int b;\n\f\nint b2; /* \xe9 */\n"),
            makefile=self.repo_makefile().replace(
                "  tst-c \\\n", "  tst-c \\\n  tst-cc \\\n"))
        r = subprocess.run([sys.executable, REBASE, "--tree", self.stock,
                            fix, earlier], capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(fix, "rb") as f:
            original = f.read()
        code = original[original.index(b"diff --git a/nptl/code.c"):]
        self.assertIn(code.split(b"diff --git a/nptl/Makefile")[0], r.stdout)


if __name__ == "__main__":
    unittest.main()
