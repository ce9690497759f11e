#!/usr/bin/env python3
"""Self-test of README.md and docs/: every relative link resolves to a
file or directory of the tree, and every `make TARGET` they name is a
target of the Makefile (make -n TARGET succeeds)."""
import glob
import os
import re
import subprocess
import tempfile
import unittest
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from makeenv import make_env  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"\]\(([^)\s]+)\)")
MAKE = re.compile(r"`make ([a-z][a-z-]*)")


def pages():
    return [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))


class DocsTest(unittest.TestCase):
    def test_relative_links_resolve(self):
        for page in pages():
            with open(page) as f:
                text = f.read()
            for target in LINK.findall(text):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                path = os.path.normpath(os.path.join(os.path.dirname(page),
                                                     target.split("#", 1)[0]))
                with self.subTest(page=os.path.relpath(page, TOP), link=target):
                    self.assertTrue(os.path.exists(path), path)

    def test_named_make_targets_exist(self):
        targets = set()
        for page in pages():
            with open(page) as f:
                targets.update(MAKE.findall(f.read()))
        self.assertIn("check", targets)
        with tempfile.TemporaryDirectory() as build:
            env = make_env(build)
            for t in sorted(targets):
                with self.subTest(target=t):
                    r = subprocess.run(["make", "-C", TOP, "-n", t], env=env,
                                       capture_output=True, text=True)
                    self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
