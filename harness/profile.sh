#!/usr/bin/env bash
# profile.sh VARIANT [THREADS [SECONDS [CASE [PARAM]]]]: where the time goes.
# Runs one benchmark case (default: create-join with 500 threads for 5 s)
# built against VARIANT's sysroot under `perf record -a -g` and prints the
# top symbols (self time, all CPUs), the user/kernel split and the top
# call chains into the kernel.  Output in build/profile/$BASE-VARIANT-CASE-THREADS/.
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: profile.sh VARIANT [THREADS [SECONDS [CASE [PARAM]]]]"
v=$1 n=${2:-500} secs=${3:-5} case=${4:-create-join} param=${5:-}
check_base
ensure_tools perf
cc=$(variant_dir "$v" cc)
[ -x "$cc" ] || die "no sysroot for $v of glibc $(glibc_label); run 'make sysroot VARIANTS=$v'"
[ -f "$TOP/bench/cases/$case.c" ] || die "no benchmark case $case (bench/cases/)"
out=$BUILD/profile/$BASE-$v-$case-$n
mkdir -p "$out"
"$cc" -O2 -g -pthread -o "$out/bench" "$TOP/bench/driver.c" "$TOP/bench/cases/$case.c" \
  || die "cannot build $case for $v"
perf record -q -a -g -o "$out/perf.data" -- \
  "$out/bench" -t "$n" -w 0.5 -d "$secs" ${param:+-p "$param"} > "$out/result.json" 2> "$out/record.log" \
  || die "perf record failed (see $out/record.log)"
perf report -i "$out/perf.data" --no-children --sort sym --stdio 2>/dev/null \
  | grep -E '^ +[0-9]' | head -n 25 > "$out/top-symbols.txt"
perf report -i "$out/perf.data" --no-children --sort dso --stdio 2>/dev/null \
  | grep -E '^ +[0-9]' | head -n 8 > "$out/top-dsos.txt"
echo "== $v, $case ${param:+$param }with $n threads, ${secs}s, all CPUs ($(nproc) cores)"
echo "-- result: $(cat "$out/result.json" | cut -c1-200)"
echo "-- by object:"; cat "$out/top-dsos.txt"
echo "-- by symbol (self):"; cat "$out/top-symbols.txt"
