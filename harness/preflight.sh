#!/usr/bin/env bash
# preflight.sh GOAL...: the variables that make's GOALs read, checked
# before any goal installs a package, starts a daemon or builds anything
# (the Makefile runs this while it reads itself).  The first bad value
# gets one line on standard error and exit status 1; nothing else is done.
. "$(dirname "$0")/lib.sh"

check_isolation
[ -z "$GLIBC_SRC" ] || [ -d "$GLIBC_SRC" ] || die "GLIBC_SRC=$GLIBC_SRC is not a directory"
check_base
[ -z "$PATCHES" ] || [ -d "$PATCHES" ] \
  || die "PATCHES=$PATCHES is not a directory (a series directory, as patches/glibc-2.43)"
[ -z "$SELECTION" ] || [ -r "$SELECTION" ] || die "SELECTION=$SELECTION is not a readable file"
[ -z "$JOBS" ] || [[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "JOBS=$JOBS is not a positive number"
[ -z "$BENCH_REPS" ] || [[ $BENCH_REPS =~ ^[1-9][0-9]*$ ]] \
  || die "BENCH_REPS=$BENCH_REPS is not a positive number"
[ -z "$BENCH_SECONDS" ] || { [[ $BENCH_SECONDS =~ ^[0-9]*\.?[0-9]+$ ]] \
  && [[ $BENCH_SECONDS =~ [1-9] ]]; } \
  || die "BENCH_SECONDS=$BENCH_SECONDS is not a positive number of seconds"
[ -z "$BENCH_THREADS" ] || [[ $BENCH_THREADS =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] \
  || die "BENCH_THREADS=$BENCH_THREADS is not a list of thread counts (as 2 or 1,2,500)"

# What the goals need of ARCH: programs that run here (check, bench...),
# and for the benchmarks, that they run natively.
runs= bench=
for g in "$@"; do
  case $g in
    bench|bench-bundle) runs=run bench=1 ;;
    smoke|check|check-full|check-series|check-fixes|linetraffic) runs=run ;;
  esac
done
if [ -n "$bench" ]; then check_bench_arch; else check_arch $runs; fi

# Every variant (with @TUNABLES, for the benchmarks) is one of this base.
for v in ${VARIANTS:-}; do check_variant "$(sysroot_of "$v")"; done

# BENCH names a benchmark mode, group or case of bench/run.py.
if [ -n "$BENCH" ] && [ -n "$bench" ]; then
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import run; run.plan(sys.argv[2])' \
    "$TOP/bench" "$BENCH" || exit 1
fi
# SERIES (export-debian) and BZ (mail).
for g in "$@"; do
  case $g in
    export-debian)
      case ${SERIES:-fixes} in fixes|scale) ;;
        *) die "unknown SERIES '$SERIES' (fixes, the default, or scale: the fixes and the scalability series)" ;;
      esac ;;
    mail)
      if [ -n "$BZ" ]; then
        d=$(patch_dir) || exit 1
        [ -f "$d/bugs" ] || die "BZ=$BZ: no $d/bugs names the bugs of this base"
        "$TOP/harness/bug_reports.py" --bugs "$d/bugs" --bz "$BZ" --bz-lines >/dev/null || exit 1
      fi ;;
  esac
done
exit 0
