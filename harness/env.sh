# Where builds and tests run: natively (ISOLATION=none) or in the build
# container (ISOLATION=docker).  Sourced after lib.sh.
#
# ISOLATION=auto (the default) uses Docker when an engine answers or can be
# started, and the host otherwise.  In the container the repository and the
# cache directory are mounted at the same absolute paths as on the host, so a
# build tree made inside works outside and the other way round.

ISOLATION=${ISOLATION:-auto}
IMAGE_NAME=nptl-scale/build

# Build dependencies: tools of harness/tools.sh's table.
BUILD_DEPS="gcc g++ make gawk bison python3 msgfmt makeinfo ccache xz perl"

# shellcheck disable=SC2086
check_host_deps () { ensure_tools $BUILD_DEPS; }

# Use the Docker engine that answers (`docker info`), whoever started it;
# only where none does, start dockerd, installing docker.io first where
# there is no dockerd.  A client alone (a static `docker` in /usr/local/bin,
# say) does not keep docker.io out: its dockerd is started and the client
# negotiates the engine's API version.  docker.io conflicts with Docker's
# own docker-ce-cli packages; apt_install never removes a package, so where
# one of those is installed, nothing is changed and this says so.  The PID
# of a dockerd started here is kept in $BUILD/docker/dockerd.pid so that
# `make docker-stop` stops exactly it, and nothing else.
docker_up () {
  if have_tool docker; then
    [ -n "$NPTL_SCALE_DOCKER_NOTED" ] \
      || note "Docker: using the engine that already answers (docker info); not starting dockerd"
    export NPTL_SCALE_DOCKER_NOTED=1
    return 0
  fi
  if ! have_tool dockerd; then
    ensure_tools -o dockerd
    have_tool docker && { export NPTL_SCALE_DOCKER_NOTED=1; return 0; }
    if ! have_tool dockerd; then
      # Only where ensure_tools tried (can_install): otherwise its own
      # note has named the package.
      command -v docker >/dev/null && can_install \
        && note "a docker client ($(command -v docker)) is installed but no dockerd, and $(tool_hint dockerd) could not be installed beside it without removing a package"
      return 1
    fi
  fi
  [ "$(id -u)" = 0 ] || { note "Docker: no engine answers, and only root starts dockerd here"; return 1; }
  mkdir -p "$BUILD/docker"
  note "Docker: no engine answers; starting dockerd (log: $BUILD/docker/dockerd.log)"
  setsid dockerd > "$BUILD/docker/dockerd.log" 2>&1 < /dev/null &
  echo $! > "$BUILD/docker/dockerd.pid"
  local i
  for i in $(seq 60); do
    have_tool docker && { export NPTL_SCALE_DOCKER_NOTED=1; return 0; }
    kill -0 "$(cat "$BUILD/docker/dockerd.pid")" 2>/dev/null || return 1
    sleep 1
  done
  return 1
}

# need_docker [WHAT [ALTERNATIVE]]: docker_up, or a one-line error that
# says where dockerd's log is and which package gives Docker.
need_docker () {
  docker_up || die "${1:-no} Docker engine can be used (see $BUILD/docker/dockerd.log); install Docker ($(tool_hint dockerd))${2:+ $2}"
}

resolve_isolation () {
  case $ISOLATION in
    none) ;;
    docker)
      need_docker "ISOLATION=docker but no" "or use ISOLATION=none"
      ;;
    auto)
      if docker_up; then ISOLATION=docker; else ISOLATION=none; note "Docker unusable here; building on the host (ISOLATION=none)"; fi
      ;;
    *) check_isolation ;;
  esac
  if [ "$ISOLATION" = docker ]; then
    IMAGE=$("$TOP/harness/docker-image.sh") || die "could not make the build image (see $BUILD/docker/)"
  else
    check_host_deps
  fi
  export ISOLATION IMAGE
}

# in_env DIR CMD...: run CMD in DIR, natively or in the build container.
in_env () {
  local dir=$1; shift
  if [ "$ISOLATION" = docker ]; then
    # No -i: the command must not read the caller's standard input (loops
    # that read a file would lose the rest of it).
    # BUILD too where it is not inside the tree (BUILD=/elsewhere).
    # The caller's limit on data (check.sh sets one for emulated tests)
    # too: a container starts with dockerd's limits.
    local opts=(-v "$TOP:$TOP" -v "$CACHE:$CACHE") data
    case $BUILD/ in "$TOP"/*) ;; *) opts+=(-v "$BUILD:$BUILD") ;; esac
    data=$(ulimit -d)
    [ "$data" = unlimited ] || opts+=(--ulimit "data=$((data * 1024))")
    # Under enter_emulator (lib.sh), the run's qemu-user is registered
    # again in the container, whose processes would otherwise see the
    # machine's binfmt_misc (binfmt-ns.py mounts one of its own there).
    local wrap=()
    if [ -n "$NPTL_SCALE_IN_EMULATOR" ] && [ -n "$NPTL_SCALE_QEMU" ]; then
      wrap=("$TOP/harness/binfmt-ns.py" "$ARCH" "$NPTL_SCALE_QEMU")
      opts+=(-v "$NPTL_SCALE_QEMU:$NPTL_SCALE_QEMU:ro" --security-opt apparmor=unconfined)
    fi
    docker run --rm --init --network none \
      --cap-add SYS_PTRACE --security-opt seccomp=unconfined \
      "${opts[@]}" -w "$dir" \
      -e CCACHE_DIR -e CCACHE_BASEDIR -e CCACHE_NOHASHDIR -e CCACHE_MAXSIZE -e TIMEOUTFACTOR \
      -e HOME=/tmp \
      "$IMAGE" "${wrap[@]}" "$@"
  else
    (cd "$dir" && close_inherited_fds && "$@" < /dev/null)
  fi
}

# selected_tests VARIANT SUBDIR RE: the tests of SUBDIR in VARIANT's build
# tree (glibc's own list, for its configuration) whose names match RE.
selected_tests () {
  local v=$1 sub=$2 re=$3
  in_env "$(variant_dir "$v" src)/$sub" make -r -s -f Makefile -f "$TOP/harness/print-var.mk" \
    objdir="$(variant_dir "$v" obj)" subdir="$sub" ..=../ print-tests 2>/dev/null \
    | tr ' ' '\n' | grep -v '^$' | grep -E "^($re)\$"
}

# close_inherited_fds: close this shell's descriptors above 2, which a
# build or a test would otherwise inherit from whatever started the
# harness (glibc's tst-close_range and tst-closefrom fail when one they
# did not open is there).  A container starts with 0-2 only.
close_inherited_fds () {
  local f
  for f in /proc/$BASHPID/fd/*; do
    f=${f##*/}
    [ "$f" -gt 2 ] 2>/dev/null && eval "exec $f>&-"
  done
  return 0
}

# ccache shared by every variant and base: paths are rewritten relative to
# $BUILD and the working directory is not hashed, so an object of the stock
# tree is reused for the identical file of the patched tree.
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
mkdir -p "$CCACHE_DIR"
