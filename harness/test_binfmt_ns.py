"""Tests of harness/binfmt-ns.py: an emulator registered in a namespace."""

import os
import signal
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "binfmt-ns.py")
# The ELF header of an aarch64 executable, up to e_machine (as binfmt_misc
# matches it), padded to a plausible size.
AARCH64_ELF = (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\xb7\x00"
               + b"\x00" * 44)


def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True)


class BinfmtNs(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.prog = os.path.join(self.dir, "prog")
        with open(self.prog, "wb") as f:
            f.write(AARCH64_ELF)
        os.chmod(self.prog, 0o755)
        # The "emulator": prints what the kernel passed it.
        self.emu = os.path.join(self.dir, "emu")
        with open(self.emu, "w") as f:
            f.write('#!/bin/sh\necho "emulated: $*"\n')
        os.chmod(self.emu, 0o755)
        # A kernel before 6.7, or a sandbox without user namespaces: the
        # tool says so (the harness then needs QEMU=binfmt); nothing more
        # to test here.  Any other failure is the tool's, and fails below.
        probe = run("aarch64", self.emu, "true")
        if any(why in probe.stderr for why in (
                "error: unshare", "cannot write the ID maps",
                "cannot mount a binfmt_misc", "mount --make-rprivate")):
            self.skipTest(probe.stderr.strip())

    def test_program_runs_through_the_registered_emulator(self):
        r = run("aarch64", self.emu, self.prog, "a", "b")
        self.assertEqual(r.returncode, 0, r.stderr)
        # The kernel hands the emulator the program's path; P: then argv[0]
        # as given, then the arguments.
        self.assertEqual(r.stdout, "emulated: %s %s a b\n" % (self.prog, self.prog))

    def test_machine_registrations_are_left_alone(self):
        # "Outside" is wherever this test runs: the machine, or the
        # namespace of a make check of an emulated target.
        def registrations():
            d = "/proc/sys/fs/binfmt_misc"
            entries = {}
            for e in os.listdir(d) if os.path.isdir(d) else ():
                if e not in ("register", "status"):
                    with open(os.path.join(d, e)) as f:
                        entries[e] = f.read()
            return entries
        before = registrations()
        r = run("aarch64", self.emu, "sh", "-c", "ls /proc/sys/fs/binfmt_misc")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.split()),
                         ["nptl-scale-aarch64", "register", "status"])
        self.assertEqual(registrations(), before)

    def test_exit_status_signals_and_ids(self):
        self.assertEqual(run("aarch64", self.emu, "sh", "-c", "exit 7").returncode, 7)
        # Killed by a signal: 128 + its number, as a shell reports it.
        self.assertEqual(run("aarch64", self.emu, "sh", "-c", "kill -9 $$").returncode, 137)
        # Python's ignored SIGPIPE and SIGXFSZ are not passed on.
        r = run("aarch64", self.emu, "sh", "-c", "grep SigIgn /proc/self/status")
        ignored = int(r.stdout.split()[1], 16)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            self.assertFalse(ignored & (1 << (sig - 1)), sig)
        r = run("aarch64", self.emu, "id", "-u")
        self.assertEqual(r.stdout.strip(), str(os.getuid()))

    def test_bad_input(self):
        r = run("sparc", self.emu, "true")
        self.assertEqual(r.returncode, 1)
        self.assertIn("usage", r.stderr)
        r = run("aarch64", os.path.join(self.dir, "none"), "true")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not an executable", r.stderr)


if __name__ == "__main__":
    unittest.main()
