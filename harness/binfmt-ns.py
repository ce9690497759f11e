#!/usr/bin/env python3
"""binfmt-ns.py ARCH QEMU CMD...: run CMD with ARCH's programs run by QEMU.

CMD runs in a user and mount namespace of its own, where a binfmt_misc
instance of that namespace (Linux 6.7 or later) has one registration:
ARCH's ELF executables, run by QEMU (a static qemu-user binary) with the
flags F (QEMU is opened now, so the registration works whatever CMD
mounts or enters later) and P (argv[0] is kept), as Debian's
qemu-user-static registers it; not C (a setuid program would run with
its owner's credentials), which the harness's tests do not use.  The
machine's own binfmt_misc registrations are neither used nor changed.

As root the namespace maps the user and group IDs this process has
(all of them, outside any container) each to itself, so that files keep
their owners and tests that change IDs (set*id) can; otherwise it maps
the caller's IDs only.  Capabilities hold in the namespace only: what
needs them towards the machine (real-time scheduling, raising a hard
limit, mknod) is refused there.  This process stays in the parent
namespace to write those maps, then waits for CMD and exits with its
status (128 + N for a CMD killed by signal N); SIGINT, SIGTERM and
SIGHUP are passed on to CMD.  CMD starts with the signal dispositions
this process was given (Python's own, SIGPIPE and SIGXFSZ ignored, are
undone).
"""

import ctypes
import os
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
BINFMT = "/proc/sys/fs/binfmt_misc"

# e_ident, e_type and e_machine of a 64-bit little-endian ELF executable
# or shared object (the loader, run as a program), as qemu's
# scripts/qemu-binfmt-conf.sh matches them.
ELF64LE = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00"
MASK64 = b"\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff"
MACHINE = {"aarch64": b"\xb7\x00", "x86_64": b"\x3e\x00"}


def die(msg):
    sys.stderr.write("binfmt-ns.py: error: %s\n" % msg)
    sys.exit(1)


def escaped(data):
    return "".join("\\x%02x" % b for b in data)


def registration(arch, qemu):
    magic = ELF64LE + MACHINE[arch]
    mask = MASK64 + b"\xff\xff"
    return ":nptl-scale-%s:M::%s:%s:%s:FP" % (arch, escaped(magic), escaped(mask), qemu)


def libc():
    lib = ctypes.CDLL(None, use_errno=True)
    lib.unshare.argtypes = [ctypes.c_int]
    lib.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                          ctypes.c_ulong, ctypes.c_void_p]
    return lib


def check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        die("%s: %s" % (what, os.strerror(err)))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def id_ranges(path):
    """The IDs of this namespace in PATH (its uid_map or gid_map), each
    range mapped to itself."""
    with open(path) as f:
        return "".join("%s %s %s\n" % (r[0], r[0], r[2])
                       for r in (line.split() for line in f) if len(r) == 3)


def child(lib, arch, qemu, cmd, ready_w, mapped_r):
    check(lib.unshare(CLONE_NEWUSER | CLONE_NEWNS),
          "unshare (user and mount namespace)")
    os.write(ready_w, b"u")
    os.close(ready_w)
    if os.read(mapped_r, 1) != b"m":
        die("the ID maps of the namespace were not written")
    os.close(mapped_r)
    check(lib.mount(None, b"/", None, MS_REC | MS_PRIVATE, None),
          "mount --make-rprivate /")
    if lib.mount(b"binfmt_misc", BINFMT.encode(), b"binfmt_misc", 0, None) != 0:
        err = ctypes.get_errno()
        release = os.uname().release
        try:
            old = tuple(int(x) for x in release.split("-")[0].split(".")[:2]) < (6, 7)
        except ValueError:
            old = False
        die("cannot mount a binfmt_misc of this user namespace: %s (%s); "
            "QEMU=binfmt uses the machine's registration instead"
            % (os.strerror(err), "it needs Linux 6.7 or later, this is " + release
               if old else "Linux " + release))
    try:
        write(BINFMT + "/register", registration(arch, qemu))
    except OSError as e:
        die("cannot register %s for %s programs: %s" % (qemu, arch, e.strerror))
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        die("cannot run %s: %s" % (cmd[0], e.strerror))


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in MACHINE:
        die("usage: binfmt-ns.py {%s} QEMU CMD..." % ",".join(sorted(MACHINE)))
    arch, qemu, cmd = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    if not os.access(qemu, os.X_OK):
        die("%s is not an executable" % qemu)
    lib = libc()
    ready_r, ready_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    uid, gid = os.getuid(), os.getgid()
    # Signals wait until the child exists and can be given them.
    forwarded = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    signal.pthread_sigmask(signal.SIG_BLOCK, forwarded)
    pid = os.fork()
    if pid == 0:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)
        os.close(ready_r)
        os.close(mapped_w)
        try:
            child(lib, arch, qemu, cmd, ready_w, mapped_r)
        finally:
            os._exit(1)
    for sig in forwarded:
        signal.signal(sig, lambda n, frame: os.kill(pid, n))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, forwarded)
    os.close(ready_w)
    os.close(mapped_r)
    if os.read(ready_r, 1) == b"u":
        try:
            if uid == 0:
                # Each range this process has, to itself: every ID on the
                # machine, or a container's (which cannot map more).
                maps = [id_ranges("/proc/self/uid_map"), id_ranges("/proc/self/gid_map")]
            else:
                write("/proc/%d/setgroups" % pid, "deny")
                maps = ["%d %d 1\n" % (uid, uid), "%d %d 1\n" % (gid, gid)]
            write("/proc/%d/uid_map" % pid, maps[0])
            write("/proc/%d/gid_map" % pid, maps[1])
            os.write(mapped_w, b"m")
        except OSError as e:
            sys.stderr.write("binfmt-ns.py: error: cannot write the ID maps of the "
                             "namespace: %s\n" % e.strerror)
    os.close(mapped_w)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status)
             else os.WEXITSTATUS(status))



if __name__ == "__main__":
    main()
