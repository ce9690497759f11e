#!/usr/bin/env bash
# The seed case "spawn 40" run directly (no harness), to see where its
# time goes: for each malloc setting, stock and patched twice, in turn,
# the rate and, per work unit, page faults and madvise calls (perf stat),
# then one run each under perf trace, the madvise calls by length
# (a thread stack's release is about 8 MiB; malloc's heap trims are
# 1-8 MiB; 4 KiB ones are the guard pages of new stacks), and the
# functions that take the page faults.
#   direct.sh BENCHBIN_DIR [SECONDS]
# BENCHBIN_DIR: build/bench/2.43/bin of a clone whose `make bench` built
# the stock and patched sysroots.
set -u
bin=${1:?usage: direct.sh BENCHBIN_DIR [SECONDS]}
secs=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field () { grep -o "\"$1\": [0-9.]*" "$tmp/out" | grep -o '[0-9.]*$'; }

for setting in default glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=4194304 glibc.malloc.arena_max=128; do
  echo "== $setting"
  for v in stock patched stock patched; do
    if [ "$setting" = default ]; then env=(env -u GLIBC_TUNABLES); else env=(env GLIBC_TUNABLES="$setting"); fi
    "${env[@]}" perf stat -x, -e page-faults,syscalls:sys_enter_madvise -o "$tmp/stat" -- \
      "$bin/$v/seed-work" -t 40 -w 0.5 -d "$secs" -p spawn > "$tmp/out" 2>&1 || { echo "$v failed"; cat "$tmp/out"; exit 1; }
    awk -F, -v v="$v" -v rate="$(field rate)" -v n="$(field ops_total)" \
      '/^[0-9]/ { s = s sprintf("  %s %.2f", $3, $1 / n) } END { printf "%-8s rate %7.1f /s; per unit:%s\n", v, rate, s }' "$tmp/stat"
  done
done

echo "== default, madvise calls by length (one run each under perf trace)"
for v in stock patched; do
  env -u GLIBC_TUNABLES perf trace -e madvise -o "$tmp/trace" -- \
    "$bin/$v/seed-work" -t 40 -w 0.5 -d "$secs" -p spawn > "$tmp/out" 2>&1
  grep -o 'len_in: [0-9]*' "$tmp/trace" | awk -v v="$v" -v n="$(field ops_total)" '
    { l = $2; k = l <= 4096 ? "4 KiB" : l < 1048576 ? "<1 MiB" : l < 8000000 ? "1-8 MiB (heap trim)" : "8 MiB (stack)";
      c[k]++; b[k] += l }
    END { for (k in c) printf "%-8s %-20s %.3f per unit, %.0f KiB each\n", v, k, c[k] / n, b[k] / c[k] / 1024 }' | sort
done

echo "== default, where the page faults are (perf record -e page-faults, one run each)"
for v in stock patched; do
  env -u GLIBC_TUNABLES perf record -q -e page-faults -c 1 -o "$tmp/pf.data" -- \
    "$bin/$v/seed-work" -t 40 -w 0.5 -d "$secs" -p spawn > "$tmp/out" 2>&1
  echo "$v: $(field ops_total) units"
  perf report -i "$tmp/pf.data" --no-children --sort sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -4
done
