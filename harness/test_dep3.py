#!/usr/bin/env python3
"""Self-test of dep3.py: a git format-patch file becomes a quilt patch
with DEP-3 headers, and the series lines are written in order."""
import os
import subprocess
import sys
import tempfile
import unittest

DEP3 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dep3.py")
PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: nptl-scale <unsent@invalid>
Date: Mon, 30 Nov 2026 01:16:16 +0000
Subject: [PATCH 2/5] nptl: Do a thing that needs a
 long subject

First paragraph.

Second paragraph.
---
 nptl/a.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/nptl/a.c b/nptl/a.c
index 1111111..2222222 100644
--- a/nptl/a.c
+++ b/nptl/a.c
@@ -1 +1,2 @@
 x
+y
-- 
2.39.5

"""


def dep3(d, name, text):
    """dep3.py on a series of one patch NAME (TEXT) in D/patches/glibc-2.36;
    its output directory and result."""
    sd = os.path.join(d, "patches", "glibc-2.36")
    os.makedirs(sd)
    with open(os.path.join(sd, name), "w") as f:
        f.write(text)
    with open(os.path.join(sd, "series"), "w") as f:
        f.write("# comment\n%s\n" % name)
    out = os.path.join(d, "out")
    return out, subprocess.run([sys.executable, DEP3, os.path.join(sd, "series"), out],
                               capture_output=True, text=True)


class Dep3Test(unittest.TestCase):
    def test_headers_and_series(self):
        with tempfile.TemporaryDirectory() as d:
            out, r = dep3(d, "0002-nptl-Do-a-thing.patch", PATCH)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "series")) as f:
                self.assertEqual(f.read(), "nptl-scale/0002-nptl-Do-a-thing.diff\n")
            with open(os.path.join(out, "nptl-scale", "0002-nptl-Do-a-thing.diff")) as f:
                text = f.read()
            self.assertEqual(text.split("\n---\n")[0].split("\n"), [
                "Description: nptl: Do a thing that needs a long subject",
                " First paragraph.",
                " .",
                " Second paragraph.",
                "Origin: other, nptl-scale (patches/glibc-2.36/0002-nptl-Do-a-thing.patch)",
                "Forwarded: no",
                "Last-Update: 2026-11-30"])
            self.assertTrue(text.endswith(" x\n+y\n"), text[-40:])

    def test_manual_left_out(self):
        manual = ("diff --git a/manual/t.texi b/manual/t.texi\n"
                  "index 3333333..4444444 100644\n--- a/manual/t.texi\n+++ b/manual/t.texi\n"
                  "@@ -1 +1,2 @@\n m\n+n\n")
        patch = PATCH.replace("diff --git a/nptl/a.c", manual + "diff --git a/nptl/a.c")
        patch = patch.replace("+y\n-- ", "+y\n" + manual.replace("t.texi", "u.texi") + "-- ")
        with tempfile.TemporaryDirectory() as d:
            out, r = dep3(d, "p.patch", patch)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "nptl-scale", "p.diff")) as f:
                head, _, diff = f.read().partition("\n---\n")
            self.assertNotIn("manual/", diff)
            self.assertEqual(diff.count("diff --git"), 1)
            self.assertTrue(diff.endswith(" x\n+y\n"), diff[-40:])
            self.assertIn(" The manual/ part of the change is left out", head)

    def test_not_a_patch(self):
        with tempfile.TemporaryDirectory() as d:
            _, r = dep3(d, "p.patch", "Subject: x\nDate: Mon, 30 Nov 2026 01:16:16 +0000\n\nno diff\n")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("not a git format-patch file", r.stderr)


if __name__ == "__main__":
    unittest.main()
