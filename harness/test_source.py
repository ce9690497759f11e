#!/usr/bin/env python3
"""Self-test of a GLIBC_SRC build's naming: the version comes from the
tree's version.h, the layout is $BUILD/local (BASE=local unless BASE is
given), and the series is the one of the release the tree leads to.  Uses
a fake tree (version.h, nptl/, configure) and harness/fetch-source.sh,
which only copies it; nothing is built."""
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class GlibcSrcTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nptl-scale-src.")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def tree(self, version, name="glibc"):
        d = os.path.join(self.tmp, name)
        os.makedirs(d + "/nptl")
        with open(d + "/version.h", "w") as f:
            f.write('/* This file just defines the current version number of libc.  */\n'
                    '#define RELEASE "development"\n#define VERSION "%s"\n' % version)
        with open(d + "/configure", "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(d + "/configure", 0o755)
        return d

    def sh(self, script, **env):
        e = {k: v for k, v in os.environ.items()
             if k not in ("BASE", "GLIBC_SRC", "PATCHES", "MAKEFLAGS")}
        e.update(BUILD=self.tmp + "/build", NPTL_SCALE_CACHE=self.tmp + "/cache")
        e.update(env)
        r = subprocess.run(["bash", "-c", ". %s/harness/lib.sh; %s" % (TOP, script)],
                           env=e, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()

    NAMES = 'echo "$BASE"; glibc_version; glibc_label; series_base; patch_dir'

    def test_development_tree(self):
        src = self.tree("2.42.9000")
        self.assertEqual(self.sh(self.NAMES, GLIBC_SRC=src),
                         ["local", "2.42.9000", "2.42.9000 (BASE=local)", "2.43",
                          TOP + "/patches/glibc-2.43"])

    def test_release_tarball_with_base_given(self):
        src = self.tree("2.36", "glibc-2.36")
        tgz = self.tmp + "/glibc-2.36.tar.gz"
        with tarfile.open(tgz, "w:gz") as t:
            t.add(src, "glibc-2.36")
        self.assertEqual(self.sh(self.NAMES, GLIBC_SRC=tgz, BASE="mine"),
                         ["mine", "2.36", "2.36 (BASE=mine)", "2.36", TOP + "/patches/glibc-2.36"])

    def test_debian_bases_unchanged(self):
        self.assertEqual(self.sh(self.NAMES, BASE="2.36"),
                         ["2.36", "2.36", "2.36 (Debian)", "2.36", TOP + "/patches/glibc-2.36"])

    # Which stock: upstream for 2.43 and Debian's for 2.36 by default;
    # the other one in a directory of its own; a GLIBC_SRC tree is local.
    def test_stock(self):
        names = 'stock_kind; base_key; glibc_label'
        self.assertEqual(self.sh(names), ["upstream", "2.43", "2.43 (upstream)"])
        self.assertEqual(self.sh(names, STOCK="debian"), ["debian", "2.43-debian", "2.43 (Debian)"])
        self.assertEqual(self.sh(names, BASE="2.36"), ["debian", "2.36", "2.36 (Debian)"])
        self.assertEqual(self.sh(names, BASE="2.36", STOCK="upstream"),
                         ["upstream", "2.36-upstream", "2.36 (upstream)"])
        src = self.tree("2.42.9000")
        self.assertEqual(self.sh(names, GLIBC_SRC=src, STOCK="debian"),
                         ["local", "local", "2.42.9000 (BASE=local)"])

    def test_unknown_stock(self):
        e = {k: v for k, v in os.environ.items() if k not in ("BASE", "GLIBC_SRC", "MAKEFLAGS")}
        e.update(BUILD=self.tmp + "/build", NPTL_SCALE_CACHE=self.tmp + "/cache", STOCK="fedora")
        r = subprocess.run([TOP + "/harness/fetch-source.sh"], env=e, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.strip().splitlines(),
                         ["fetch-source.sh: error: unknown STOCK 'fedora' (known: upstream, debian)"])
        self.assertFalse(os.path.exists(self.tmp + "/build/2.43-fedora"))

    def test_fetch_lays_out_under_local(self):
        src = self.tree("2.42.9000")
        e = {k: v for k, v in os.environ.items() if k not in ("BASE", "MAKEFLAGS")}
        e.update(BUILD=self.tmp + "/build", GLIBC_SRC=src, NPTL_SCALE_CACHE=self.tmp + "/cache")
        r = subprocess.run([TOP + "/harness/fetch-source.sh"], env=e, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The tree has no manual/: the build needs manual/Makefile, a stub.
        self.assertIn("source: local: %s, with a stub manual/Makefile, glibc 2.42.9000" % src,
                      r.stderr)
        tar = self.tmp + "/build/local/source/glibc.tar"
        with tarfile.open(tar) as t:
            self.assertIn("include ../Rules",
                          t.extractfile("glibc/manual/Makefile").read().decode())
        # A second fetch reuses it.
        r = subprocess.run([TOP + "/harness/fetch-source.sh"], env=e, capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertFalse(os.path.exists(self.tmp + "/build/2.43"))
        # Once fetched, the version is read from the tarball.
        shutil.rmtree(src)
        self.assertEqual(self.sh("glibc_label", GLIBC_SRC=src), ["2.42.9000 (BASE=local)"])


if __name__ == "__main__":
    unittest.main()
