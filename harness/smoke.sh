#!/usr/bin/env bash
# smoke.sh VARIANT...: prove each sysroot is what it claims to be.
#
# A program built with the variant's compiler wrapper must report glibc
# $BASE and load the libc of that sysroot (which, for a patched variant,
# differs from stock's); the
# same program built with the host's compiler must load the host's libc, and
# the variant's `run` wrapper must move it onto the sysroot's libc.  For
# another target (ARCH), the "host" program is built by Debian's cross
# compiler for that target, against its libc for that target, which this
# machine cannot load: only the `run` wrapper's part is checked then.
. "$(dirname "$0")/lib.sh"
ensure_arch run
enter_emulator "$0" "$@"

# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $DEFAULT_VARIANTS
out=$(base_dir smoke)
mkdir -p "$out"
src=$TOP/tests/smoke/libc-version.c
fail=0

field () { awk -v k="$1" '$1 == k { print $2 }'; }
check () {
  if [ "$2" = "$3" ]; then echo "PASS: smoke $1"
  else echo "FAIL: smoke $1: got '$2', want '$3'"; fail=1; fi
}

"$(arch_tool gcc)" -o "$out/host" "$src" || die "$(arch_tool gcc) cannot build $src"
if ! is_cross; then
  host_libc=$("$out/host" | field libc)
  check "host program loads the host's libc ($host_libc)" \
    "$(readlink -f "$host_libc" | grep -c "^$BUILD/")" 0
fi

for v in "$@"; do
  root=$(variant_dir "$v" root)
  [ -x "$(variant_dir "$v" cc)" ] || die "no sysroot for $v: run 'make sysroot BASE=$BASE' first"
  "$(variant_dir "$v" cc)" -o "$out/$v" "$src" || { echo "FAIL: smoke $v: cannot compile"; fail=1; continue; }
  res=$("$out/$v") || { echo "FAIL: smoke $v: does not run"; fail=1; continue; }
  libc=$(echo "$res" | field libc)
  want_ver=$(glibc_version)
  check "$v reports glibc $want_ver" "$(echo "$res" | field version)" "$want_ver"
  check "$v loads its own libc" "$(readlink -f "$libc" | grep -c "^$root/")" 1
  if [ "$v" != stock ] && grep -q '^patch: ' "$root/NPTL-SCALE"; then
    check "$v libc differs from stock's (its series is applied)" \
      "$(cmp -s "$libc" "$(variant_dir stock root)/${libc#"$root"/}" && echo same || echo differs)" differs
  fi
  check "$v run wrapper moves a host program onto its libc" \
    "$(readlink -f "$("$(variant_dir "$v" run)" "$out/host" | field libc)")" "$(readlink -f "$libc")"
  echo "$v: $(echo "$res" | tr '\n' ' ')"
done
exit $fail
