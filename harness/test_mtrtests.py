#!/usr/bin/env python3
"""Self-test of mtrtests.py: mtr's output read into .sum results, and the
server's wrapper (no MariaDB needed)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mtrtests  # noqa: E402

OUTPUT = """\
worker[01] Using MTR_BUILD_THREAD 300, with reserved ports 19000..19029
innodb.deadlock_detect 'ON'              w1 [ pass ]    119
innodb.deadlock_detect 'OFF'             w2 [ pass ]   1164
main.lock                                w1 [ pass ]    279
main.kill                                w2 [ fail ]
main.kill                                w2 [ retry-pass ]    797
main.flush                               [ skipped ]  Requires debug build
main.mdl                                 w1 [ fail ]  timeout after 300 seconds
main.mdl                                 w1 [ retry-fail ]
main.other                               w1 [ pass ]    1
"""


class Parse(unittest.TestCase):
    def test_results(self):
        tests = ["innodb.deadlock_detect", "main.lock", "main.kill", "main.flush",
                 "main.mdl", "main.connect"]
        r = mtrtests.parse(OUTPUT, tests)
        self.assertEqual(r["innodb.deadlock_detect/ON"], ("PASS", ""))
        self.assertEqual(r["innodb.deadlock_detect/OFF"], ("PASS", ""))
        self.assertEqual(r["main.lock"], ("PASS", ""))
        # Passed on mtr's retry: listed as such, not silenced.
        self.assertEqual(r["main.kill"], ("FLAKY", ""))
        self.assertEqual(r["main.flush"], ("UNSUPPORTED", "Requires debug build"))
        self.assertEqual(r["main.mdl"][0], "FAIL")
        # A test asked for and never reported (mtr stopped) fails.
        self.assertEqual(r["main.connect"][0], "FAIL")
        # Only the tests asked for.
        self.assertNotIn("main.other", r)
        self.assertNotIn("innodb.deadlock_detect", r)


class Wrapper(unittest.TestCase):
    def test_basedir(self):
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, "tree")
            os.makedirs(os.path.join(tree, "usr", "bin"))
            os.makedirs(os.path.join(tree, "usr", "share", "mysql", "mysql-test"))
            os.makedirs(os.path.join(tree, "usr", "lib"))
            open(os.path.join(tree, "usr", "bin", "mariadb-test"), "w").close()
            base = mtrtests.basedir(tree, "/sysroot/bin/run", "/usr/sbin/mariadbd",
                                    "glibc.pthread.cond_legacy=1", os.path.join(d, "base"))
            with open(os.path.join(base, "sbin", "mariadbd")) as f:
                text = f.read()
            # The server, and only the server, runs on the sysroot, with the tunables.
            self.assertIn('exec /sysroot/bin/run /usr/sbin/mariadbd "$@"', text)
            self.assertIn("GLIBC_TUNABLES=glibc.pthread.cond_legacy=1; export", text)
            self.assertTrue(os.path.islink(os.path.join(base, "bin", "mariadb-test")))
            self.assertTrue(os.path.isdir(os.path.join(base, "mysql-test")))
            base = mtrtests.basedir(tree, "/r", "/s", None, os.path.join(d, "base2"))
            with open(os.path.join(base, "sbin", "mariadbd")) as f:
                self.assertNotIn("GLIBC_TUNABLES", f.read())

    def test_server_libc(self):
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run")
            root = os.path.join(d, "root", "lib64")
            os.makedirs(root)
            for libc, ok in (("/lib/x86_64-linux-gnu/libc.so.6", False),
                             (root + "/libc.so.6", True)):
                # A bin/run as build.sh writes it, whose ld.so --list says LIBC.
                with open(run, "w") as f:
                    f.write('#!/bin/sh\n# exec "ld.so" --library-path "%s:%s/usr" "$@"\n'
                            'echo "\tlibc.so.6 => %s (0x1)"\n' % (root, d, libc))
                os.chmod(run, 0o755)
                why = mtrtests.server_libc(run, "/usr/sbin/mariadbd")
                if ok:
                    self.assertIsNone(why)
                else:
                    self.assertIn("not the sysroot's", why)


if __name__ == "__main__":
    unittest.main()
