#!/usr/bin/env bash
# bench.sh VARIANT...: benchmarks of the sysroots of $BASE, side by side.
# BENCH=default (docs/benchmarks.md gives its time), quick (under 3 minutes), or
# groups and cases separated by commas (bench/run.py's plan() says what each
# runs).  Output in build/bench/<base>/ (default), build/bench/<base>-$BENCH/
# (any other BENCH), <base> being lib.sh's base_key.
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2046
set -- $(compared_variants "$@")
check_base
# Timings under emulation say nothing of performance: refused before
# anything is installed to emulate the target.
check_bench_arch
ensure_arch run
# A variant is a sysroot, or SYSROOT@TUNABLES (lib.sh's sysroot_of; run.py:
# that sysroot with GLIBC_TUNABLES set, e.g. patched@cond_legacy=1).
for v in "$@"; do
  [ -x "$(variant_dir "$v" cc)" ] \
    || die "no sysroot for $(sysroot_of "$v") of glibc $(glibc_label); run 'make sysroot BASE=$BASE VARIANTS=$(sysroot_of "$v")'"
done
# Without perf there is no profile run (system calls per operation);
# without stress-ng or gnuplot that part is skipped.
ensure_tools -o perf stress-ng gnuplot
# The real workloads (bench/apps.py): required where BENCH names them,
# optional with BENCH=full, not run otherwise.
APPS_TOOLS="mariadbd mariadb-install-db mariadb sysbench ab system-python3"
# shellcheck disable=SC2086
case ",${BENCH:-default}," in
  *,apps,*) [ -n "$BUNDLE" ] || ensure_tools $APPS_TOOLS ;;
  ,full,) [ -n "$BUNDLE" ] || ensure_tools -o $APPS_TOOLS ;;
esac
if [ -n "$BUNDLE" ]; then
  # make bench-bundle: the binaries, the sysroots' run-time files and the
  # runner, for a machine without a compiler (see bench/run.py).
  out=$BUILD/bench-bundle/nptl-scale-bench-$BASE
  python3 "$TOP/bench/run.py" --base "$(glibc_label)" --build "$(base_dir)" --out "$out" \
    --make-bundle "$@" || exit 1
  tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")" || exit 1
  size=$(stat -c %s "$out.tar.gz")
  [ "$size" -le $((64 * 1024 * 1024)) ] || die "$out.tar.gz is $((size >> 20)) MiB, over 64 MiB"
  note "$out.tar.gz ($((size >> 10)) KiB): unpack anywhere, then ./run [--bench create-join] [VARIANT...]"
  exit 0
fi
out=$BUILD/bench/$(base_key)
[ "${BENCH:-default}" = default ] || out=$out-$BENCH
[ -z "$BENCH_THREADS" ] || out=$out-t${BENCH_THREADS//,/-}
exec python3 "$TOP/bench/run.py" --base "$(glibc_label)" --build "$(base_dir)" \
  --out "$out" --bench "${BENCH:-default}" \
  ${BENCH_REPS:+--reps "$BENCH_REPS"} ${BENCH_SECONDS:+--seconds "$BENCH_SECONDS"} ${BENCH_THREADS:+--threads "$BENCH_THREADS"} ${BENCH_RESUME:+--resume} --in-env "$TOP/harness/in-env.sh" "$@"
