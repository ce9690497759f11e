# The tools the harness needs, found by what they do, not by package name.
# Sourced by lib.sh (it needs note and die).  The one table of tool ->
# package, per distribution; gate.sh, env.sh, build.sh, check.sh, bench.sh,
# profile.sh and docker-image.sh all go through ensure_tools.
#
#   ensure_tools TOOL...      install what is missing (as root, with
#                             AUTO_INSTALL, by apt-get), else stop naming the
#                             packages of this distribution
#   ensure_tools -o TOOL...   optional tools: a missing one is a note
#   have_tool TOOL            does this machine have it (the check column)
#   tool_packages TOOL        its packages on this distribution
#
# OS_RELEASE (default /etc/os-release) and APT_GET (default apt-get) are
# for the self-test (harness/test_tools.py).

# TOOL   CHECK (cmd:COMMAND, run:SHELL-COMMAND, file:PATH)   DEBIAN   UBUNTU
# Packages are separated by commas; `=` means as on Debian; {kver} is
# `uname -r`.  perf is checked by running it: Ubuntu's /usr/bin/perf
# (linux-tools-common) is a wrapper that fails without the kernel's own
# linux-tools-<kver>.
NPTL_SCALE_TOOLS='
make        cmd:make            make                =
git         cmd:git             git                 =
rsync       cmd:rsync           rsync               =
tar         cmd:tar             tar                 =
python3     cmd:python3         python3             =
xz          cmd:xz              xz-utils            =
gcc         cmd:gcc             gcc                 =
g++         cmd:g++             g++                 =
gawk        cmd:gawk            gawk                =
bison       cmd:bison           bison               =
msgfmt      cmd:msgfmt          gettext             =
makeinfo    cmd:makeinfo        texinfo             =
ccache      cmd:ccache          ccache              =
perl        cmd:perl            perl                =
runtest     cmd:runtest         dejagnu             =
gdb         cmd:gdb             gdb                 =
qemu-x86_64 cmd:qemu-x86_64     qemu-user           =
quilt       cmd:quilt           quilt               =
dpkg-source cmd:dpkg-source     dpkg-dev            =
docker      run:docker_info     docker.io           =
dockerd     cmd:dockerd         docker.io           =
debootstrap cmd:debootstrap     debootstrap         =
debian-keyring file:/usr/share/keyrings/debian-archive-keyring.gpg debian-archive-keyring =
gnuplot     cmd:gnuplot         gnuplot-nox         =
stress-ng   cmd:stress-ng       stress-ng           =
mariadbd    file:/usr/sbin/mariadbd mariadb-server-core =
mariadb-install-db cmd:mariadb-install-db mariadb-server-core =
mariadb     cmd:mariadb         mariadb-client-core =
sysbench    cmd:sysbench        sysbench            =
ab          cmd:ab              apache2-utils       =
system-python3 file:/usr/bin/python3 python3       =
dpkg-deb    cmd:dpkg-deb        dpkg                =
libpcre2-posix run:pcre2_posix libpcre2-posix3 =
perf        run:perf_works      linux-perf          linux-tools-common,linux-tools-{kver}
x86_64-linux-gnu-gcc      cmd:x86_64-linux-gnu-gcc      gcc-x86-64-linux-gnu,g++-x86-64-linux-gnu   =
aarch64-linux-gnu-gcc     cmd:aarch64-linux-gnu-gcc     gcc-aarch64-linux-gnu,g++-aarch64-linux-gnu =
i686-linux-gnu-gcc        cmd:i686-linux-gnu-gcc        gcc-i686-linux-gnu,g++-i686-linux-gnu       =
powerpc64le-linux-gnu-gcc cmd:powerpc64le-linux-gnu-gcc gcc-powerpc64le-linux-gnu,g++-powerpc64le-linux-gnu =
s390x-linux-gnu-gcc       cmd:s390x-linux-gnu-gcc       gcc-s390x-linux-gnu,g++-s390x-linux-gnu     =
riscv64-linux-gnu-gcc     cmd:riscv64-linux-gnu-gcc     gcc-riscv64-linux-gnu,g++-riscv64-linux-gnu =
hppa-linux-gnu-gcc        cmd:hppa-linux-gnu-gcc        gcc-hppa-linux-gnu,g++-hppa-linux-gnu       =
binfmt-aarch64 run:binfmt_aarch64 qemu-user-static,binfmt-support =
binfmt-x86_64  run:binfmt_x86_64  qemu-user-static,binfmt-support =
'

docker_info () { docker info >/dev/null 2>&1; }
# What Debian's mariadb-test links beyond what mariadb-server-core
# brings (harness/mtrtests.py unpacks that package without installing it).
pcre2_posix () { /sbin/ldconfig -p 2>/dev/null | grep -q '^[[:space:]]libpcre2-posix\.so\.3 '; }
perf_works () { perf version >/dev/null 2>&1; }
# binfmt_runs ARCH: binfmt_misc runs ARCH's programs through qemu-user
# (qemu-ARCH registered and enabled; Debian's qemu-user-static registers
# it with the F flag, so that it works in containers too).  As root, a
# registration that is installed but not enabled (binfmt_misc not mounted:
# a machine without systemd) is enabled first.
binfmt_runs () {
  local f=/proc/sys/fs/binfmt_misc/qemu-$1
  if ! [ -r "$f" ] && [ "$(id -u)" = 0 ] && [ -e "/usr/share/binfmts/qemu-$1" ] \
     && command -v update-binfmts >/dev/null; then
    [ -e /proc/sys/fs/binfmt_misc/register ] \
      || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null
    update-binfmts --enable "qemu-$1" >/dev/null 2>&1
  fi
  [ -r "$f" ] && [ "$(head -n1 "$f")" = enabled ]
}
binfmt_aarch64 () { binfmt_runs aarch64; }
binfmt_x86_64 () { binfmt_runs x86_64; }

# debian, ubuntu (also for their derivatives, by ID_LIKE), or the ID of
# another system.
distro () {
  local f=${OS_RELEASE:-/etc/os-release} id= like= w
  [ -r "$f" ] && { id=$(. "$f"; echo "$ID"); like=$(. "$f"; echo "$ID_LIKE"); }
  for w in $id $like; do
    case $w in debian|ubuntu) echo "$w"; return ;; esac
  done
  echo "${id:-unknown}"
}

tool_row () {
  local row
  row=$(printf '%s\n' "$NPTL_SCALE_TOOLS" | awk -v t="$1" '$1 == t')
  [ -n "$row" ] || die "tools.sh: no tool '$1' in the table"
  echo "$row"
}

have_tool () {
  local check
  check=$(tool_row "$1" | awk '{ print $2 }') || exit 1
  case $check in
    cmd:*) command -v "${check#cmd:}" >/dev/null ;;
    run:*) "${check#run:}" ;;
    file:*) [ -e "${check#file:}" ] ;;
  esac
}

# The packages of TOOL on this distribution, separated by spaces (nothing
# for a system without an entry).
tool_packages () {
  local row pkgs
  row=$(tool_row "$1") || exit 1
  case $(distro) in
    debian) pkgs=$(echo "$row" | awk '{ print $3 }') ;;
    ubuntu) pkgs=$(echo "$row" | awk '{ print ($4 == "=") ? $3 : $4 }') ;;
    *) return 0 ;;
  esac
  pkgs=${pkgs//\{kver\}/$(uname -r)}
  echo "${pkgs//,/ }"
}

# apt-get install PACKAGE... (the lists are updated first, once per process).
apt_install () {
  local apt=${APT_GET:-apt-get}
  if [ -z "$NPTL_SCALE_APT_UPDATED" ]; then
    DEBIAN_FRONTEND=noninteractive $apt update -q >/dev/null 2>&1
    NPTL_SCALE_APT_UPDATED=1
  fi
  # --no-remove: never take a package of the machine's away (docker.io, say,
  # conflicts with docker-ce-cli); apt-get then fails and the caller says
  # what is missing.
  DEBIAN_FRONTEND=noninteractive $apt install -y -q --no-remove "$@" >/dev/null 2>&1
}

can_install () {
  [ -n "$AUTO_INSTALL" ] && [ "$AUTO_INSTALL" != 0 ] && [ "$(id -u)" = 0 ] && command -v "${APT_GET:-apt-get}" >/dev/null \
    && case $(distro) in debian|ubuntu) true ;; *) false ;; esac
}

# "TOOL (PACKAGES on DISTRO)" for a message.
tool_hint () {
  local p
  p=$(tool_packages "$1")
  echo "$1 (${p:+package ${p// /, } on }$(distro))"
}

ensure_tools () {
  local optional= t missing=() pkgs= hints= tried=
  [ "$1" = -o ] && { optional=1; shift; }
  for t in "$@"; do have_tool "$t" || missing+=("$t"); done
  [ ${#missing[@]} = 0 ] && return 0
  if can_install; then
    tried=1
    if [ -n "$optional" ]; then
      # One by one: a package this system lacks (say, linux-tools for a
      # custom kernel) must not keep the others out.
      for t in "${missing[@]}"; do
        note "installing $(tool_hint "$t")"
        # shellcheck disable=SC2046
        apt_install $(tool_packages "$t")
      done
    else
      for t in "${missing[@]}"; do pkgs="$pkgs $(tool_packages "$t")"; done
      note "installing:$pkgs"
      # shellcheck disable=SC2086
      apt_install $pkgs
    fi
  fi
  for t in "${missing[@]}"; do have_tool "$t" || hints="$hints, $(tool_hint "$t")"; done
  [ -z "$hints" ] && return 0
  if [ -n "$optional" ]; then
    note "optional tools missing: ${hints#, }; what needs them is skipped"
    return 0
  fi
  if [ -n "$tried" ]; then die "apt-get did not provide: ${hints#, }"; fi
  die "missing tools: ${hints#, } (as root, AUTO_INSTALL=1 installs them with apt-get)"
}
