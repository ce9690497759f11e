#!/usr/bin/env bash
# check-series.sh: is the series bisectable?  Build stock and each prefix of
# the series (step1 = patch 1, step2 = patches 1-2, ...) and run the test
# comparison (check.sh, no benchmark) for every step against stock.
# Output in build/$BASE/check-series/; exits non-zero if a step does not
# build or has a regression.  SELECTION= narrows the glibc tests as for
# make check.
#
# A step is built and tested before the next is built, and its results are
# kept (check.sh's CHECK_RESUME): a stopped run, started again, goes on at
# the first step whose build or tests changed.  The last call compares
# every step built with stock and writes the summary.
. "$(dirname "$0")/lib.sh"

check_base
src=$(patch_dir)
steps=$(base_dir series-steps)
copy_patch_dir "$steps"
series_patches patched > /dev/null   # dies on a missing entry
mapfile -t patches < <(series_patches patched)
patches=("${patches[@]#"$src"/}")
[ ${#patches[@]} -gt 0 ] || die "$src/series lists no patch"
variants=()
for k in $(seq ${#patches[@]}); do
  printf '%s\n' "${patches[@]:0:k}" > "$steps/series.step$k"
  variants+=("step$k")
  note "step$k: up to ${patches[k-1]}"
done
CHECK_OUT=$(base_dir check-series)
mkdir -p "$CHECK_OUT"
export PATCHES=$steps CHECK_OUT CHECK_BENCH=0 CHECK_RESUME=1
trap 'exit 130' INT TERM HUP
"$TOP/harness/build.sh" stock || exit 1
built=() unbuilt=
for v in "${variants[@]}"; do
  note "check-series: $v of ${#variants[@]}"
  if ! "$TOP/harness/build.sh" "$v"; then
    unbuilt="$v (${patches[${#built[@]}]})"
    break
  fi
  built+=("$v")
  CHECK_SELFTEST=0 "$TOP/harness/check.sh" stock "$v" >> "$CHECK_OUT/$v.log" 2>&1
  rc=$?
  [ $rc -lt 128 ] || exit $rc
  [ $rc = 0 ] || note "check-series: $v failed (see $CHECK_OUT/$v.log)"
done
rc=0
[ ${#built[@]} = 0 ] || "$TOP/harness/check.sh" stock "${built[@]}" || rc=1
if [ -n "$unbuilt" ]; then
  echo "check-series: $unbuilt does not build (see its make.log); the steps before it are compared above"
  rc=1
fi
exit $rc
