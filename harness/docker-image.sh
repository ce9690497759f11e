#!/usr/bin/env bash
# Make (once) the build image from docker/Dockerfile and print its name.
# Where no Docker engine answers, dockerd is started first (env.sh's
# docker_up), or the script stops with one line before building anything.
#
# The image starts FROM debian:bookworm where a registry gives it (or it is
# already here).  Where none is reachable (the machines this project is
# developed on), a minimal bookworm root is made with debootstrap from the
# Debian mirror and imported as nptl-scale/bookworm-base.  The log (stderr)
# says which path was taken.  BASE_IMAGE_FROM=registry or debootstrap forces
# one; `docker-image.sh --decide` prints the decision (registry or
# debootstrap) and builds nothing.  The image tag carries a hash of the
# Dockerfile, so editing it makes a new image.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/env.sh"

log=$BUILD/docker
mkdir -p "$log"
REGISTRY_BASE=debian:bookworm
LOCAL_BASE=nptl-scale/bookworm-base:latest

# registry: debian:bookworm is here or `docker pull` fetched it;
# debootstrap: it is not and cannot be pulled.
base_image_from () {
  case ${BASE_IMAGE_FROM:-auto} in
    registry|debootstrap) echo "$BASE_IMAGE_FROM"; return ;;
    auto) ;;
    *) die "BASE_IMAGE_FROM=$BASE_IMAGE_FROM: give registry, debootstrap or auto" ;;
  esac
  if docker image inspect "$REGISTRY_BASE" >/dev/null 2>&1 \
     || timeout 60 docker pull "$REGISTRY_BASE" > "$log/pull.log" 2>&1; then
    echo registry
  else
    echo debootstrap
  fi
}

debootstrap_base () {
  docker image inspect "$LOCAL_BASE" >/dev/null 2>&1 && return 0
  ensure_tools debootstrap debian-keyring
  local rootfs=$BUILD/docker/rootfs
  rm -rf "$rootfs"
  note "debootstrap bookworm (minbase) -> $LOCAL_BASE"
  debootstrap --variant=minbase bookworm "$rootfs" "$(debian_mirror)" \
    > "$log/debootstrap.log" 2>&1 \
    || die "debootstrap failed (see $log/debootstrap.log)"
  tar -C "$rootfs" -c . | docker import - "$LOCAL_BASE" > "$log/import.log" 2>&1 \
    || die "docker import failed (see $log/import.log)"
  rm -rf "$rootfs"
}

# --decide only asks (an engine that does not answer reads as "no
# registry") and starts nothing.  A build needs an engine first (started
# here where none answers): without one, debootstrap would run for
# minutes and `docker import` fail.
if [ "$1" = --decide ]; then base_image_from; exit; fi
need_docker

tag=$(hash_files "$TOP/docker/Dockerfile")
image=nptl-scale/build:$tag

# cross_layer: print the image to build ARCH in: the build image, or for a
# cross target the build image with that target's cross compilers added,
# as nptl-scale/build:<tag>-<arch>, made once.
cross_layer () {
  is_cross || { echo "$image"; return; }
  local xi=$image-$ARCH pkgs
  if ! docker image inspect "$xi" >/dev/null 2>&1; then
    pkgs=$(tool_packages "$(arch_tool gcc)")
    note "building $xi: the build image with ${pkgs// /, }"
    printf 'FROM %s\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends %s && rm -rf /var/lib/apt/lists/*\n' \
      "$image" "$pkgs" | docker build --network host -t "$xi" - > "$log/build-$ARCH.log" 2>&1 \
      || die "docker build of $xi failed (see $log/build-$ARCH.log)"
  fi
  echo "$xi"
}

if docker image inspect "$image" >/dev/null 2>&1; then
  from=$(docker image inspect -f '{{ index .Config.Labels "nptl-scale.from" }}' "$image" 2>/dev/null)
  note "build image: $image, already built${from:+ (FROM ${from% *}, ${from#* } path)}"
  cross_layer; exit
fi

from=$(base_image_from) || exit 1
case $from in
  registry)
    base=$REGISTRY_BASE
    docker image inspect "$base" >/dev/null 2>&1 || timeout 300 docker pull "$base" > "$log/pull.log" 2>&1 \
      || die "BASE_IMAGE_FROM=registry but $base cannot be pulled (see $log/pull.log)"
    note "build image: FROM $base (registry path)" ;;
  debootstrap)
    base=$LOCAL_BASE
    debootstrap_base
    note "build image: FROM $base (no registry: debootstrap + docker import path${BASE_IMAGE_FROM:+, BASE_IMAGE_FROM=$BASE_IMAGE_FROM})" ;;
esac
note "building $image from $base"
docker build --network host --build-arg BASE_IMAGE="$base" --label "nptl-scale.from=$base $from" -t "$image" \
  "$TOP/docker" > "$log/build.log" 2>&1 \
  || die "docker build failed (see $log/build.log)"
cross_layer
