#!/usr/bin/env python3
"""Self-test of harness/tools.sh (tools found by capability, installed by
this distribution's package names), of docker_up reusing an engine that
answers, and of docker-image.sh's choice between the registry and the
debootstrap paths.  Nothing is installed: apt-get is a fake that records
what it is asked for (APT_GET), the distribution a fake os-release
(OS_RELEASE), and a missing tool a PATH without it."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from makeenv import make_env  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KVER = os.uname().release

OS_RELEASE = {
    "debian": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n',
    "ubuntu": 'PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nID_LIKE=debian\n',
    "mint": 'ID=linuxmint\nID_LIKE="ubuntu debian"\n',
    "fedora": 'ID=fedora\n',
}


def docker_answers():
    return shutil.which("docker") and subprocess.run(
        ["docker", "info"], capture_output=True).returncode == 0


def path_without(tmp, *tools):
    """A PATH (a directory in TMP) with every command of this one except TOOLS."""
    d = os.path.join(tmp, "bin-without-" + "-".join(tools))
    if os.path.isdir(d):
        return d
    os.makedirs(d)
    for p in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(p):
            continue
        for n in os.listdir(p):
            if n in tools or os.path.lexists(os.path.join(d, n)):
                continue
            f = os.path.join(p, n)
            if os.path.isfile(f) and os.access(f, os.X_OK):
                os.symlink(f, os.path.join(d, n))
    return d


class ToolsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nptl-scale-tools.")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def os_release(self, name):
        return self.write("os-release." + name, OS_RELEASE[name])

    def path_without(self, *tools):
        return path_without(self.tmp, *tools)

    def fake_apt(self, provides=""):
        """An apt-get that logs its arguments; `install` puts the commands
        PROVIDES (space-separated) into the fake bin directory."""
        log = os.path.join(self.tmp, "apt.log")
        bindir = os.path.join(self.tmp, "installed")
        os.makedirs(bindir, exist_ok=True)
        script = self.write("apt-get", """#!/bin/sh
echo "$*" >> %s
[ "$1" = install ] || exit 0
for c in %s; do printf '#!/bin/sh\\n' > %s/$c; chmod +x %s/$c; done
""" % (log, provides, bindir, bindir), 0o755)
        return script, log, bindir

    def sh(self, script, os_release="debian", path=None, **env):
        e = make_env()
        for k in ("AUTO_INSTALL", "APT_GET"):
            e.pop(k, None)
        e.update(OS_RELEASE=self.os_release(os_release), BUILD=self.tmp + "/build",
                 NPTL_SCALE_CACHE=self.tmp + "/cache")
        if path:
            e["PATH"] = path
        e.update(env)
        return subprocess.run(["bash", "-c", ". %s/harness/lib.sh; %s" % (TOP, script)],
                              env=e, capture_output=True, text=True)

    def lines(self, path):
        with open(path) as f:
            return f.read().splitlines()

    # The table, per distribution.
    def test_names_on_debian(self):
        r = self.sh("distro; for t in perf runtest xz gnuplot docker; do tool_packages $t; done")
        self.assertEqual(r.stdout.split("\n")[:-1],
                         ["debian", "linux-perf", "dejagnu", "xz-utils", "gnuplot-nox", "docker.io"])

    def test_names_on_ubuntu(self):
        r = self.sh("distro; for t in perf runtest xz gnuplot; do tool_packages $t; done", "ubuntu")
        self.assertEqual(r.stdout.split("\n")[:-1],
                         ["ubuntu", "linux-tools-common linux-tools-" + KVER, "dejagnu",
                          "xz-utils", "gnuplot-nox"])

    def test_ubuntu_derivative_by_id_like(self):
        r = self.sh("distro; tool_packages perf", "mint")
        self.assertEqual(r.stdout.split("\n")[0], "ubuntu")

    def test_other_system_names_the_tool(self):
        r = self.sh("ensure_tools runtest", "fedora", path=self.path_without("runtest"),
                    AUTO_INSTALL="1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("missing tools: runtest (fedora)", r.stderr)

    def test_every_table_row_has_four_fields(self):
        r = self.sh('printf "%s\\n" "$NPTL_SCALE_TOOLS" | awk "NF && NF != 4"')
        self.assertEqual((r.returncode, r.stdout), (0, ""))

    def test_unknown_tool_is_an_error(self):
        r = self.sh("have_tool no-such-tool")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no tool 'no-such-tool'", r.stderr)

    # perf missing: not on PATH, or Ubuntu's wrapper without linux-tools-<kver>.
    def test_perf_not_on_path_is_a_note(self):
        r = self.sh("ensure_tools -o perf; echo rc=$?", "ubuntu",
                    path=self.path_without("perf"), AUTO_INSTALL="")
        self.assertIn("rc=0", r.stdout)
        self.assertIn("optional tools missing: perf (package linux-tools-common, linux-tools-%s on ubuntu)"
                      % KVER, r.stderr)

    def test_perf_wrapper_that_fails_counts_as_missing(self):
        fake = os.path.join(self.tmp, "wrapper")
        self.write("wrapper/perf", "#!/bin/sh\necho 'WARNING: perf not found for kernel' >&2\nexit 2\n",
                   0o755)
        r = self.sh("have_tool perf && echo have || echo missing", "ubuntu",
                    path=fake + os.pathsep + os.environ["PATH"])
        self.assertEqual(r.stdout, "missing\n")

    @unittest.skipUnless(os.geteuid() == 0, "installs only as root")
    def test_install_by_ubuntu_names_optional_failure_is_a_note(self):
        apt, log, _ = self.fake_apt()
        r = self.sh("ensure_tools -o perf stress-ng; echo rc=$?", "ubuntu",
                    path=self.path_without("perf", "stress-ng"), AUTO_INSTALL="1", APT_GET=apt)
        self.assertIn("rc=0", r.stdout)
        # Updated once, then one install per optional tool.
        self.assertEqual(self.lines(log), ["update -q", "install -y -q --no-remove linux-tools-common linux-tools-" + KVER,
                                           "install -y -q --no-remove stress-ng"])
        self.assertIn("optional tools missing: perf", r.stderr)

    @unittest.skipUnless(os.geteuid() == 0, "installs only as root")
    def test_install_only_what_is_missing(self):
        apt, log, bindir = self.fake_apt(provides="runtest")
        r = self.sh("ensure_tools make git runtest; echo rc=$?", "ubuntu",
                    path=self.path_without("runtest") + os.pathsep + bindir,
                    AUTO_INSTALL="1", APT_GET=apt)
        self.assertIn("rc=0", r.stdout, r.stderr)
        self.assertEqual(self.lines(log), ["update -q", "install -y -q --no-remove dejagnu"])

    @unittest.skipUnless(os.geteuid() == 0, "installs only as root")
    def test_required_tool_apt_cannot_provide(self):
        apt, log, _ = self.fake_apt()
        r = self.sh("ensure_tools runtest", "ubuntu", path=self.path_without("runtest"),
                    AUTO_INSTALL="1", APT_GET=apt)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("apt-get did not provide: runtest (package dejagnu on ubuntu)", r.stderr)

    def test_no_install_without_auto_install(self):
        apt, log, _ = self.fake_apt()
        for auto in ("", "0"):
            r = self.sh("ensure_tools runtest", "debian", path=self.path_without("runtest"),
                        AUTO_INSTALL=auto, APT_GET=apt)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("missing tools: runtest (package dejagnu on debian)", r.stderr)
        self.assertFalse(os.path.exists(log))

    @unittest.skipUnless(docker_answers(), "needs a Docker engine that answers")
    def test_ubuntu_in_a_container(self):
        """A container of the local bookworm image with Ubuntu's os-release:
        its dpkg knows none of Ubuntu's names, the helper asks apt for them."""
        images = subprocess.run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}",
                                 "nptl-scale/*"], capture_output=True, text=True).stdout.split()
        if not images:
            self.skipTest("no local nptl-scale image")
        image = "nptl-scale/bookworm-base:latest" if "nptl-scale/bookworm-base:latest" in images \
            else images[0]
        apt, log, _ = self.fake_apt()
        osr = self.os_release("ubuntu")
        r = subprocess.run(
            ["docker", "run", "--rm", "--network", "none", "-v", "%s:%s:ro" % (TOP, TOP),
             "-v", "%s:%s" % (self.tmp, self.tmp), "-v", "%s:/etc/os-release:ro" % osr,
             "-e", "AUTO_INSTALL=1", "-e", "APT_GET=" + apt, "-e", "BUILD=%s/build" % self.tmp,
             "-w", TOP, image, "bash", "-c",
             ". harness/lib.sh; dpkg -s linux-tools-common >/dev/null 2>&1 && echo dpkg-knows; "
             "distro; ensure_tools -o perf stress-ng gnuplot; echo rc=$?"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(r.stdout.split(), ["ubuntu", "rc=0"], r.stderr)
        installs = [l for l in self.lines(log) if l.startswith("install")]
        self.assertIn("install -y -q --no-remove linux-tools-common linux-tools-" + KVER, installs)
        self.assertIn("install -y -q --no-remove gnuplot-nox", installs)

    def test_gate_on_ubuntu_without_optional_tools(self):
        """ci/gate.sh up to `make check` (a fake make that logs): perf and
        stress-ng missing on Ubuntu are notes, not failures."""
        fake = self.write("fake-make/make", '#!/bin/sh\necho "make $*" >> %s/make.log\n' % self.tmp,
                          0o755)
        # The gate's required tools (its ensure_tools line) are the host's
        # where it has them (a fresh machine has no runtest before the gate
        # installs it).
        with open(os.path.join(TOP, "ci", "gate.sh")) as f:
            required = re.search(r"^ensure_tools ([^-].*)$", f.read(), re.M).group(1)
        for tool in required.split():
            if tool != "make" and shutil.which(tool) is None:
                self.write("fake-make/" + tool, "#!/bin/sh\nexit 0\n", 0o755)
        e = make_env()
        e.update(OS_RELEASE=self.os_release("ubuntu"), AUTO_INSTALL="0",
                 PATH=os.path.dirname(fake) + os.pathsep + self.path_without("perf", "stress-ng"))
        r = subprocess.run(["bash", TOP + "/ci/gate.sh"], env=e, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gate on ubuntu (Ubuntu 24.04 LTS)", r.stderr)
        self.assertIn("optional tools missing: perf (package linux-tools-common, linux-tools-%s on "
                      "ubuntu), stress-ng (package stress-ng on ubuntu)" % KVER, r.stderr)
        self.assertEqual(self.lines(self.tmp + "/make.log"), ["make check", "make -s docker-stop"])

    # Docker: a client alone (a static /usr/local/bin/docker that no
    # package owns) does not keep docker.io's dockerd out.
    def client_only_path(self):
        """A PATH with a docker client whose `docker info` fails, no
        dockerd, and the fake apt's directory for what it installs."""
        client = self.write("client/docker", "#!/bin/sh\nexit 1\n", 0o755)
        _, _, bindir = self.fake_apt()
        return os.pathsep.join([os.path.dirname(client), bindir,
                                self.path_without("docker", "dockerd")])

    @unittest.skipUnless(os.getuid() == 0, "installs only as root")
    def test_docker_up_installs_dockerd_beside_a_client(self):
        path = self.client_only_path()
        apt, log, _ = self.fake_apt(provides="dockerd")
        r = self.sh(". %s/harness/env.sh; docker_up; echo rc=$?" % TOP, path=path,
                    AUTO_INSTALL="1", APT_GET=apt)
        self.assertEqual(self.lines(log), ["update -q", "install -y -q --no-remove docker.io"],
                         r.stderr)
        # The fake dockerd exits at once and the client never answers.
        self.assertIn("no engine answers; starting dockerd", r.stderr)
        self.assertIn("rc=1", r.stdout)

    @unittest.skipUnless(os.getuid() == 0, "installs only as root")
    def test_docker_up_says_why_when_docker_io_cannot_go_beside_a_client(self):
        path = self.client_only_path()
        apt, log, _ = self.fake_apt()   # installs nothing: a conflict
        r = self.sh(". %s/harness/env.sh; docker_up; echo rc=$?" % TOP, path=path,
                    AUTO_INSTALL="1", APT_GET=apt)
        self.assertIn("install -y -q --no-remove docker.io", self.lines(log))
        self.assertIn("a docker client (%s/client/docker) is installed but no dockerd, and "
                      "dockerd (package docker.io on debian) could not be installed beside it "
                      "without removing a package" % self.tmp, r.stderr)
        self.assertIn("rc=1", r.stdout)

    def test_docker_up_without_auto_install_does_not_say_it_tried(self):
        path = self.client_only_path()
        apt, log, _ = self.fake_apt()
        r = self.sh(". %s/harness/env.sh; docker_up; echo rc=$?" % TOP, path=path,
                    AUTO_INSTALL="0", APT_GET=apt)
        self.assertFalse(os.path.exists(log), "apt-get ran with AUTO_INSTALL=0")
        self.assertNotIn("could not be installed beside it", r.stderr)
        self.assertIn("dockerd (package docker.io on debian)", r.stderr)
        self.assertIn("rc=1", r.stdout)

    # Docker: an engine that answers is used as it is.
    @unittest.skipUnless(docker_answers(), "needs a Docker engine that answers")
    def test_docker_up_reuses_the_running_engine(self):
        # Run from the gate, the harness has already said it (and exported
        # NPTL_SCALE_DOCKER_NOTED): start from a fresh environment.
        r = self.sh("unset NPTL_SCALE_DOCKER_NOTED; . %s/harness/env.sh; docker_up; echo rc=$?"
                    % TOP)
        self.assertIn("rc=0", r.stdout)
        self.assertIn("using the engine that already answers", r.stderr)
        self.assertNotIn("no engine answers; starting dockerd", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "build/docker/dockerd.pid")))


class BaseImageTest(unittest.TestCase):
    """docker-image.sh with a fake docker: FAKE_INFO says whether an engine
    answers, FAKE_HAVE whether debian:bookworm is here, FAKE_PULL whether a
    registry gives it; debootstrap is a fake that records it was run."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nptl-scale-image.")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        os.makedirs(self.tmp + "/bin")
        with open(self.tmp + "/os-release", "w") as f:
            f.write(OS_RELEASE["debian"])
        for name, script in (("docker", """#!/bin/sh
echo "$*" >> %s/docker.log
case "$1 $2" in
  info*) [ "$FAKE_INFO" = 1 ] ;;
  "image inspect") [ "$FAKE_HAVE" = 1 ] ;;
  pull*) [ "$FAKE_PULL" = 1 ] ;;
  *) exit 1 ;;
esac
"""), ("debootstrap", "#!/bin/sh\necho \"$*\" >> %s/debootstrap.log\nexit 1\n")):
            with open(self.tmp + "/bin/" + name, "w") as f:
                f.write(script % self.tmp)
            os.chmod(self.tmp + "/bin/" + name, 0o755)

    def image(self, have, pull, override=None, args=("--decide",), info="1", path=None):
        e = make_env()
        for k in ("BASE_IMAGE_FROM", "NPTL_SCALE_DOCKER_NOTED"):
            e.pop(k, None)
        e.update(PATH=self.tmp + "/bin" + os.pathsep + (path or os.environ["PATH"]),
                 BUILD=self.tmp + "/build", NPTL_SCALE_CACHE=self.tmp + "/cache",
                 FAKE_INFO=info, FAKE_HAVE=have, FAKE_PULL=pull, AUTO_INSTALL="0",
                 OS_RELEASE=self.tmp + "/os-release")
        if override is not None:
            e["BASE_IMAGE_FROM"] = override
        r = subprocess.run([TOP + "/harness/docker-image.sh", *args], env=e,
                           capture_output=True, text=True)
        return r.returncode, r.stdout.strip(), r.stderr

    def decide(self, have, pull, override=None):
        return self.image(have, pull, override)

    def pulled(self):
        try:
            with open(self.tmp + "/docker.log") as f:
                return any(l.startswith("pull") for l in f)
        except FileNotFoundError:
            return False

    def test_image_already_here(self):
        self.assertEqual(self.decide("1", "0")[:2], (0, "registry"))
        self.assertFalse(self.pulled())

    def test_registry_reachable(self):
        self.assertEqual(self.decide("0", "1")[:2], (0, "registry"))
        self.assertTrue(self.pulled())

    def test_no_registry(self):
        self.assertEqual(self.decide("0", "0")[:2], (0, "debootstrap"))

    def test_override(self):
        self.assertEqual(self.decide("1", "1", "debootstrap")[:2], (0, "debootstrap"))
        self.assertEqual(self.decide("0", "0", "registry")[:2], (0, "registry"))
        self.assertFalse(self.pulled())

    def test_bad_override(self):
        rc, _, err = self.decide("1", "1", "ftp")
        self.assertNotEqual(rc, 0)
        self.assertIn("BASE_IMAGE_FROM=ftp", err)

    def test_no_engine_is_one_line_before_debootstrap(self):
        """No engine answers and none can be started (no dockerd on PATH):
        one error line naming Docker's package, before anything is built
        (a fresh machine used to debootstrap for minutes, then fail at
        `docker import`)."""
        rc, _, err = self.image("0", "0", args=(), info="0",
                                path=path_without(self.tmp, "dockerd"))
        self.assertNotEqual(rc, 0)
        self.assertFalse(os.path.exists(self.tmp + "/debootstrap.log"), err)
        errors = [l for l in err.splitlines() if "error" in l]
        self.assertEqual(len(errors), 1, err)
        self.assertIn("no Docker engine can be used", errors[0])
        self.assertIn("docker.io", errors[0])


if __name__ == "__main__":
    unittest.main()
