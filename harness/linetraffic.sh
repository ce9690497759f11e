#!/usr/bin/env bash
# make linetraffic: cache-line transfers per operation, counted under
# qemu-user by bench/linetraffic/lines.c at 64- and 128-byte lines, for
# each variant.  No hardware counters needed.  BENCH picks the set:
#   condvar (default)  by pthread_cond_t field; VARIANTS default: stock, the
#                      legacy mode and the padded layouts
#   create-join        create+join at 2, 8, 40 threads and the seed's spawn
#                      case, by field of libc.so's and ld.so's data and of
#                      the descriptors; VARIANTS default: stock patched
#
# The plugin is compiled against qemu-plugin.h from Debian's qemu source
# package of the suite this machine runs (it must match the qemu-user that
# loads it), fetched with the private apt configuration (lib.sh).
# Output: $BUILD/linetraffic/<base>/lines-{64,128}[-create-join].{md,json}.
. "$(dirname "$0")/lib.sh"

set=${BENCH:-condvar}
case $set in
  default|condvar) set=condvar; [ $# -gt 0 ] || set -- stock patched@cond_legacy=1 padded-roles padded-slots ;;
  create-join) [ $# -gt 0 ] || set -- stock patched ;;
  *) die "make linetraffic: no set BENCH=$set (condvar, create-join)" ;;
esac
ensure_tools qemu-x86_64 gdb python3 gcc
[ "$(uname -m)" = x86_64 ] || die "make linetraffic runs x86_64 benchmarks under qemu-x86_64; this machine is $(uname -m)"
out=$BUILD/linetraffic
inc=$out/include
if ! [ -f "$inc/qemu-plugin.h" ]; then
  suite=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-bookworm}")
  [ "$(distro)" = debian ] || suite=bookworm
  fetch_source_package "$suite" qemu "$CACHE/src/qemu"
  mkdir -p "$inc.new"
  tar -xaf "$SRC_ORIG" -C "$inc.new" --wildcards --strip-components=3 '*/include/qemu/qemu-plugin.h' \
    || die "$SRC_ORIG has no include/qemu/qemu-plugin.h"
  rm -rf "$inc" && mv "$inc.new" "$inc"
fi
# The sysroots: built (or brought up to date) as make sysroot would.
"$TOP/harness/build.sh" $(for v in "$@"; do sysroot_of "$v"; done | sort -u) || exit 1
for line in 64 128; do
  QEMU_PLUGIN_INCLUDE=$inc "$TOP/bench/linetraffic/measure.py" --build "$(base_dir)" \
    --out "$out/$BASE" --set "$set" --line "$line" "$@" || exit 1
done
