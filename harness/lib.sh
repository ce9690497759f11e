# Common definitions for the nptl-scale harness.  Sourced, never run.
#
# Layout of one base (BASE=2.43 or 2.36; BASE=local for a GLIBC_SRC tree)
# under $BUILD, $(base_dir): $BUILD/<base>, or $BUILD/<base>-<stock> when
# STOCK is not the base's default (base_key):
#   $BUILD/<base>/source/      the stock source's tarball and ORIGIN
#   $BUILD/<base>/check/       make check's results (check-series/: check-series')
#   $BUILD/<base>/<variant>/      $(variant_dir VARIANT): one sysroot, with
#                      .../src    glibc source tree (stock: as shipped;
#                                 patched: stock + the series)
#                      .../obj    glibc build tree (kept for `make check`)
#                      .../root   the sysroot (make install DESTDIR=root)
#                      .../bin/cc and bin/run: the compiler wrapper and the
#                                 loader wrapper
#                      .../stamp.*  what was done, keyed by input hashes
# variant_dir is the one definition of these paths for the shell scripts;
# bench/run.py's variant_dir is its Python twin (harness/test_layout.py
# checks that they agree), and the DejaGnu library is given its paths on
# runtest's command line by check.sh.

set -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# A tree given by GLIBC_SRC is built as BASE=local unless BASE names it.
if [ -n "$GLIBC_SRC" ]; then BASE=${BASE:-local}; else BASE=${BASE:-2.43}; fi
# Caches that survive a fresh clone (ccache, downloaded .debs, the image).
CACHE=${NPTL_SCALE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nptl-scale}

die () { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
note () { printf '==> %s\n' "$*" >&2; }
. "$TOP/harness/tools.sh"

# Debian suite that ships the glibc-source package of each supported base.
suite_for_base () {
  case $1 in
    2.43) echo sid ;;
    2.36) echo bookworm ;;
    *) return 1 ;;
  esac
}

check_base () {
  [ -n "$GLIBC_SRC" ] && return 0
  suite_for_base "$BASE" >/dev/null \
    || die "unknown BASE '$BASE' (known: 2.43, 2.36; or give GLIBC_SRC=/path)"
  case ${STOCK:-} in
    ''|upstream|debian) ;;
    *) die "unknown STOCK '$STOCK' (known: upstream, debian)" ;;
  esac
}

# Which glibc is stock (STOCK=): "upstream", the release as published
# (the .orig tarball of Debian's glibc source package: upstream's release
# tarball, repacked by Debian without manual/), or "debian", glibc as
# Debian builds it (the glibc-source package's tarball: the release
# branch's updates and Debian's own patches applied, manual/ removed).
# The default is upstream for 2.43, the series for libc-alpha, and debian
# for 2.36, the backport a distribution takes; a GLIBC_SRC tree is
# "local".
default_stock () { case $1 in 2.36) echo debian ;; *) echo upstream ;; esac; }
stock_kind () {
  if [ -n "$GLIBC_SRC" ]; then echo local; else echo "${STOCK:-$(default_stock "$BASE")}"; fi
}

# The target (ARCH=), this machine's by default.  Built and tested:
# x86_64, aarch64 and i686; an aarch64 program runs here through qemu-user,
# registered with binfmt_misc (so that glibc's tests, which exec the
# dynamic linker and other programs themselves, run unchanged), an i686 one
# natively on an x86_64 kernel.  Compiled only (make check-arches), the
# targets whose code differs in what the series touches: powerpc64le,
# s390x, riscv64 and hppa (its stack grows up).
RUN_ARCHES="x86_64 aarch64 i686"
COMPILE_ARCHES="powerpc64le s390x riscv64 hppa"
native_arch () { case $(uname -m) in i?86) echo i686 ;; *) uname -m ;; esac; }
ARCH=${ARCH:-$(native_arch)}
export ARCH

# check_arch [run]: ARCH is known (and with "run", one whose programs run
# here), or a one-line error.
check_arch () {
  case " $RUN_ARCHES $COMPILE_ARCHES " in
    *" $ARCH "*) ;;
    *) die "unknown ARCH '$ARCH' (built and tested: ${RUN_ARCHES// /, }; compiled only: ${COMPILE_ARCHES// /, })" ;;
  esac
  [ "$1" = run ] && compile_only \
    && die "ARCH=$ARCH is compiled only (make sysroot or make check-arches); built and tested: ${RUN_ARCHES// /, }"
  return 0
}

# Is ARCH compiled only?
compile_only () { case " $COMPILE_ARCHES " in *" $ARCH "*) true ;; *) false ;; esac; }

# GNU triplet of ARCH (or of the one named), as Debian's cross compilers
# are named: aarch64-linux-gnu-gcc, hppa-linux-gnu-gcc...
arch_triplet () { echo "${1:-$ARCH}-linux-gnu"; }
is_cross () { [ "$ARCH" != "$(native_arch)" ]; }
# arch_tool TOOL: TOOL (gcc, g++, nm...) for ARCH: the host's own, or the
# cross one.
arch_tool () { if is_cross; then echo "$(arch_triplet)-$1"; else echo "$1"; fi; }
# How ARCH's programs run here: native, or emulated (qemu-user, through
# binfmt_misc).  i686 on an x86_64 kernel is native.
arch_runs () {
  if ! is_cross || [ "$ARCH-$(native_arch)" = i686-x86_64 ]; then echo native
  else echo emulated; fi
}

# ensure_arch [run]: ARCH is known, its cross compiler is here (installed
# like any other tool) and, with "run", its programs run here.
ensure_arch () {
  check_arch "$@"
  is_cross && ensure_tools "$(arch_tool gcc)"
  if [ "$1" = run ] && [ "$(arch_runs)" = emulated ]; then
    find_qemu
    [ -n "$NPTL_SCALE_QEMU" ] || ensure_tools "binfmt-$ARCH"
  fi
  return 0
}

# The name of this base's directories under $BUILD (and build/bench/):
# BASE, with -STOCK when STOCK is not the base's default (stock_key: also
# build/mail/ and the source, which serve every target), then -ARCH for a
# target other than x86_64.
stock_key () {
  local s
  s=$(stock_kind)
  case $s in local|"$(default_stock "$BASE")") echo "$BASE" ;; *) echo "$BASE-$s" ;; esac
}
base_key () {
  case $ARCH in x86_64) stock_key ;; *) echo "$(stock_key)-$ARCH" ;; esac
}

# The Debian archive this machine already uses, read from its apt sources
# (DEBIAN_MIRROR overrides); deb.debian.org on another distribution.  Nothing here changes those sources.
debian_mirror () {
  if [ -n "$DEBIAN_MIRROR" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local m
  m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' \
      | grep -v -e security -e updates | grep '/debian/\?$' | head -n1)
  [ -n "$m" ] || m=$(grep -h '^deb ' /etc/apt/sources.list 2>/dev/null \
      | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' \
      | grep -v security | head -n1)
  # Not a Debian machine (Ubuntu): Debian's own redirector.
  [ -n "$m" ] || [ "$(distro)" = debian ] || m=http://deb.debian.org/debian
  [ -n "$m" ] || die "no Debian mirror found in /etc/apt sources; set DEBIAN_MIRROR=URL"
  echo "${m%/}"
}

# private_apt SUITE: an apt configuration of our own for Debian SUITE under
# $BUILD/apt/SUITE (binary and source indexes, own lists, status and cache;
# the machine's apt sources and state are never touched), updated; its
# options are left in APT_OPTS for apt-get and apt-cache.  apt checks the
# indexes against the suite's signed Release file (Debian's archive key),
# and what it downloads against the indexes.
private_apt () {
  local suite=$1 apt mirror
  apt=$BUILD/apt/$suite
  command -v apt-get >/dev/null || die "apt-get not found: fetching from Debian needs a Debian-like host"
  ensure_tools debian-keyring
  mirror=$(debian_mirror) || exit 1
  mkdir -p "$apt/etc/sources.list.d" "$apt/etc/preferences.d" \
           "$apt/state/lists/partial" "$apt/cache/archives/partial"
  : > "$apt/state/status"
  local key=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'deb [signed-by=%s] %s %s main\ndeb-src [signed-by=%s] %s %s main\n' \
    "$key" "$mirror" "$suite" "$key" "$mirror" "$suite" > "$apt/etc/sources.list"
  APT_OPTS=(-o "Dir::Etc::SourceList=$apt/etc/sources.list"
            -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
            -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
            -o "Dir::State=$apt/state" -o "Dir::State::status=$apt/state/status"
            -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root"
            -o "Debug::NoLocking=1" -q)
  note "apt update ($suite, private configuration in $apt)"
  apt-get "${APT_OPTS[@]}" update > "$apt/update.log" 2>&1 \
    || die "apt-get update for $suite failed (see $apt/update.log); is the Debian archive reachable?"
}

# fetch_source_package SUITE PACKAGE DIR [orig]: the files of Debian source
# package PACKAGE (.dsc, .orig.tar.*, .debian.tar.*) into DIR, checked by
# apt against the signed Sources index; nothing is unpacked.  Kept when DIR
# already holds a .dsc of the version the index names.  SRC_DSC and
# SRC_ORIG are left naming that version's .dsc and .orig tarball (DIR may
# also hold older versions), SRC_VERSION the version.  With "orig", only
# the .orig tarball is fetched (SRC_DSC is then empty) and its SHA-256 is
# checked once more against the index's Checksums-Sha256, the .dsc's own.
fetch_source_package () {
  local suite=$1 pkg=$2 dir=$3 only=$4 ver file_ver upstream want
  private_apt "$suite"
  # The index can list several versions (a point release and the one
  # before it): the newest.
  ver=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null | awk '/^Version:/ { print $2 }' \
        | sort -V | tail -n1)
  [ -n "$ver" ] || die "Debian $suite has no source package $pkg"
  # File names carry the version without its epoch; the .orig tarball's,
  # without the Debian revision either.
  file_ver=${ver#*:}
  upstream=${file_ver%-*}
  mkdir -p "$dir"
  SRC_VERSION=$ver
  if [ "$only" = orig ]; then
    SRC_DSC=
    want=$(apt-cache "${APT_OPTS[@]}" showsrc "$pkg" 2>/dev/null \
      | awk -v v="$ver" -v f="${pkg}_$upstream.orig.tar." '
          /^Version:/ { this = ($2 == v) }
          /^Checksums-Sha256:/ { c = this; next }
          c && /^ / { if (index($3, f) == 1) { print $1, $3; exit } next }
          { c = 0 }')
    [ -n "$want" ] || die "the Sources index of $suite names no .orig tarball for $pkg $ver"
    SRC_ORIG=$dir/${want#* }
    if ! [ -f "$SRC_ORIG" ] || [ "$(sha256sum < "$SRC_ORIG" | cut -d' ' -f1)" != "${want%% *}" ]; then
      note "downloading ${want#* } ($pkg $ver, $suite)"
      rm -f "$SRC_ORIG"
      (cd "$dir" && apt-get "${APT_OPTS[@]}" source --download-only --tar-only "$pkg=$ver") \
        > "$dir/download.log" 2>&1 && [ -f "$SRC_ORIG" ] \
        || die "download of ${want#* } failed (see $dir/download.log)"
      [ "$(sha256sum < "$SRC_ORIG" | cut -d' ' -f1)" = "${want%% *}" ] \
        || { rm -f "$SRC_ORIG"; die "${want#* }: SHA-256 does not match the signed Sources index"; }
    fi
    return 0
  fi
  SRC_DSC=$dir/${pkg}_$file_ver.dsc
  if ! [ -f "$SRC_DSC" ]; then
    note "downloading the source package $pkg $ver ($suite)"
    (cd "$dir" && apt-get "${APT_OPTS[@]}" source --download-only "$pkg=$ver") \
      > "$dir/download.log" 2>&1 \
      || die "download of the source package $pkg $ver failed (see $dir/download.log)"
  fi
  SRC_ORIG=$(ls "$dir/${pkg}_$upstream.orig.tar."* 2>/dev/null | head -n1)
  [ -n "$SRC_ORIG" ] || die "the source package $pkg $ver has no .orig tarball in $dir"
}

# fetch_binary_package SUITE PACKAGE VERSION DIR: the .deb of Debian
# SUITE's binary PACKAGE at VERSION, for this machine's architecture
# (apt checks it against the signed Packages index), unpacked into
# DIR/<version>/, left named by PKG_ROOT.  Kept once unpacked: the
# archive is then not asked again.
fetch_binary_package () {
  local suite=$1 pkg=$2 ver=$3 dir=$4 have
  PKG_ROOT=$dir/${ver#*:}
  [ -f "$PKG_ROOT/.unpacked" ] && return 0
  private_apt "$suite"
  have=$(apt-cache "${APT_OPTS[@]}" show "$pkg" 2>/dev/null | awk '/^Version:/ { print $2 }' \
         | sort -V | tr '\n' ' ')
  [ -n "$have" ] || die "Debian $suite has no package $pkg"
  case " $have" in
    *" $ver "*) ;;
    *) die "Debian $suite has $pkg ${have% } and not $ver" ;;
  esac
  mkdir -p "$dir"
  note "downloading $pkg $ver ($suite)"
  rm -rf "$PKG_ROOT" "$dir"/*.deb
  (cd "$dir" && apt-get "${APT_OPTS[@]}" download "$pkg=$ver") > "$dir/download.log" 2>&1 \
    || die "download of $pkg $ver failed (see $dir/download.log)"
  dpkg-deb -x "$dir"/*.deb "$PKG_ROOT" || die "cannot unpack $(ls "$dir"/*.deb)"
  rm -f "$dir"/*.deb
  touch "$PKG_ROOT/.unpacked"
}

# How an emulated ARCH's programs run (check.sh and smoke.sh): by a
# qemu-user of the harness's own, registered with binfmt_misc in a user
# namespace of the run's own (harness/binfmt-ns.py; Linux 6.7 or later), so
# that glibc's tests, which exec the dynamic linker and other programs
# themselves, run unchanged and the machine's registrations stay as they
# are.  QEMU=/path/to/qemu-ARCH names one; by default it is the static
# qemu-ARCH of Debian QEMU_SUITE's qemu-user package at QEMU_VERSION,
# fetched once into $CACHE/qemu-user/.  The emulator is not the machine's
# because which of glibc's tests fail under emulation depends on its
# version (the known failures are measured with this one: a new
# QEMU_VERSION means measuring them again), and because bookworm's qemu-user 7.2
# deadlocks a child forked while another thread is inside clone (the
# series' tst-stack-cache-evict does that, and stock's glibc hangs the same
# way).  QEMU=binfmt uses the machine's registration instead.
QEMU_SUITE=${QEMU_SUITE:-trixie}
QEMU_VERSION=${QEMU_VERSION:-1:10.0.13+ds-0+deb13u1}
# find_qemu: NPTL_SCALE_QEMU (exported, so that a script run from this one
# does not look again) names the qemu-ARCH to use (empty with
# QEMU=binfmt).
find_qemu () {
  [ -n "${NPTL_SCALE_QEMU+set}" ] && return 0
  case ${QEMU:-} in
    binfmt) NPTL_SCALE_QEMU= ;;
    '') fetch_binary_package "$QEMU_SUITE" qemu-user "$QEMU_VERSION" "$CACHE/qemu-user"
        NPTL_SCALE_QEMU=$PKG_ROOT/usr/bin/qemu-$ARCH ;;
    *) NPTL_SCALE_QEMU=$(realpath -m "$QEMU") ;;
  esac
  [ -z "$NPTL_SCALE_QEMU" ] || [ -x "$NPTL_SCALE_QEMU" ] \
    || die "no qemu-user for $ARCH: $NPTL_SCALE_QEMU is not an executable"
  export NPTL_SCALE_QEMU
}
# emulator: one line naming what runs ARCH's programs.
emulator () {
  find_qemu
  if [ -n "$NPTL_SCALE_QEMU" ]; then
    echo "$("$NPTL_SCALE_QEMU" --version | head -n1) ($NPTL_SCALE_QEMU), registered with binfmt_misc in the run's own user namespace"
  else
    echo "the machine's binfmt_misc registration, $(sed -n 's/^interpreter //p' "/proc/sys/fs/binfmt_misc/qemu-$ARCH")"
  fi
}
# enter_emulator SCRIPT ARGS...: for an emulated ARCH, run SCRIPT again
# with ARGS under binfmt-ns.py (once; not with QEMU=binfmt).
enter_emulator () {
  [ "$(arch_runs)" = emulated ] && [ -z "$NPTL_SCALE_IN_EMULATOR" ] || return 0
  find_qemu
  [ -n "$NPTL_SCALE_QEMU" ] || return 0
  NPTL_SCALE_IN_EMULATOR=1 exec "$TOP/harness/binfmt-ns.py" "$ARCH" "$NPTL_SCALE_QEMU" "$@"
}

# patch_error_file MESSAGE: the file that git apply or git am names in
# MESSAGE as the one a patch does not apply to (empty if none).
patch_error_file () {
  printf '%s\n' "$1" | sed -n 's/^error: \(.*\): \(patch does not apply\|No such file or directory\|already exists in working directory\|already exists in index\|does not exist in index\)$/\1/p' \
    | head -n1
}

# apply_excludes TREE PATCH: the git apply/am option that leaves out the
# patch's changes to manual/ when TREE lacks a manual/ file the patch
# changes (Debian's tarballs, the .orig one included, come without the
# manual), with a note saying so; nothing otherwise.  Where the manual is
# there, those hunks must apply.
apply_excludes () {
  local f
  for f in $(sed -n 's|^--- a/\(manual/[^ ]*\)$|\1|p' "$2"); do
    [ -f "$1/$f" ] && continue
    note "${2##*/}: this tree has no $f, so the patch's manual/ changes are left out"
    echo "--exclude=manual/*"
    return 0
  done
}

# The variants built, and those a command acts on when none is named (the
# Makefile's VARIANTS reads this).  Another NAME is the opt-in series.NAME.
DEFAULT_VARIANTS="stock patched"

# The variants `make bench` runs when none is named: the defaults and,
# where the series has them (2.43) and BENCH with BENCH_THREADS runs
# what they count (bench/run.py's counts_locks), the lock-counting builds
# of stock and patched (series.stock-lockstat, series.patched-lockstat),
# which bench/run.py runs for the lock table only.
bench_variants () {
  local d v=$DEFAULT_VARIANTS
  d=$(patch_dir 2>/dev/null) \
    && [ -f "$d/series.stock-lockstat" ] && [ -f "$d/series.patched-lockstat" ] \
    && python3 "$TOP/bench/run.py" --counts-locks --bench "${BENCH:-default}" \
         ${BENCH_THREADS:+--threads "$BENCH_THREADS"} 2>/dev/null \
    && v="$v stock-lockstat patched-lockstat"
  echo "$v"
}

# compared_variants ARG...: the variants named, or the default ones, with
# stock first where it is missing, as the others are compared with it (for
# `set -- $(compared_variants "$@")`: a variant's name has no blank).
compared_variants () {
  local v=${*:-$DEFAULT_VARIANTS}
  case " $v " in *" stock "*) echo "$v" ;; *) echo "stock $v" ;; esac
}

# A variant to run is a sysroot's name, or SYSROOT@TUNABLES: that sysroot
# run with GLIBC_TUNABLES=TUNABLES, e.g. patched@glibc.pthread.cond_legacy=1
# (bench/run.py: sysroot() and tunables()).  sysroot_of VARIANT: its sysroot.
sysroot_of () { echo "${1%%@*}"; }

# base_dir [SUB]: $BUILD/<base>, or a directory in it.
base_dir () { echo "$BUILD/$(base_key)${1:+/$1}"; }
# The stock source (fetch-source.sh's glibc.tar and ORIGIN), one for every
# ARCH: $BUILD/<stock_key>/source.
source_dir () { echo "$BUILD/$(stock_key)/source"; }

# variant_dir VARIANT [PART]: the directory of VARIANT's sysroot, or one
# PART of it: src, obj, root, cc or run (see the layout above).
variant_dir () {
  local d
  d=$(base_dir "$(sysroot_of "$1")")
  case $2 in
    '') echo "$d" ;;
    src|obj|root) echo "$d/$2" ;;
    cc|run) echo "$d/bin/$2" ;;
    *) die "variant_dir: no part '$2' of a variant" ;;
  esac
}

# sysroot_loader VARIANT: the dynamic linker installed in VARIANT's
# sysroot; sysroot_libpath VARIANT: its library directories (those of
# libc.so.6 and of libc.so), as bin/run gives them to the loader.  Empty
# if there is none.
sysroot_loader () {
  local root f
  root=$(variant_dir "$1" root)
  f=$(cd "$root" 2>/dev/null && ls lib*/ld*.so.* 2>/dev/null | head -n1)
  [ -n "$f" ] && echo "$root/$f"
}
sysroot_libpath () {
  local root slib lib
  root=$(variant_dir "$1" root)
  slib=$(cd "$root" 2>/dev/null && ls lib*/libc.so.6 2>/dev/null | head -n1)
  lib=$(cd "$root" 2>/dev/null && ls usr/lib*/libc.so 2>/dev/null | head -n1)
  [ -n "$slib" ] && [ -n "$lib" ] && echo "$root/$(dirname "$slib"):$root/$(dirname "$lib")"
}

# The version glibc's version.h (`#define VERSION "2.42.9000"`) gives for
# this base's source: the fetched tarball once there is one, else the
# GLIBC_SRC tree or tarball; BASE for a base not fetched yet.
glibc_version () {
  local tar v=
  tar=$(source_dir)/glibc.tar
  if [ -f "$tar" ]; then
    v=$(tar -xOf "$tar" glibc/version.h 2>/dev/null | version_h)
  elif [ -d "$GLIBC_SRC" ]; then
    v=$(version_h < "$GLIBC_SRC/version.h" 2>/dev/null)
  elif [ -f "$GLIBC_SRC" ]; then
    v=$(tar -xaOf "$GLIBC_SRC" --wildcards --no-wildcards-match-slash '*/version.h' 2>/dev/null | version_h)
  fi
  echo "${v:-$BASE}"
}
version_h () { sed -n 's/^#define VERSION "\(.*\)"/\1/p' | head -n1; }

# What the logs and reports call this glibc: "2.43 (upstream)", "2.36
# (Debian)", or for a GLIBC_SRC tree its own version and where it lives,
# "2.42.9000 (BASE=local)"; the target follows for another than x86_64,
# "2.43 (upstream, aarch64)".
glibc_label () {
  local a=
  [ "$ARCH" = x86_64 ] || a=", $ARCH"
  case $(stock_kind) in
    local) echo "$(glibc_version) (BASE=$BASE$a)" ;;
    debian) echo "$BASE (Debian$a)" ;;
    *) echo "$BASE (upstream$a)" ;;
  esac
}

# The base whose series (patches/glibc-<base>) and known failures apply:
# BASE itself, or for another tree (BASE=local) the release its version
# names; a development version X.Y.9000 leads to release X.(Y+1).
series_base () {
  [ -d "$TOP/patches/glibc-$BASE" ] && { echo "$BASE"; return; }
  local v maj min
  v=$(glibc_version)
  maj=${v%%.*} min=${v#*.}; min=${min%%.*}
  case $v in *.9000) min=$((min + 1)) ;; esac
  echo "$maj.$min"
}

# The known failures of this base and ARCH (harness/known-failures/:
# <base> for x86_64, <base>-<arch> for the others).
known_failures () {
  local f=$TOP/harness/known-failures/$(series_base)
  [ "$ARCH" = x86_64 ] || f=$f-$ARCH
  echo "$f"
}

# The series directory for this base (PATCHES overrides).
patch_dir () {
  local d=${PATCHES:-$TOP/patches/glibc-$(series_base)}
  [ -d "$d" ] || die "no patch series for glibc $(glibc_label): $d does not exist (give PATCHES=/path/to/series-dir)"
  echo "$d"
}

# copy_patch_dir DEST: DEST made anew as a copy of the patch directory
# without its series files, for a command that writes its own series.NAME
# there (check-series, check-fixes) and builds with PATCHES=DEST.
copy_patch_dir () {
  local src
  src=$(patch_dir)
  rm -rf "$1" && mkdir -p "$1" && cp -r "$src"/. "$1"/ \
    || die "cannot copy $src to $1 (is the disk full?)"
  rm -f "$1"/series.*
}

# The series file of VARIANT: stock has none, patched is `series`, any
# other NAME is the opt-in `series.NAME`.
series_file () {
  local v=$1 d
  d=$(patch_dir)
  case $v in
    stock) echo /dev/null ;;
    patched) echo "$d/series" ;;
    *) echo "$d/series.$v" ;;
  esac
}

# The patch files of VARIANT, one per line, checked to exist.
series_patches () {
  local s d p
  s=$(series_file "$1")
  d=$(dirname "$s")
  [ "$1" = stock ] && return 0
  while IFS= read -r p || [ -n "$p" ]; do
    p=${p%%#*}; p=$(echo $p)
    [ -n "$p" ] || continue
    [ -f "$d/$p" ] || die "$s: series entry '$p' names a missing file ($d/$p)"
    echo "$d/$p"
  done < "$s"
}

# The variants of this base: the defaults, then each opt-in series.NAME.
known_variants () {
  local d f
  d=$(patch_dir)
  printf '%s' "$DEFAULT_VARIANTS"
  for f in "$d"/series.*; do
    [ -f "$f" ] && case $f in *.configure) ;; *) printf ' %s' "${f##*/series.}" ;; esac
  done
  echo
}

# check_variant NAME: NAME is stock, patched or a series.NAME of this
# base whose entries all exist, or a one-line error.
check_variant () {
  local v=$1 s
  case $v in ''|*[!a-z0-9_-]*) die "bad variant name '$v'" ;; esac
  [ "$v" = stock ] && return 0
  patch_dir >/dev/null
  s=$(series_file "$v")
  [ -f "$s" ] || die "variant '$v' does not exist: no $s (known: $(known_variants))"
  series_patches "$v" >/dev/null
}

# ISOLATION is one that env.sh knows, or a one-line error.
check_isolation () {
  case ${ISOLATION:-auto} in
    auto|docker|none) ;;
    *) die "unknown ISOLATION '$ISOLATION' (docker, none or auto)" ;;
  esac
}

# check_bench_arch: ARCH's programs run natively here, as benchmarks
# need (timings under emulation say nothing of performance), or a
# one-line error.
check_bench_arch () {
  check_arch run
  [ "$(arch_runs)" = native ] \
    || die "ARCH=$ARCH runs here under qemu-user: its timings are not performance; benchmark it on an $ARCH machine"
}

jobs () { echo "${JOBS:-$(( $(nproc) + 1 ))}"; }

# Print a short content hash of the named files (missing ones count too).
hash_files () {
  local f
  for f in "$@"; do
    printf '%s\n' "${f##*/}"
    if [ -f "$f" ]; then sha256sum < "$f"; else echo missing; fi
  done | sha256sum | cut -c1-16
}
