#!/usr/bin/env bash
# Fetch and verify the glibc source for $BASE, or take it from GLIBC_SRC.
#
# Debian's glibc-source package carries glibc as Debian builds it (the
# release with Debian's patches applied: the release branch's updates,
# Debian's own patches, manual/ reduced to its Makefile) as
# /usr/src/glibc/glibc-<ver>.tar.xz.  It is fetched
# with a private apt configuration under $BUILD/apt/<suite>: own sources list,
# own lists and status, own cache.  The machine's apt sources and state are
# never touched.  apt checks the package against the suite's signed Release
# file; we check the .deb's SHA-256 against the index once more, and the
# tarball's version against BASE.
#
# STOCK=upstream (lib.sh's stock_kind) takes instead the .orig tarball of
# Debian's glibc source package, fetched through the same configuration's
# deb-src line and checked against the index's SHA-256 of it: upstream's
# release tarball, which Debian repacks without manual/.
#
# Output: $(base_dir)/source/glibc.tar (an uncompressed tarball whose top
# directory is the glibc tree) and $(base_dir)/source/ORIGIN (what it is:
# its first word is the stock kind, "debian:", "upstream:" or "local:").
. "$(dirname "$0")/lib.sh"

check_base
out=$(source_dir)
mkdir -p "$out"

# add_manual_stub: glibc's build descends into every directory of
# Makeconfig's all-subdirs, manual/ among them, which Debian's repack of
# the release leaves out (Debian's own tarball keeps a manual/Makefile for
# that): when glibc.tar.new has no manual/Makefile, add a stub that builds
# nothing, and print what ORIGIN should say of it (STUB_NOTE).
STUB_NOTE=", with a stub manual/Makefile"
add_manual_stub () {
  tar -tf "$out/glibc.tar.new" glibc/manual/Makefile >/dev/null 2>&1 && return 0
  rm -rf "$out/.stub" && mkdir -p "$out/.stub/glibc/manual"
  cat > "$out/.stub/glibc/manual/Makefile" <<'MK'
# Added by nptl-scale: this tree comes without the manual, and the build
# descends into manual/ (Makeconfig's all-subdirs).  Nothing is built here.
subdir := manual
include ../Rules
MK
  tar -C "$out/.stub" -rf "$out/glibc.tar.new" glibc/manual/Makefile \
    || die "could not add the manual/Makefile stub to $out/glibc.tar.new"
  rm -rf "$out/.stub"
  echo "$STUB_NOTE"
}

from_local () {
  local src=$1 tmp
  tmp=$(mktemp -d "$out/.local.XXXXXX")
  if [ -d "$src" ]; then
    [ -f "$src/version.h" ] && [ -d "$src/nptl" ] && [ -x "$src/configure" ] \
      || { rm -rf "$tmp"; die "GLIBC_SRC=$src is not a glibc tree (no version.h, nptl/ or configure)"; }
    tar -C "$(dirname "$src")" --exclude=.git -cf "$tmp/glibc.tar" \
      --transform "s|^$(basename "$src")|glibc|" "$(basename "$src")"
  elif [ -f "$src" ]; then
    tar -xaf "$src" -C "$tmp" 2>/dev/null \
      || { rm -rf "$tmp"; die "GLIBC_SRC=$src is neither a directory nor a readable tarball"; }
    local top
    top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
    [ "$(echo "$top" | wc -l)" = 1 ] && [ -f "$top/version.h" ] && [ -d "$top/nptl" ] \
      || { rm -rf "$tmp"; die "GLIBC_SRC=$src does not unpack to one glibc tree"; }
    tar -C "$tmp" -cf "$tmp/glibc.tar" --transform "s|^$(basename "$top")|glibc|" \
      "$(basename "$top")"
  else
    die "GLIBC_SRC=$src does not exist"
  fi
  mv "$tmp/glibc.tar" "$out/glibc.tar.new"
  rm -rf "$tmp"
  echo "local: $src$(add_manual_stub)" > "$out/ORIGIN.new"
}

# Normalise the top directory of glibc.tar.new to glibc/.
normalise_top () {
  local top
  top=$(tar -tf "$out/glibc.tar.new" | head -n1 | cut -d/ -f1)
  if [ "$top" != glibc ]; then
    rm -rf "$out/.norm" && mkdir -p "$out/.norm" && tar -xf "$out/glibc.tar.new" -C "$out/.norm" \
      && tar -C "$out/.norm" -cf "$out/glibc.tar.new" --transform "s|^$top|glibc|" "$top" \
      && rm -rf "$out/.norm" || die "could not repack $out/glibc.tar.new"
  fi
}

from_debian () {
  local suite=$1 apt ver sha deb want
  apt=$BUILD/apt/$suite
  mkdir -p "$CACHE/debs"
  private_apt "$suite"
  ver=${GLIBC_DEB_VERSION:-$(apt-cache "${APT_OPTS[@]}" show glibc-source 2>/dev/null \
        | awk '/^Version:/ { print $2; exit }')}
  [ -n "$ver" ] || die "Debian $suite has no glibc-source package"
  case $ver in
    "$BASE"-*) ;;
    *) die "Debian $suite now ships glibc-source $ver, not $BASE; give GLIBC_SRC=/path to a glibc-$BASE tree or tarball" ;;
  esac
  sha=$(apt-cache "${APT_OPTS[@]}" show "glibc-source=$ver" | awk '/^SHA256:/ { print $2; exit }')
  deb=$CACHE/debs/glibc-source_${ver}_all.deb
  if ! [ -f "$deb" ] || [ "$(sha256sum < "$deb" | cut -d' ' -f1)" != "$sha" ]; then
    note "downloading glibc-source $ver"
    (cd "$CACHE/debs" && apt-get "${APT_OPTS[@]}" download "glibc-source=$ver") \
      > "$apt/download.log" 2>&1 \
      || die "download of glibc-source $ver failed (see $apt/download.log)"
  fi
  want=$(sha256sum < "$deb" | cut -d' ' -f1)
  [ "$want" = "$sha" ] || die "$deb: SHA-256 $want does not match the signed index ($sha)"
  note "verified glibc-source $ver (sha256 $sha)"
  dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/glibc/glibc-$BASE.tar.xz" \
    | xz -dc > "$out/glibc.tar.new" \
    || die "$deb does not contain glibc-$BASE.tar.xz"
  normalise_top
  printf 'debian: glibc-source %s (%s) sha256 %s\n' "$ver" "$suite" "$sha" > "$out/ORIGIN.new"
}

from_upstream () {
  local suite=$1 sha
  fetch_source_package "$suite" glibc "$CACHE/src/glibc-$suite" orig
  case ${SRC_ORIG##*/} in
    "glibc_$BASE.orig.tar."*) ;;
    *) die "Debian $suite now ships glibc ${SRC_VERSION}, not $BASE; give GLIBC_SRC=/path to a glibc-$BASE tree or tarball" ;;
  esac
  sha=$(sha256sum < "$SRC_ORIG" | cut -d' ' -f1)
  note "verified ${SRC_ORIG##*/} (Debian glibc $SRC_VERSION, $suite; sha256 $sha)"
  local unz stub
  case $SRC_ORIG in *.xz) unz=xz ;; *.bz2) unz=bzip2 ;; *) unz=gzip ;; esac
  "$unz" -dc < "$SRC_ORIG" > "$out/glibc.tar.new" || die "$SRC_ORIG could not be unpacked"
  normalise_top
  stub=$(add_manual_stub)
  printf 'upstream: %s (Debian glibc %s, %s) sha256 %s%s\n' "${SRC_ORIG##*/}" "$SRC_VERSION" \
    "$suite" "$sha" "$stub" > "$out/ORIGIN.new"
}

# A source that is already here is reused; FETCH=1 looks again.
kind=$(stock_kind)
if [ -f "$out/glibc.tar" ] && [ -f "$out/ORIGIN" ] && [ -z "$FETCH" ] \
   && grep -q "^$kind: " "$out/ORIGIN" \
   && tar -tf "$out/glibc.tar" glibc/manual/Makefile >/dev/null 2>&1 \
   && { [ -z "$GLIBC_SRC" ] || grep -qxF -e "local: $GLIBC_SRC" -e "local: $GLIBC_SRC$STUB_NOTE" "$out/ORIGIN"; }; then
  exit 0
fi

case $kind in
  local) from_local "$GLIBC_SRC" ;;
  upstream) from_upstream "$(suite_for_base "$BASE")" ;;
  debian) from_debian "$(suite_for_base "$BASE")" ;;
esac
mv "$out/glibc.tar.new" "$out/glibc.tar"
mv "$out/ORIGIN.new" "$out/ORIGIN"
note "source: $(cat "$out/ORIGIN"), glibc $(glibc_version)"
