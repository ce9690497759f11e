#!/usr/bin/env bash
# check.sh VARIANT...: the test gate.
#
# For each variant (stock first): the smoke test of its sysroot, then the same
# selection of glibc's own tests (harness/check-selection; CHECK=full runs
# glibc's whole `make check`) through glibc's own make rules in the variant's
# build tree, then our DejaGnu suite (testsuite/) built with the variant's
# compiler wrapper.  Every variant's results are written as a .sum file under
# build/<base>/check/ (CHECK=full: check-full/) and compared with stock's
# by harness/compare.py, which
# exits non-zero on any regression.  CHECK_BENCH=0 skips the benchmark smoke;
# CHECK_SELFTEST=0 the harness's self-test; SELECTION=FILE replaces
# harness/check-selection.  CHECK_RESUME=1 (make check-series) keeps the
# results of a variant that an earlier run made with the same build and
# the same tests (check_key) and only compares them again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/env.sh"
check_arch run

# shellcheck disable=SC2046
set -- $(compared_variants "$@")
CHECK=${CHECK:-quick}
# Failed tests are run again this many times; one that then passes is FLAKY.
RETRIES=${RETRIES:-2}
# A wall-clock bound on one make invocation (glibc's test driver already
# kills a hung test after its own timeout).
MAKE_LIMIT=${MAKE_LIMIT:-5400}
if [ "$CHECK" = full ]; then out=${CHECK_OUT:-$(base_dir check-full)}
else out=${CHECK_OUT:-$(base_dir check)}; fi
mkdir -p "$out"; [ "${CHECK_RESUME:-0}" = 1 ] || rm -rf "$out/failed"
# An interrupt stops the gate here, whatever the tool it interrupted
# does with it (runtest exits 130): a variant interrupted half-way is
# never recorded as done (CHECK_RESUME).
trap 'exit 130' INT TERM HUP

resolve_isolation
ensure_arch run
# An emulated ARCH: the whole run under the harness's qemu-user (lib.sh),
# entered once ISOLATION is settled (a dockerd is started out here).
enter_emulator "$0" "$@"
for v in "$@"; do
  [ -f "$(variant_dir "$v")/stamp.installed" ] && [ -f "$(variant_dir "$v" obj)/config.status" ] \
    || die "sysroot $v of glibc $(glibc_label) is missing or half-built; run 'make sysroot BASE=$BASE VARIANTS=\"$*\"'"
done

phase () {  # phase NAME CMD...: run and time one part of the gate
  local t0=$(date +%s) rc
  note "$1"
  "${@:2}"; rc=$?
  printf '%-44s %5ds\n' "$1" $(( $(date +%s) - t0 )) >> "$out/times"
  return $rc
}

# cond_legacy_coverage VARIANT: one .sum line saying whether every nptl
# test whose binary waits on a condvar (calls pthread_cond_wait,
# pthread_cond_timedwait, pthread_cond_clockwait, cnd_wait or
# cnd_timedwait) is in the list that nptl/Makefile runs again in the
# legacy condvar mode (tests-cond-legacy), apart from the tests that set
# the mode themselves (*cond-legacy*).  UNSUPPORTED for a glibc without the
# mode.  Only the tests built so far are looked at.
cond_legacy_coverage () {
  local v=$1 obj src listed t missing=()
  obj=$(variant_dir "$v" obj) src=$(variant_dir "$v" src)
  if ! grep -q 'cond_legacy' "$src/sysdeps/nptl/dl-tunables.list" 2>/dev/null; then
    echo "UNSUPPORTED: nptl/cond-legacy-coverage: no glibc.pthread.cond_legacy in this glibc"
    return
  fi
  listed=" $(in_env "$src/nptl" make -r -s -f Makefile -f "$TOP/harness/print-var.mk" \
    objdir="$obj" subdir=nptl ..=../ print-cond-legacy 2>/dev/null) "
  for t in $(selected_tests "$v" nptl '.*'); do
    [ -f "$obj/nptl/$t" ] || continue
    case $t in *cond-legacy*) continue ;; esac
    "$(arch_tool nm)" "$obj/nptl/$t" 2>/dev/null \
      | grep -qE ' [UTW] (__)?(pthread_cond_(timed|clock)?wait|cnd_(timed)?wait)(@|$)' \
      && [[ $listed != *" $t "* ]] && missing+=("$t")
  done
  if [ ${#missing[@]} = 0 ]; then echo "PASS: nptl/cond-legacy-coverage"
  else echo "FAIL: nptl/cond-legacy-coverage: not run in the legacy mode: ${missing[*]}"; fi
}

# run_tests VARIANT SUBDIR JOBS TEST...: make the tests' .out files, with
# the prerequisites that glibc's makefiles lack (test-deps.mk).
run_tests () {
  local sub=$2 j=$3 obj src t targets=()
  obj=$(variant_dir "$1" obj) src=$(variant_dir "$1" src)
  shift 3
  for t in "$@"; do
    # The object and its dependency file too: ccache writes dependency
    # files with relative paths, which make cannot match to a generated
    # source that it deleted after the first run (test-as-const-*).
    rm -f "$obj/$sub/$t".{out,test-result,o,o.d}
    targets+=("$obj/$sub/$t.out")
  done
  in_env "$src/$sub" timeout "$MAKE_LIMIT" make -r -k -j"$j" \
    -f Makefile -f "$TOP/harness/test-deps.mk" \
    objdir="$obj" subdir="$sub" ..=../ "${targets[@]}" >> "$log" 2>&1
  return 0
}

# (compare.py's NO_RESULT matches the "(no result" of a missing result.)
result_of () {  # result_of VARIANT SUBDIR TEST: one .sum line
  local r
  r=$(variant_dir "$1" obj)/$2/$3.test-result
  if [ -s "$r" ]; then head -n1 "$r"
  else echo "FAIL: $2/$3 (no result: the test did not build or was killed)"; fi
}

glibc_tests () {
  local v=$1 obj sum sub re tests t
  obj=$(variant_dir "$v" obj)
  sum=$out/glibc-$v.sum
  log=$out/glibc-$v.log
  : > "$log"
  if [ "$CHECK" = full ]; then
    in_env "$obj" timeout $((MAKE_LIMIT * 4)) make -k -j"$(jobs)" check >> "$log" 2>&1
    full_results "$obj" "$log" > "$sum.tmp"
  else
    : > "$sum.tmp"
    while read -r sub re; do
      case $sub in ''|'#'*) continue ;; esac
      mapfile -t tests < <(selected_tests "$v" "$sub" "$re")
      [ ${#tests[@]} -gt 0 ] || die "no test of $sub matches '$re' in $v (selection out of date?)"
      note "$v: glibc $sub: ${#tests[@]} tests"
      run_tests "$v" "$sub" "$(jobs)" "${tests[@]}"
      for t in "${tests[@]}"; do result_of "$v" "$sub" "$t"; done >> "$sum.tmp"
    done < "${SELECTION:-$TOP/harness/check-selection}"
  fi
  cond_legacy_coverage "$v" >> "$sum.tmp"
  rerun_failures "$out/glibc-$v" glibc_rerun "$v"
}

# full_results OBJ LOG: the result of every test glibc's make check ran
# in build tree OBJ (its .test-result files: glibc's tests.sum is not
# written when a subdirectory's tests stop make), and UNSUPPORTED for a
# test that needs a manual/ file the tree lacks (Debian's tarballs have
# no manual), as LOG's "No rule to make target '../manual/..." says.
full_results () {
  find "$1" -name '*.test-result' -print0 | sort -z | xargs -0 -r head -qn1
  sed -n "s|^make\[[0-9]*\]: \*\*\* No rule to make target '\.\./\(manual/[^']*\)', needed by '$1/\(.*\)\.out'\.\$|UNSUPPORTED: \2: needs \1, which this tree does not have|p" "$2" | sort -u
}

# glibc_rerun VARIANT SUBDIR/TEST: run one glibc test alone; print its
# result.  The output of the run that failed is kept as
# $out/failed/VARIANT/SUBDIR/TEST.out.
glibc_rerun () {
  local keep=$out/failed/$1/$2.out
  if [ ! -e "$keep" ]; then
    mkdir -p "${keep%/*}"
    cp "$(variant_dir "$1" obj)/$2.out" "$keep" 2>/dev/null || echo "(no output)" > "$keep"
  fi
  run_tests "$1" "${2%%/*}" 1 "${2#*/}"
  result_of "$1" "${2%%/*}" "${2#*/}"
}

# rerun_failures PREFIX CMD ARG: run again, RETRIES times and alone, each
# test that FAILed in PREFIX.sum.tmp and that the known-failures list does
# not explain (CMD ARG TEST prints one result line); keep those lines, in
# the order they ran, in PREFIX.reruns (a .sum file) and write PREFIX.sum,
# where a failure that then passed is FLAKY.
rerun_failures () {
  local prefix=$1 t; shift
  "$TOP/harness/compare.py" --failed --known "$(known_failures)" "$prefix.sum.tmp" |
  while read -r t; do
    for _ in $(seq "$RETRIES"); do "$@" "$t" < /dev/null; done
  done > "$prefix.reruns"
  "$TOP/harness/compare.py" --merge-reruns "$prefix.reruns" "$prefix.sum.tmp" \
    > "$prefix.sum"
  rm -f "$prefix.sum.tmp"
}

# runtest_in DIR VARIANT [TEST.c [NAME]]: run our suite (or one test of
# it) into DIR and print its result lines (or NAME's).  Built with the
# variant's own wrapper on the host: the sysroot runs here with no
# environment, whichever way it was built.  The library is given the
# paths it uses (lib.sh's layout) rather than deriving them.  No GDB for
# another target (gdb-threads is then UNSUPPORTED): this machine's gdb
# cannot load an i686 or aarch64 libthread_db, and under qemu-user it would
# trace qemu, not the program.
runtest_in () {
  local dir=$1 v=$2
  rm -rf "$dir"; mkdir -p "$dir"
  (cd "$dir" && runtest --tool nptl-scale --srcdir "$TOP/testsuite" \
     --outdir "$dir" CC="$(variant_dir "$v" cc)" SYSROOT="$(variant_dir "$v" root)" \
     GDB="$(is_cross || command -v gdb)" STOCK_CC="$(variant_dir stock cc)" \
     STOCK_SYSROOT="$(variant_dir stock root)" \
     STRESS_SECONDS="${STRESS_SECONDS:-2}" ${3:+"stress.exp=$3"} \
     > "$dir/runtest.out" 2>&1 < /dev/null)
  "$TOP/harness/compare.py" --lines ${4:+--test "$4"} "$dir/nptl-scale.sum"
}

# dejagnu_rerun VARIANT TEST: run one test of our suite (TEST is a file's
# name, or NAME/MODE for its run in a mode); print its result.
dejagnu_rerun () {
  runtest_in "$out/dejagnu-$1.rerun" "$1" "${2%%/*}.c" "$2"
}

dejagnu_tests () {
  local v=$1
  runtest_in "$out/dejagnu-$v" "$v" > "$out/dejagnu-$v.sum.tmp"
  rerun_failures "$out/dejagnu-$v" dejagnu_rerun "$v"
  rm -rf "$out/dejagnu-$v.rerun"
}

# abi_tests VARIANT: the pthread types' sizes and alignments as a program
# built against VARIANT's headers sees them, each compared with stock's
# (abi/TYPE); a program built against stock's headers run on VARIANT's
# dynamic linker and libc (abi/stock-built-binary); VARIANT's dynamic
# linker with stock's libc and stock's with VARIANT's, as when a package
# update has replaced one and not yet the other (abi/mixed-loader/
# variant-ld.so, abi/mixed-loader/variant-libc), and what those two
# share: the layouts of the structures (abi/layout/STRUCT) and the
# tunables' IDs (abi/tunable-ids).
# Only an explicit ABI experiment (e.g. padded) may fail the first two,
# and then they show what breaks.  The probe is built against each
# variant's headers and run on its library (abi-VARIANT/probe,
# abi-VARIANT.sizes); stock's build is the "stock-built binary" run on
# the others.
abi_tests () {
  local v=$1 d stock=$out/abi-stock t size align ssize salign cc
  d=$out/abi-$v cc=$(variant_dir "$v" cc)
  mkdir -p "$d"
  # bin/cc links with a DT_RPATH to its own sysroot, which the loader
  # searches before its --library-path: a probe built so would load its
  # own libc under any loader.  The probe has a DT_RUNPATH instead, which
  # comes after --library-path.
  "$cc" -O2 -pthread -Wl,--enable-new-dtags -o "$d/probe" "$TOP/harness/abi-probe.c" \
    && "$(variant_dir "$v" run)" "$d/probe" sizes > "$d.sizes" \
    || { echo "FAIL: abi/build: abi-probe.c does not build or run"; return; }
  while read -r t size align; do
    read -r ssize salign < <(awk -v t="$t" '$1 == t { print $2, $3 }' "$stock.sizes")
    if [ "$size $align" = "$ssize $salign" ]; then echo "PASS: abi/$t"
    else echo "FAIL: abi/$t: size $ssize -> $size, alignment $salign -> $align"; fi
  done < "$d.sizes"
  abi_run abi/stock-built-binary FAIL "$v" "$v" "$stock/probe" embedded
  if [ "$v" = stock ]; then
    for t in layout/rtld_global layout/rtld_global_ro layout/pthread tunable-ids \
             mixed-loader/variant-ld.so mixed-loader/variant-libc \
             mixed-loader/variant-libc-cond_legacy; do
      echo "UNSUPPORTED: abi/$t: stock with itself"
    done
    return
  fi
  # A distribution's stable update must work with the other half of the
  # release it updates; upstream's development may change GLIBC_PRIVATE
  # interfaces between builds, so there a failure is reported, as XFAIL.
  local bad=XFAIL
  [ "$(stock_kind)" = debian ] && bad=FAIL
  abi_layout "$v" "$bad" rtld_global ld.so
  abi_layout "$v" "$bad" rtld_global_ro ld.so
  abi_layout "$v" "$bad" pthread libc.so.6
  abi_tunable_ids "$v" "$bad"
  abi_run abi/mixed-loader/variant-ld.so "$bad" "$v" stock "$stock/probe" threads
  abi_run abi/mixed-loader/variant-libc "$bad" stock "$v" "$stock/probe" threads
  # A tunable that VARIANT's libc has and stock's ld.so has not.
  abi_run abi/mixed-loader/variant-libc-cond_legacy "$bad" stock "$v" \
    "$stock/probe" threads glibc.pthread.cond_legacy=1
}

# abi_layout VARIANT BAD STRUCT OBJECT: struct STRUCT, which ld.so and
# libc.so of a release both use, as the debug information of VARIANT's
# OBJECT (ld.so or libc.so.6) and of stock's describes it: PASS if every
# member of stock's is at the same offset with the same size and type
# and the structure has the same size (new members only in holes), else
# BAD; UNSUPPORTED if gdb cannot read it.
abi_layout () {
  local v=$1 bad=$2 t=$3 obj=$4 gdb f obj_path missing
  gdb=$(command -v gdb-multiarch || command -v gdb)
  for f in stock "$v"; do
    if [ "$obj" = ld.so ]; then obj_path=$(sysroot_loader "$f")
    else obj_path=$(sysroot_libpath "$f"); obj_path=${obj_path%%:*}/$obj; fi
    [ -n "$gdb" ] && "$gdb" -batch -nx -ex "ptype/o struct $t" "$obj_path" 2>/dev/null \
      | grep -E '^/\* +[0-9]+(: *[0-9]+)? +\| +[0-9]+ \*/|total size' > "$out/layout-$t-$f.txt"
  done
  if ! grep -q 'total size' "$out/layout-$t-stock.txt" \
      || ! grep -q 'total size' "$out/layout-$t-$v.txt"; then
    echo "UNSUPPORTED: abi/layout/$t: no debug information that ${gdb:-gdb} reads"
    return
  fi
  missing=$(grep -vxF -f "$out/layout-$t-$v.txt" "$out/layout-$t-stock.txt" | head -n1)
  if [ -z "$missing" ] && [ "$(tail -n1 "$out/layout-$t-stock.txt")" = "$(tail -n1 "$out/layout-$t-$v.txt")" ]; then
    echo "PASS: abi/layout/$t"
  else
    echo "$bad: abi/layout/$t: ${missing:+stock's member not in $v's: }$(echo "${missing:-total size differs}" | tr -s ' ')"
  fi
}

# abi_tunable_ids VARIANT BAD: libc.so asks ld.so for a tunable by its
# index in the list that the build generates (dl-tunable-list.h): PASS
# if stock's tunables keep their indices in VARIANT's list, else BAD.
abi_tunable_ids () {
  local v=$1 bad=$2 f
  for f in stock "$v"; do
    grep -o 'TUNABLE_ENUM_NAME([^)]*)' "$(variant_dir "$f" obj)/dl-tunable-list.h" \
      > "$out/tunable-ids-$f.txt" 2>/dev/null
  done
  if ! [ -s "$out/tunable-ids-stock.txt" ]; then
    echo "UNSUPPORTED: abi/tunable-ids: no dl-tunable-list.h in stock's build"
  elif [ "$(head -n "$(wc -l < "$out/tunable-ids-stock.txt")" "$out/tunable-ids-$v.txt")" \
         = "$(cat "$out/tunable-ids-stock.txt")" ]; then
    echo "PASS: abi/tunable-ids"
  else
    echo "$bad: abi/tunable-ids: $(diff "$out/tunable-ids-stock.txt" "$out/tunable-ids-$v.txt" | grep -m1 '^[<>]')"
  fi
}

# abi_run NAME BAD LOADER LIBC PROGRAM MODE [TUNABLES]: run abi-probe
# PROGRAM in MODE with the dynamic linker of variant LOADER and the
# libraries of variant LIBC (and GLIBC_TUNABLES=TUNABLES), and print
# NAME's result: PASS if it exits 0 with that dynamic linker and that libc
# mapped, else BAD (FAIL or XFAIL) and why.
abi_run () {
  local name=$1 bad=$2 loader libpath program=$5 mode=$6 o rc limit how want_ld want_libc got
  loader=$(sysroot_loader "$3") libpath=$(sysroot_libpath "$4")
  o=$out/abi-run-$3-ld.so-$4-libc-$mode${7:+-$7}.out
  # A normal run takes well under a second here (a mix that does not
  # work may hang); bash's report of a crash is not wanted on stderr.
  limit=$((30 * ${TIMEOUTFACTOR:-1}))
  { (env ${7:+GLIBC_TUNABLES="$7"} timeout "$limit" "$loader" --library-path "$libpath" \
       "$program" "$mode" > "$o" 2>&1); } 2> /dev/null
  rc=$?
  how="exit status $rc"
  [ "$rc" -gt 128 ] && how="killed by SIG$(kill -l $((rc - 128)))"
  [ "$rc" = 124 ] && how="still running after $limit s, killed"
  want_ld=$(realpath "$loader") want_libc=$(realpath "${libpath%%:*}/libc.so.6")
  got=$(awk '$1 == "loaded:" { print $3, $4; exit }' "$o")
  if [ -z "$got" ]; then
    echo "$bad: $name: $how before main ran: $(tail -n1 "$o")"
  elif [ "$got" != "$want_ld $want_libc" ]; then
    echo "$bad: $name: loaded $got instead of $want_ld $want_libc"
  elif [ $rc = 0 ]; then
    echo "PASS: $name"
  else
    got=$(grep -v '^loaded:' "$o" | tail -n1)
    echo "$bad: $name: $how${got:+: $got}"
  fi
}

# posix_tests VARIANT: the pthread_cond subset of the Open POSIX Test Suite
# (Debian's posixtestsuite source package), in both condvar modes.
posix_tests () {
  "$TOP/harness/posixtests.py" --src "$posix_src" --cc "$(variant_dir "$1" cc)" \
    --out "$out/posix-$1" --jobs "$(jobs)" > "$out/posix-$1.sum.tmp"
  rerun_failures "$out/posix-$1" posix_rerun "$1"
}

# posix_rerun VARIANT posix/INTERFACE/TEST[/cond_legacy]: that one again.
posix_rerun () {
  "$TOP/harness/posixtests.py" --src "$posix_src" --cc "$(variant_dir "$1" cc)" \
    --out "$out/posix-$1" --jobs 1 --only "$2"
}

# check_key VARIANT: what a variant's results in $out depend on, all that
# chooses, runs or judges its tests here: the variant's and stock's
# builds (the ABI and DejaGnu parts compare with stock's), the scripts
# and lists, the settings, and whether gdb and MariaDB's tests are
# there.  Computed before a variant's tests run, so that an input changed
# meanwhile makes the results stale.
check_key () {
  local h
  h=$(cd "$TOP" && hash_files "${SELECTION:-$TOP/harness/check-selection}" "$(known_failures)" \
    harness/check.sh harness/compare.py harness/env.sh harness/lib.sh harness/print-var.mk \
    harness/test-deps.mk \
    harness/smoke.sh harness/posixtests.py harness/mtrtests.py harness/abi-probe.c \
    $(find testsuite -type f | sort))
  echo "$(cat "$(variant_dir "$1")/stamp.installed") $(cat "$(variant_dir stock)/stamp.installed")" \
    "$h $CHECK $RETRIES ${STRESS_SECONDS:-2} ${TIMEOUTFACTOR:-1} $MAKE_LIMIT" \
    "gdb=$(command -v gdb >/dev/null && echo yes) mtr=${mtr_why:-yes}"
}

# resumed VARIANT KEY: with CHECK_RESUME=1, whether $out holds every
# result of VARIANT from a run whose check_key was KEY (done-VARIANT).
resumed () {
  [ "${CHECK_RESUME:-0}" = 1 ] && [ "$(cat "$out/done-$1" 2>/dev/null)" = "$2" ]
}

ensure_tools runtest
if [ "$(arch_runs)" = emulated ]; then
  # Under qemu-user a test runs several times slower: glibc's test driver
  # multiplies its time limits by TIMEOUTFACTOR.
  export TIMEOUTFACTOR=${TIMEOUTFACTOR:-10}
  # qemu-user keeps state for every guest thread it ever ran: the 100000
  # threads of nptl/tst-create-detached grew one qemu to 23 GiB and woke
  # the kernel's OOM killer, which may pick any process.  Each test's
  # private writable memory (RLIMIT_DATA; in_env takes it into a
  # container) is limited to EMULATED_DATA_GIB, so that such a test fails
  # alone.  qemu itself needs about 1 GiB (its translation buffer).
  ulimit -S -d $((${EMULATED_DATA_GIB:-8} << 20)) \
    || die "cannot limit the tests' memory (EMULATED_DATA_GIB=${EMULATED_DATA_GIB:-8})"
  emulator > "$out/emulator"
  note "$ARCH programs run by $(cat "$out/emulator")"
fi
posix_src=$BUILD/posixtestsuite
if ! [ -d "$posix_src/conformance" ]; then
  fetch_source_package bookworm posixtestsuite "$CACHE/src/posixtestsuite"
  rm -rf "$posix_src.new" && mkdir -p "$posix_src.new"
  tar -xaf "$SRC_ORIG" -C "$posix_src.new" \
    --strip-components=1 || die "cannot unpack the posixtestsuite source"
  mv "$posix_src.new" "$posix_src"
fi

# mtr_tests VARIANT: MariaDB's own tests of threads and locks with the
# server on VARIANT's glibc, both condvar modes (harness/mtrtests.py), in
# .sum lines; one UNSUPPORTED line where they cannot run here (set by
# mtr_prepare, for every variant alike).
mtr_tests () {
  if [ -n "$mtr_why" ]; then echo "UNSUPPORTED: mtr: $mtr_why"; return 0; fi
  "$TOP/harness/mtrtests.py" --run "$(variant_dir "$1" run)" --tree "$mtr_tree" \
    --out "$out/mtr-$1"
}

# mtr_prepare: the server and the client libraries installed (optional
# tools: as root with AUTO_INSTALL), then Debian's test packages unpacked
# into the cache; mtr_tree names them, or mtr_why says why not.
mtr_prepare () {
  mtr_tree= mtr_why=
  if is_cross; then
    mtr_why="MariaDB's tests run with this machine's server only (ARCH=$ARCH)"; return 0
  fi
  ensure_tools -o mariadbd mariadb perl dpkg-deb libpcre2-posix
  local t
  for t in mariadbd mariadb perl dpkg-deb libpcre2-posix; do
    have_tool "$t" || { mtr_why="missing $(tool_hint "$t")"; return 0; }
  done
  mtr_tree=$("$TOP/harness/mtrtests.py" --fetch "$CACHE" 2> "$out/mtr-fetch.err") \
    || mtr_why=$(sed 's/^mtrtests.py: //' "$out/mtr-fetch.err" | head -n1)
}

: > "$out/times"
rc=0
# The self-test's DejaGnu part builds with stock's bin/cc where its
# programs run natively (under qemu-user a killed program's output has a
# line of qemu's own); with the host's cc otherwise.
selftest_cc=cc
[ "$(arch_runs)" = native ] && selftest_cc=$(variant_dir stock cc)
[ "${CHECK_SELFTEST:-1}" = 0 ] \
  || phase "harness self-test (make selftest)" env NPTL_SCALE_CC="$selftest_cc" \
       make -s -C "$TOP" selftest > "$out/selftest.log" 2>&1 \
  || { echo "FAIL: harness self-test (see $out/selftest.log)"; rc=1; }
phase "smoke test ($*)" "$TOP/harness/smoke.sh" "$@" | tee "$out/smoke.sum" || rc=1
# The kinds of results compared, stock against each other variant.
KINDS="glibc dejagnu posix abi mtr"
phase "MariaDB's test packages" mtr_prepare
# Stock's abi part first: the others are compared with its results.
resumed stock "$(check_key stock)" \
  || phase "ABI of the pthread types, stock" abi_tests stock > "$out/abi-stock.sum"
for v in "$@"; do
  key=$(check_key "$v")
  if resumed "$v" "$key"; then note "$v: results of an earlier run with the same build and tests"; continue; fi
  rm -rf "$out/done-$v" "$out/failed/$v"
  phase "glibc tests ($CHECK), $v" glibc_tests "$v"
  phase "DejaGnu suite, $v" dejagnu_tests "$v"
  phase "Open POSIX Test Suite, pthread_cond (both modes), $v" posix_tests "$v"
  phase "MariaDB's tests of threads and locks (both modes), $v" mtr_tests "$v" \
    > "$out/mtr-$v.sum"
  [ "$v" = stock ] \
    || phase "ABI of the pthread types, $v" abi_tests "$v" > "$out/abi-$v.sum"
  echo "$key" > "$out/done-$v"
done
# A part that fails on every side compares as "no regressions": MariaDB's
# tests need a server that runs at all (stock's sides with at least one
# PASS), or else the gate fails.
if [ -z "$mtr_why" ] && ! grep -q '^PASS: mtr/[a-z]*\.' "$out/mtr-stock.sum"; then
  echo "FAIL: MariaDB's tests: no test passed on stock (see $out/mtr-stock.sum, $out/mtr-stock/)"
  rc=1
fi
for v in "$@"; do
  [ "$v" = stock ] && continue
  for kind in $KINDS; do
    echo
    echo "=== $kind tests: stock vs $v (glibc $(glibc_label)) ==="
    rm -f "$out/compare-$kind-$v.json"
    "$TOP/harness/compare.py" --known "$(known_failures)" \
      --json "$out/compare-$kind-$v.json" "$out/$kind-stock.sum" "$out/$kind-$v.sum" \
      | tee "$out/compare-$kind-$v.txt" || rc=1
  done
done
if [ "${CHECK_BENCH:-1}" != 0 ]; then
  # Benchmarks run natively only (bench.sh): none under qemu-user.
  if [ "$(arch_runs)" = emulated ]; then
    echo; echo "benchmark smoke: not run, ARCH=$ARCH runs here under qemu-user"
  else
    phase "benchmark smoke (BENCH=quick)" env BENCH=quick "$TOP/harness/bench.sh" "$@" \
      > "$out/bench-quick.log" 2>&1 \
      || { echo "FAIL: benchmark smoke (see $out/bench-quick.log)"; rc=1; }
  fi
fi
echo
echo "=== time of each part ==="
cat "$out/times"
# One closing line for CI, from the comparisons' JSON: the tests of the
# other variants that did not regress, and the regressions plus failed
# smoke checks.
comparisons=()
for v in "$@"; do
  [ "$v" = stock ] && continue
  for kind in $KINDS; do comparisons+=("$out/compare-$kind-$v.json"); done
done
"$TOP/harness/compare.py" --summary --smoke "$out/smoke.sum" "${comparisons[@]}"
[ $rc = 0 ] && echo "make check: no regressions" || echo "make check: FAILED"
exit $rc
