#!/usr/bin/env bash
# Make (once) the build image from docker/Dockerfile and print its name.
#
# No registry is reachable from the machines this project is developed on, so
# when debian:bookworm is not present and cannot be pulled, a minimal
# bookworm root is made with debootstrap from the host's Debian mirror and
# imported as nptl-scale/bookworm-base.  The image tag carries a hash of the
# Dockerfile, so editing it makes a new image.
. "$(dirname "$0")/lib.sh"

log=$BUILD/docker
mkdir -p "$log"
tag=$(hash_files "$TOP/docker/Dockerfile")
image=nptl-scale/build:$tag
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "$image"; exit 0
fi

base=debian:bookworm
if ! docker image inspect "$base" >/dev/null 2>&1 \
   && ! timeout 60 docker pull "$base" > "$log/pull.log" 2>&1; then
  base=nptl-scale/bookworm-base:latest
  if ! docker image inspect "$base" >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || {
      [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null 2>&1
    } || die "no base image and no debootstrap: install the debootstrap package"
    rootfs=$BUILD/docker/rootfs
    rm -rf "$rootfs"
    note "debootstrap bookworm (minbase) -> $base"
    debootstrap --variant=minbase bookworm "$rootfs" "$(debian_mirror)" \
      > "$log/debootstrap.log" 2>&1 \
      || die "debootstrap failed (see $log/debootstrap.log)"
    tar -C "$rootfs" -c . | docker import - "$base" > "$log/import.log" 2>&1 \
      || die "docker import failed (see $log/import.log)"
    rm -rf "$rootfs"
  fi
fi
note "building $image from $base"
docker build --network host --build-arg BASE_IMAGE="$base" -t "$image" \
  "$TOP/docker" > "$log/build.log" 2>&1 \
  || die "docker build failed (see $log/build.log)"
echo "$image"
