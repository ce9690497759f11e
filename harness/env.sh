# Where builds and tests run: natively (ISOLATION=none) or in the build
# container (ISOLATION=docker).  Sourced after lib.sh.
#
# ISOLATION=auto (the default) uses Docker when an engine answers or can be
# started, and the host otherwise.  In the container the repository and the
# cache directory are mounted at the same absolute paths as on the host, so a
# build tree made inside works outside and the other way round.

ISOLATION=${ISOLATION:-auto}
IMAGE_NAME=nptl-scale/build

# Build dependencies: command, then the Debian package that provides it.
BUILD_DEPS="gcc:gcc g++:g++ make:make gawk:gawk bison:bison python3:python3
msgfmt:gettext makeinfo:texinfo ccache:ccache xz:xz-utils perl:perl"

# require_tools COMMAND:PACKAGE...: install (as root, with AUTO_INSTALL)
# or name the Debian packages of the commands that are missing.
require_tools () {
  local d missing=
  for d in "$@"; do
    command -v "${d%%:*}" >/dev/null || missing="$missing ${d#*:}"
  done
  [ -z "$missing" ] && return 0
  if [ -n "$AUTO_INSTALL" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    note "installing:$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null \
      || die "apt-get install$missing failed"
  else
    die "missing tools; install the Debian packages:$missing"
  fi
}

# shellcheck disable=SC2086
check_host_deps () { require_tools $BUILD_DEPS; }

# Start dockerd if it is installed but not running.  Its PID is kept in
# $BUILD/docker/dockerd.pid so that `make docker-stop` stops exactly it.
docker_up () {
  docker info >/dev/null 2>&1 && return 0
  if ! command -v dockerd >/dev/null; then
    [ -n "$AUTO_INSTALL" ] && [ "$(id -u)" = 0 ] || return 1
    note "installing docker.io"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >/dev/null 2>&1 || return 1
    docker info >/dev/null 2>&1 && return 0
  fi
  [ "$(id -u)" = 0 ] || return 1
  mkdir -p "$BUILD/docker"
  note "starting dockerd (log: $BUILD/docker/dockerd.log)"
  setsid dockerd > "$BUILD/docker/dockerd.log" 2>&1 < /dev/null &
  echo $! > "$BUILD/docker/dockerd.pid"
  local i
  for i in $(seq 60); do
    docker info >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$BUILD/docker/dockerd.pid")" 2>/dev/null || return 1
    sleep 1
  done
  return 1
}

resolve_isolation () {
  case $ISOLATION in
    none) ;;
    docker)
      docker_up || die "ISOLATION=docker but no Docker engine can be used (see $BUILD/docker/dockerd.log); install docker.io or use ISOLATION=none"
      ;;
    auto)
      if docker_up; then ISOLATION=docker; else ISOLATION=none; note "Docker unusable here; building on the host (ISOLATION=none)"; fi
      ;;
    *) die "unknown ISOLATION '$ISOLATION' (docker, none or auto)" ;;
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
    docker run --rm --init --network none \
      --cap-add SYS_PTRACE --security-opt seccomp=unconfined \
      -v "$TOP:$TOP" -v "$CACHE:$CACHE" -w "$dir" \
      -e CCACHE_DIR -e CCACHE_BASEDIR -e CCACHE_NOHASHDIR -e CCACHE_MAXSIZE -e HOME=/tmp \
      "$IMAGE" "$@"
  else
    (cd "$dir" && "$@" < /dev/null)
  fi
}

# ccache shared by every variant and base: paths are rewritten relative to
# $BUILD and the working directory is not hashed, so an object of the stock
# tree is reused for the identical file of the patched tree.
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
mkdir -p "$CCACHE_DIR"
