#!/usr/bin/env bash
# check-series.sh: is the series bisectable?  Build stock and each prefix of
# the series (step1 = patch 1, step2 = patches 1-2, ...) and run the test
# comparison (check.sh, no benchmark) for every step against stock.
# Output in build/$BASE/check-series/; exits non-zero if a step does not
# build or has a regression.  SELECTION= narrows the glibc tests as for
# make check.
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
export PATCHES=$steps CHECK_OUT CHECK_BENCH=0
"$TOP/harness/build.sh" stock "${variants[@]}" || exit 1
exec "$TOP/harness/check.sh" stock "${variants[@]}"
