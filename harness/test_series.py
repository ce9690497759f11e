#!/usr/bin/env python3
"""Self-test of the committed series (patches/glibc-*): each patch's
commit message is in upstream's form (no harness internals, a "Tested on"
paragraph, the placeholder From: that make mail replaces), the fixes
series is the start of the whole series, and each bug of the bugs file
names a fix of that series and a test that its patch creates."""
import glob
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bug_reports  # noqa: E402

PLACEHOLDER = "From: nptl-scale <unsent@invalid>"
# What a commit message for libc-alpha does not mention: our harness, its
# targets and files.
INTERNAL = re.compile(r"nptl-scale|make (check|bench|mail|sysroot|linetraffic)|check-series|check-fixes|"
                      r"check-full|DejaGnu|results/|harness/|bench/|testsuite/|BASE=")


def series(d, name="series"):
    with open(os.path.join(d, name)) as f:
        return [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]


def message(text):
    """The commit message of a git format-patch file: after the header,
    up to the --- line."""
    body = text.split("\n\n", 1)[1]
    return body.split("\n---\n", 1)[0]


class SeriesTest(unittest.TestCase):
    def test_messages(self):
        for d in glob.glob(os.path.join(TOP, "patches", "glibc-*")):
            for name in series(d):
                with open(os.path.join(d, name)) as f:
                    text = f.read()
                where = os.path.relpath(os.path.join(d, name), TOP)
                self.assertIn("\n" + PLACEHOLDER + "\n", "\n" + text.split("\n\n")[0] + "\n", where)
                msg = message(text)
                m = INTERNAL.search(msg)
                self.assertIsNone(m, "%s: the message mentions %r" % (where, m and m.group(0)))
                last = msg.rstrip("\n").split("\n\n")[-1]
                self.assertTrue(last.startswith("Tested on "),
                                "%s: the message does not end with a Tested on paragraph" % where)

    def test_fixes_and_bugs(self):
        for d in glob.glob(os.path.join(TOP, "patches", "glibc-*")):
            if not os.path.exists(os.path.join(d, "series.fixes")):
                continue
            whole, fixes = series(d), series(d, "series.fixes")
            self.assertTrue(fixes, d)
            self.assertEqual(whole[:len(fixes)], fixes, "%s: series.fixes is not the start of series" % d)
            for bug in bug_reports.read_bugs(os.path.join(d, "bugs")):
                self.assertIn(bug["Patch"], fixes, "%s: bug %s" % (d, bug["Name"]))
                with open(os.path.join(d, bug["Patch"])) as f:
                    created = bug_reports.new_files(f.read())
                self.assertIn(bug["Test"] + ".c", created, "%s: bug %s" % (d, bug["Name"]))
                for m in bug.get("Modules", "").split():
                    self.assertIn(os.path.dirname(bug["Test"]) + "/" + m + ".c", created)


if __name__ == "__main__":
    unittest.main()
