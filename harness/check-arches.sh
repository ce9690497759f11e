#!/usr/bin/env bash
# check-arches.sh: the series on the targets other than this machine's
# (make check-arches), for BASE.
#
#   - each of lib.sh's RUN_ARCHES but this machine's (on x86_64: aarch64,
#     through qemu-user, and i686): built and checked as `make check
#     ARCH=<arch>` does, stock against patched;
#   - each of COMPILE_ARCHES (powerpc64le, s390x, riscv64, hppa): stock and
#     patched compiled (libc.so, with nptl/ and elf/), and the compiler
#     warnings patched has that stock has not listed (a new warning fails).
#
# ARCHES= names the targets to do (default: all of those).  One line per
# target, with its time, in $BUILD/arches/<base>/summary.txt (a target
# done again replaces its line); each target's log next to it.  Exits
# non-zero if any target fails.
. "$(dirname "$0")/lib.sh"

check_base
wanted () {
  [ "$1" != "$(native_arch)" ] || return 1
  [ -z "$ARCHES" ] || [[ " $ARCHES " == *" $1 "* ]]
}
for a in $ARCHES; do ARCH=$a check_arch; done
out=$BUILD/arches/$(stock_key)
mkdir -p "$out"
touch "$out/summary.txt"
rc=0
row () {  # row ARCH SECONDS RESULT
  { grep -v "^$1 " "$out/summary.txt"; printf '%-12s %6ss  %s\n' "$1" "$2" "$3"; } \
    > "$out/summary.txt.new"
  mv "$out/summary.txt.new" "$out/summary.txt"
  grep "^$1 " "$out/summary.txt"
}

for a in $RUN_ARCHES; do
  wanted "$a" || continue
  note "ARCH=$a: build and check, stock and patched (log: $out/$a.log)"
  t0=$(date +%s)
  if ARCH=$a "$TOP/harness/build.sh" stock patched > "$out/$a.log" 2>&1 \
     && ARCH=$a "$TOP/harness/check.sh" stock patched >> "$out/$a.log" 2>&1; then
    res="checked: $(grep -E '^check: ' "$out/$a.log" | tail -n1)"
  else
    res="FAILED: $(grep -E '^check: |error: ' "$out/$a.log" | tail -n1)"; rc=1
  fi
  row "$a" $(( $(date +%s) - t0 )) "$res"
done

for a in $COMPILE_ARCHES; do
  wanted "$a" || continue
  note "ARCH=$a: compile stock and patched (log: $out/$a.log)"
  t0=$(date +%s)
  if ARCH=$a "$TOP/harness/build.sh" stock patched > "$out/$a.log" 2>&1; then
    d=$BUILD/$(ARCH=$a base_key)
    comm -13 "$d/stock/warnings.txt" "$d/patched/warnings.txt" > "$out/$a-warnings-added.txt"
    n=$(wc -l < "$out/$a-warnings-added.txt")
    res="compiled, $(wc -l < "$d/stock/warnings.txt") warnings on stock, $n added by the series"
    [ "$n" = 0 ] || { res="$res ($out/$a-warnings-added.txt)"; rc=1; }
  else
    res="FAILED: $(grep 'error: ' "$out/$a.log" | tail -n1)"; rc=1
  fi
  row "$a" $(( $(date +%s) - t0 )) "$res"
done
[ $rc = 0 ] && echo "make check-arches: every target passed" || echo "make check-arches: FAILED"
exit $rc
