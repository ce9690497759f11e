#!/usr/bin/env bash
# build.sh VARIANT...: build glibc $BASE (or GLIBC_SRC) for each VARIANT and install it into
# its own sysroot.
#
#   stock    the source as shipped
#   patched  stock + patches/glibc-$BASE/series (or $PATCHES/series)
#   NAME     stock + $PATCHES/series.NAME, an opt-in variant (e.g. padded);
#            its extra configure arguments, if any, are in series.NAME.configure
#
# Every step is keyed by a hash of its inputs and skipped when they have not
# changed; an interrupted step is redone (make itself resumes).  The patched
# tree is updated with `rsync --checksum`, so after editing one patch only the
# files it touches get new times and make rebuilds just what depends on them;
# objects identical to stock come from ccache.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/env.sh"

# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $DEFAULT_VARIANTS

# Free space a build of one variant needs (source, objects, sysroot): measured
# at about 2.6 GiB for 2.43 on x86_64; ask for margin.
NEED_KB=$((4 * 1024 * 1024))

check_disk () {
  local dir=$1 avail
  mkdir -p "$dir"
  avail=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
  [ "$avail" -ge "$NEED_KB" ] \
    || die "only $((avail / 1024)) MiB free under $dir; a glibc build needs $((NEED_KB / 1024)) MiB (nothing was changed)"
}

timed () {
  local what=$1 t0 rc; shift
  t0=$(date +%s)
  "$@"; rc=$?
  printf '%s %s %ds rc=%d\n' "$(date -u +%FT%TZ)" "$what" $(( $(date +%s) - t0 )) $rc \
    >> "$vdir/times.log"
  return $rc
}

# Unpack the source and apply the series into $src.
prepare_src () {
  local v=$1 key=$2 new=$src.new p err file ex
  [ -f "$vdir/stamp.src" ] && [ "$(cat "$vdir/stamp.src")" = "$key" ] && [ -d "$src" ] \
    && return 0
  rm -rf "$new"; mkdir -p "$new"
  tar -xf "$stock_src/glibc.tar" -C "$new" --strip-components=1
  while IFS= read -r p; do
    # Keep git from taking the enclosing repository for the tree's own.
    ex=$(apply_excludes "$new" "$p")
    if ! err=$(cd "$new" && GIT_CEILING_DIRECTORIES=$vdir git apply --whitespace=nowarn \
                 ${ex:+"$ex"} "$p" 2>&1); then
      file=$(patch_error_file "$err")
      rm -rf "$new"
      die "patch ${p##*/} does not apply to glibc $LABEL${file:+ (file $file)}: $(printf '%s' "$err" | head -n1)"
    fi
  done < <(series_patches "$v")
  if [ -d "$src" ]; then
    rsync -rlc --delete "$new/" "$src/" \
      || die "could not update $src (rsync failed; the old source is left as it was)"
    rm -rf "$new"
  else
    mv "$new" "$src"
  fi
  echo "$key" > "$vdir/stamp.src"
}

# The configure arguments of a cross build: --build, this machine (its
# config.guess), and --host, ARCH; an i686 build on x86_64 is a native one
# for configure, as its programs run here.  Nothing for a native build.
cross_args () {
  is_cross || return 0
  if [ "$(arch_runs)" = native ]; then
    echo " --build=$(arch_triplet) --host=$(arch_triplet)"
  else
    echo " --build=$(arch_triplet "$(native_arch)") --host=$(arch_triplet)"
  fi
}

configure_args () {
  local v=$1 extra
  extra=$(series_file "$v").configure
  echo --prefix=/usr --enable-stack-protector=strong --disable-werror \
       --without-selinux --disable-crypt --disable-nscd
  [ "$v" != stock ] && [ -f "$extra" ] && grep -v '^#' "$extra"
}

# The paths of the variant being built (harness/lib.sh's layout): vdir,
# src, obj, root; the wrappers are written by write_wrappers.
build_variant () {
  local v=$1 srckey cfgkey
  vdir=$(variant_dir "$v") src=$(variant_dir "$v" src) obj=$(variant_dir "$v" obj)
  root=$(variant_dir "$v" root)
  check_disk "$BUILD"
  mkdir -p "$vdir"
  # shellcheck disable=SC2046
  srckey=$(hash_files "$stock_src/glibc.tar" $(series_patches "$v"))-$(series_patches "$v" | sed 's|.*/||' | sha256sum | cut -c1-8)
  cfgkey=$(echo "$srckey $(configure_args "$v") $ISOLATION" | sha256sum | cut -c1-16)
  if [ -f "$vdir/stamp.installed" ] && [ "$(cat "$vdir/stamp.installed")" = "$cfgkey" ] \
     && [ -x "$(variant_dir "$v" cc)" ]; then
    # Written again: they follow the harness and the compiler.
    write_wrappers "$v"
    note "glibc $LABEL $v: up to date"
    return 0
  fi
  if compile_only && [ "$(cat "$vdir/stamp.compiled" 2>/dev/null)" = "$cfgkey" ]; then
    note "glibc $LABEL $v (compiled only): up to date"
    return 0
  fi
  local t0; t0=$(date +%s)
  # A target that is only compiled is built from a new build tree every
  # time (objects come from ccache, which repeats their warnings), so that
  # make.log holds every warning of the build (warnings.txt).
  compile_only && rm -rf "$obj"
  note "glibc $LABEL $v: preparing source"
  timed prepare_src prepare_src "$v" "$srckey" || exit 1

  # One configuration for every variant: anything that differs here (even
  # --with-pkgversion, which lands in config.h) changes every object and
  # defeats ccache between stock and patched.
  local cfg
  cfg="$(configure_args "$v" | tr '\n' ' ') --with-pkgversion=nptl-scale$(cross_args) CC=ccache\ $(arch_tool gcc) CXX=ccache\ $(arch_tool g++)"
  if ! [ -f "$obj/config.status" ] || [ "$(cat "$vdir/stamp.configure" 2>/dev/null)" != "$cfg" ]; then
    note "glibc $LABEL $v: configure"
    rm -rf "$obj"; mkdir -p "$obj"
    # The source named relative to the build tree (../src): the same text
    # for every variant, where an absolute path would differ between them.
    # shellcheck disable=SC2086
    timed configure in_env "$obj" bash -c "$(realpath -m --relative-to="$obj" "$src")/configure $cfg" \
      > "$vdir/configure.log" 2>&1 \
      || die "configure of $v failed (see $vdir/configure.log)"
    # A cross build runs its tests here (ensure_arch run: binfmt_misc for
    # an emulated target), which glibc does not assume when cross-compiling.
    if is_cross; then echo 'run-built-tests = yes' > "$obj/configparms"; fi
    echo "$cfg" > "$vdir/stamp.configure"
  fi

  # glibc's subdirectory makes do not see a change to a sysdeps
  # dl-tunables.list (Makeconfig matches those with a wildcard relative to
  # the source root), so bring the tunables header up to date from the top
  # first; it is replaced only if it changes.
  if [ -f "$obj/config.make" ]; then
    in_env "$obj" make -r -C "$src" objdir="$obj" \
      "$obj/dl-tunable-list.h" > "$vdir/make.log" 2>&1 \
      || die "build of $v failed (see $vdir/make.log)"
  fi
  # Likewise nptl_db's db-symbols.v.i (the db-symbols test's input) has
  # no dependency on the structs.def it includes: drop it, so that the
  # test reads the current list of libthread_db's symbols.
  rm -f "$obj/nptl_db/db-symbols.v.i"
  if compile_only; then
    # libc.so and everything in it (every subdirectory's part of libc,
    # nptl/ and elf/ with ld.so among them); nothing is installed.
    note "glibc $LABEL $v: make -j$(jobs) lib (log: $vdir/make.log)"
    timed make in_env "$obj" make -j"$(jobs)" lib >> "$vdir/make.log" 2>&1 \
      || die "build of $v failed (see the end of $vdir/make.log)"
    warnings < "$vdir/make.log" > "$vdir/warnings.txt"
    echo "$cfgkey" > "$vdir/stamp.compiled"
    note "glibc $LABEL $v: compiled in $(( $(date +%s) - t0 ))s, $(wc -l < "$vdir/warnings.txt") warnings"
    return 0
  fi
  note "glibc $LABEL $v: make -j$(jobs) (log: $vdir/make.log)"
  timed make in_env "$obj" make -j"$(jobs)" >> "$vdir/make.log" 2>&1 \
    || die "build of $v failed (see the end of $vdir/make.log; rerun to resume)"

  note "glibc $LABEL $v: install into $root"
  rm -rf "$root.new"
  # Debian's tarballs (the .orig one too) have no manual, as it is not
  # DFSG-free: MAKEINFO=: skips the info pages, as Debian's own build does.
  timed install in_env "$obj" make -j"$(jobs)" install MAKEINFO=: DESTDIR="$root.new" \
    > "$vdir/install.log" 2>&1 \
    || die "install of $v failed (see $vdir/install.log)"
  fix_linker_scripts "$root.new"
  { echo "glibc $LABEL, variant $v"; cat "$stock_src/ORIGIN"
    series_patches "$v" | sed 's|.*/|patch: |'; } > "$root.new/NPTL-SCALE"
  rm -rf "$root"; mv "$root.new" "$root"
  write_wrappers "$v"
  echo "$cfgkey" > "$vdir/stamp.installed"
  note "glibc $LABEL $v: done in $(( $(date +%s) - t0 ))s"
  printf '%s total %ds\n' "$(date -u +%FT%TZ)" $(( $(date +%s) - t0 )) >> "$vdir/times.log"
}

# warnings: the compiler's warnings in a build log (stdin), one per line,
# without line and column (a patch moves them) and sorted, so that two
# variants' lists compare with comm.
warnings () {
  sed -n -E 's/^([^ :]+):[0-9]+(:[0-9]+)?: warning: (.*)$/\1: warning: \3/p' | sort
}

# libc.so and friends are linker scripts naming /lib64/... and /usr/lib64/...
# (/lib/ and /usr/lib/ on i686).  Point them into the sysroot so that the
# wrapper never links the host's libc.
fix_linker_scripts () {
  local root=$1 f
  for f in "$root"/usr/lib*/*.so; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    head -c 64 "$f" | grep -q 'GNU ld script' || continue
    sed -i -E "s@(^|[ (])(/usr)?/lib(64|/[a-z0-9_]+-linux-gnu)?/@\1${root%.new}\2/lib\3/@g" "$f"
  done
}

# write_wrappers VARIANT: its bin/cc and bin/run (variant_dir VARIANT cc, run),
# and the compiler's libgcc_s.so.1 in the sysroot.
# The dynamic linker, the shared libraries (slib: where libc.so.6 is) and
# the link-time directory (lib: where the libc.so linker script is) are
# found in the sysroot: lib64/ and usr/lib64/ on x86_64, lib/ (the loader)
# and lib64/ on aarch64, lib/ and usr/lib/ on i686.
write_wrappers () {
  local root cc run ldso libpath slib lib gcc gcc_s f
  root=$(variant_dir "$1" root) cc=$(variant_dir "$1" cc) run=$(variant_dir "$1" run)
  ldso=$(sysroot_loader "$1")
  [ -n "$ldso" ] || die "no dynamic linker installed in $root"
  libpath=$(sysroot_libpath "$1")
  [ -n "$libpath" ] || die "no libc.so.6 or libc.so installed in $root"
  slib=${libpath%%:*} lib=${libpath#*:}
  gcc=$(arch_tool gcc)
  # The compiler's libgcc_s.so.1 beside libc.so.6, as on a system:
  # pthread_cancel and pthread_exit load it to unwind.  bin/cc links with
  # a DT_RPATH (--disable-new-dtags), which, unlike a DT_RUNPATH, is also
  # searched for what libc loads itself; with neither, the loader looks in
  # the host's ld.so.cache, which has only the host's libgcc_s (and i686's
  # where gcc-multilib is installed): an aarch64 program that cancelled a
  # thread aborted with "libgcc_s.so.1 must be installed".
  gcc_s=$($gcc -print-file-name=libgcc_s.so.1)
  [ -f "$gcc_s" ] || die "$gcc has no libgcc_s.so.1 for $ARCH"
  cp -L "$gcc_s" "$slib/libgcc_s.so.1"
  # Likewise at the top of the build tree, the first directory of the
  # loader's --library-path when glibc runs its tests there, with the
  # compiler's libstdc++.so.6 (the C++ tests): 2.43's rules also give it
  # the compiler's library directory (gnulib-extralibdir), 2.36's do not,
  # and for an emulated target no directory of this machine has them
  # (every test that cancelled or exited a thread aborted, every C++ test
  # exited 127).
  if [ "$(arch_runs)" = emulated ]; then
    cp -L "$gcc_s" "$(variant_dir "$1" obj)/libgcc_s.so.1"
    f=$($gcc -print-file-name=libstdc++.so.6)
    [ -f "$f" ] || die "$gcc has no libstdc++.so.6 for $ARCH (the C++ tests need it)"
    cp -L "$f" "$(variant_dir "$1" obj)/libstdc++.so.6"
  fi
  mkdir -p "$(dirname "$cc")" "$(dirname "$run")"
  cat > "$cc" <<EOF
#!/bin/sh
# Compile and link against the glibc sysroot $root
# ($ARCH): its headers, crt files and libc, its dynamic linker and an rpath
# to it (DT_RPATH: also searched for what libc loads, libgcc_s.so.1).
# The result runs on the host with no environment variables.
case " \$* " in
  *" -c "*|*" -E "*|*" -S "*|*" -M "*|*" -MM "*)
    exec $gcc -isystem "$root/usr/include" "\$@" ;;
esac
exec $gcc -isystem "$root/usr/include" -B"$lib/" -B"$slib/" \\
  -L"$lib" -L"$slib" \\
  -Wl,--disable-new-dtags -Wl,-rpath,"$slib:$lib" \\
  -Wl,--dynamic-linker="$ldso" "\$@"
EOF
  cat > "$run" <<EOF
#!/bin/sh
# Run an existing dynamically linked program under the glibc of $root.
[ \$# -gt 0 ] || { echo "usage: \$0 PROGRAM [ARGS...]" >&2; exit 2; }
exec "$ldso" --library-path "$slib:$lib" "\$@"
EOF
  chmod +x "$cc" "$run"
}

check_base
# ARCH_NEED=run: what comes after (make check, bench) runs the programs, so
# a target that is only compiled is refused before anything is built.
if compile_only && [ "$ARCH_NEED" != run ]; then ensure_arch; else ensure_arch run; fi
# SYSROOT@TUNABLES names a way to run a sysroot (lib.sh's sysroot_of);
# build the sysroot, once.
sysroots=()
for v in "$@"; do
  s=$(sysroot_of "$v")
  case " ${sysroots[*]} " in *" $s "*) ;; *) sysroots+=("$s") ;; esac
done
set -- "${sysroots[@]}"
for v in "$@"; do check_variant "$v"; done
check_disk "$BUILD"
# The source tarball and its ORIGIN (fetch-source.sh).
stock_src=$(source_dir)
# The source trees are prepared on the host, whatever ISOLATION is.
ensure_tools rsync git tar
"$TOP/harness/fetch-source.sh" || exit 1
# The version of the source just fetched: "2.43", "2.42.9000 (BASE=local)".
LABEL=$(glibc_label)
resolve_isolation
for v in "$@"; do build_variant "$v"; done
