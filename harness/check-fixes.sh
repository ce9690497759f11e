#!/usr/bin/env bash
# check-fixes.sh: does each fix of series.fixes fix its own bug, on its own?
#
# For fix k: the reproducer of each bug it fixes (patches/<base>/bugs,
# harness/bug_reports.py) must FAIL on stock + fixes 1..k-1 and PASS on
# stock + fixes 1..k, and the glibc tests the patch adds must PASS there
# (glibc's own make rules, in the build tree).  Where fix k applies to
# stock without the fixes before it, stock + fix k alone is built and
# checked the same way (what a distribution takes when it picks one fix).
# A fix that meets the earlier ones only in a Makefile's test lists is
# made to apply by dropping their lines from its context
# (harness/rebase_fix.py), as a distribution would by hand; where it
# meets them in code, the summary names the file and the fixes it needs.
#
# One build tree (variant `fixcheck`) is brought from one state to the next
# by build.sh, which rebuilds only what a state changes.  Output:
# build/<base>/check-fixes/summary.md (and the per-state logs); non-zero
# if a state does not build or a result is not the expected one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/env.sh"

check_base
check_arch run
[ "$(arch_runs)" = native ] \
  || die "make check-fixes runs the reproducers here: ARCH=$ARCH is not this machine's"
src=$(patch_dir)
[ -f "$(series_file fixes)" ] || die "$(series_file fixes) is missing: this base has no fixes series"
series_patches fixes > /dev/null   # dies on a missing entry
mapfile -t fixes < <(series_patches fixes)
[ ${#fixes[@]} -gt 0 ] || die "$(series_file fixes) lists no patch"
bugs=$src/bugs
out=$(base_dir check-fixes)
rm -rf "$out"
copy_patch_dir "$out/patches"
export PATCHES=$out/patches
resolve_isolation

"$TOP/harness/build.sh" stock || exit 1
stock_tar=$(source_dir)/glibc.tar
# A result that is not the expected one is a line of this file (the
# functions below run in command substitutions).
bad=$out/unexpected
: > "$bad"

# build_state NAME PATCH...: the fixcheck tree as stock + PATCH...
build_state () {
  local name=$1; shift
  printf '%s\n' "${@##*/}" > "$PATCHES/series.fixcheck"
  note "check-fixes: $name: stock + $(printf '%s ' "${@##*/}" | sed 's/alone-//g; s/\(....\)[^ ]* /\1 /g')"
  "$TOP/harness/build.sh" fixcheck > "$out/build-$name.log" 2>&1 && return 0
  echo "$name: does not build (see $out/build-$name.log)" >> "$bad"
  return 1
}

# repro WANT NAME PATCH VARIANT: the reproducers of PATCH's bugs built
# against VARIANT (WANT: pass or fail), for the summary ("bug: RESULT; ").
repro () {
  local want=$1 name=$2 p=$3 v=$4 opt=--run f line
  [ -f "$bugs" ] || return 0
  [ "$want" = fail ] && opt=--unfixed
  f=$out/repro-$name-$want
  "$TOP/harness/bug_reports.py" --bugs "$bugs" --series-dir "$PATCHES" --results \
    --patch "${p##*/}" "$opt" "$name=$(variant_dir "$v" cc)" > "$f.txt" 2> "$f.err" \
    || echo "$name: $(head -c 300 "$f.err" | tr '\n' ' ')" >> "$bad"
  [ -s "$f.txt" ] || printf '%s; ' "no reproducer (no bug of $(basename "$bugs") names this fix)"
  while IFS=$'\t' read -r -a line; do
    printf '%s: %s; ' "${line[0]}" "${line[2]^^}"
  done < "$f.txt"
}

# tests NAME PATCH: the glibc tests that PATCH adds (its new tst-*.c files
# that are tests of their subdirectory), each run in the fixcheck tree.
tests () {
  local name=$1 p=$2 t res obj found=
  obj=$(variant_dir fixcheck obj)
  for t in $(sed -n 's|^+++ b/\([a-z_]*\)/\(tst-[A-Za-z0-9_-]*\)\.c$|\1/\2|p' "$p"); do
    # New files that are not tests of their directory are modules.
    selected_tests fixcheck "${t%/*}" "${t#*/}" > /dev/null || continue
    rm -f "$obj/$t.test-result"
    in_env "$obj" make test t="$t" > "$out/test-$name-${t#*/}.log" 2>&1
    res=$(head -n1 "$obj/$t.test-result" 2>/dev/null | cut -d: -f1)
    printf '%s: %s; ' "$t" "${res:-NOT RUN}"
    [ "$res" = PASS ] || echo "$name: $t: ${res:-not run}" >> "$bad"
    found=1
  done
  [ -n "$found" ] || echo "no glibc test of nptl/, elf/... among its new files"
}

# alone_patch K: fix K made to apply to stock without the fixes before it,
# as $PATCHES/alone-<fix>, where they meet only in Makefiles (their test
# lists: harness/rebase_fix.py drops the earlier fixes' lines from its
# context).  Prints nothing if it applies, else why not, naming the file
# and the earlier fixes that change it.
alone_patch () {
  local k=$1 p=${fixes[$1]} rp d=$out/alone-src err ex file need
  rp=$PATCHES/alone-${p##*/}
  ex=$(apply_excludes "$d" "$p" 2>/dev/null)
  # The code first (a dependency there is what the summary must name),
  # then the whole fix with its Makefiles' context made stock's.  The
  # ceiling keeps git from taking an enclosing repository for the tree's own.
  if ! err=$(cd "$d" && GIT_CEILING_DIRECTORIES=$out git apply --check ${ex:+"$ex"} \
               --exclude=Makefile --exclude='*/Makefile' "$p" 2>&1); then
    file=$(patch_error_file "$err")
    need=$(grep -l -F "diff --git a/$file b/$file" "${fixes[@]:0:k}" | sed 's|.*/||; s|-.*||' | paste -sd, -)
    echo "file ${file:-?}: needs ${need:-an earlier fix}"
  elif ! err=$("$TOP/harness/rebase_fix.py" --tree "$d" "$p" "${fixes[@]:0:k}" \
                 2>&1 > "$rp"); then
    printf '%s\n' "${err#*: }" | head -n1
  else
    : > "$rp.note"
    [ -z "$err" ] || printf '%s\n' "$err" | paste -sd';' - > "$rp.note"
    if ! err=$(cd "$d" && GIT_CEILING_DIRECTORIES=$out git apply --check ${ex:+"$ex"} "$rp" 2>&1); then
      # rebase_fix.py's own output must apply: a defect of the tool.
      echo "${p##*/} alone: harness/rebase_fix.py wrote a patch that does not apply: $(printf '%s' "$err" | head -n1)" >> "$bad"
      echo "the rewritten patch does not apply (see $rp)"
    fi
  fi
}

# The states in order: stock (fix 1's bugs must fail there), then each
# prefix (fix k's bugs must pass, fix k+1's fail).
rows=()
sep=$'\x1f'   # not white space: read keeps empty fields
before=$(repro fail stock "${fixes[0]}" stock)
for k in "${!fixes[@]}"; do
  p=${fixes[k]} name=step$((k + 1)) with= own= next=
  if build_state "$name" "${fixes[@]:0:k+1}"; then
    with=$(repro pass "$name" "$p" fixcheck) own=$(tests "$name" "$p")
    [ $((k + 1)) -lt ${#fixes[@]} ] && next=$(repro fail "$name" "${fixes[k+1]}" fixcheck)
  else
    with="does not build"
  fi
  rows+=("$k$sep$before$sep$with$sep$own")
  before=$next
done

# Each fix but the first (which is a prefix already) alone on stock, in a
# tree of stock's source unpacked once (renamed into place when whole).
rm -rf "$out/alone-src" "$out/alone-src.new"; mkdir -p "$out/alone-src.new"
tar -xf "$stock_tar" -C "$out/alone-src.new" --strip-components=1 \
  && mv "$out/alone-src.new" "$out/alone-src" \
  || die "cannot unpack $stock_tar into $out/alone-src.new (is the disk full?)"
alone=()
for k in "${!fixes[@]}"; do
  p=${fixes[k]}
  if [ "$k" -eq 0 ]; then alone+=("= step1"); continue; fi
  why=$(alone_patch "$k")
  if [ -n "$why" ]; then
    alone+=("does not apply to stock alone ($why)")
  elif build_state "alone$((k + 1))" "$PATCHES/alone-${p##*/}"; then
    # Stock, once more for this fix's own bugs (before was stock + the fixes before it).
    alone+=("$(sed 's/$/; /' "$PATCHES/alone-${p##*/}.note")stock: $(repro fail "stock$((k + 1))" "$p" stock) alone: $(repro pass "alone$((k + 1))" "$p" fixcheck)$(tests "alone$((k + 1))" "$p")")
  else
    alone+=("does not build alone")
  fi
done

{
  echo "# Each fix of glibc $(glibc_label) on its own"
  echo
  echo "$(date -u +%F), $(uname -m), $(nproc) CPUs, Linux $(uname -r).  \"before\": stock and"
  echo "the fixes before this one (the bug's reproducer must FAIL); \"with\": and this"
  echo "fix (it must PASS, and the glibc tests the fix adds too); \"alone\": stock"
  echo "and this fix only (with the lines the earlier fixes added to a Makefile"
  echo "dropped from its context, where the summary says so)."
  echo
  echo "| fix | before | with | its glibc tests, with | alone |"
  echo "|---|---|---|---|---|"
  for r in "${rows[@]}"; do
    IFS=$sep read -r k b w o <<< "$r"
    p=${fixes[k]##*/}
    printf '| %s | %s | %s | %s | %s |\n' "${p%.patch}" "${b:--}" "${w:--}" "${o:--}" "${alone[k]}"
  done
} > "$out/summary.md"
cat "$out/summary.md"
[ -s "$bad" ] && die "$(wc -l < "$bad") unexpected result(s), first: $(head -n1 "$bad") (all: $bad)"
note "check-fixes: no unexpected result ($out/summary.md)"
