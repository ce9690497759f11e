#!/usr/bin/env bash
# make export-debian: the backport (BASE, default 2.36) as quilt patches
# with DEP-3 headers for Debian's glibc source package: by default the
# fixes alone (series.fixes: what a stable update takes); SERIES=scale
# the whole series, the fixes and the scalability patches on top (in
# $BUILD/export-debian/<base>-scale/).  In
# $BUILD/export-debian/<base>/ (nptl-scale/*.diff and `series`, the lines
# to append to debian/patches/series), checked: Debian's source package
# of the suite is unpacked without its patches, ours are appended to its
# series, and `quilt push -a` must apply every patch.
. "$(dirname "$0")/lib.sh"

check_base
case ${SERIES:-fixes} in
  fixes) variant=fixes ;;
  scale) variant=patched ;;
  *) die "unknown SERIES '$SERIES' (fixes, the default, or scale: the fixes and the scalability series)" ;;
esac
[ "$variant" = patched ] || [ -f "$(series_file fixes)" ] \
  || die "no $(series_file fixes): this base has no fixes series (SERIES=scale exports the whole series)"
ensure_tools quilt dpkg-source python3
suite=$(suite_for_base "$BASE")
out=$BUILD/export-debian/$BASE${SERIES:+-$SERIES}
[ "${SERIES:-fixes}" = fixes ] && out=$BUILD/export-debian/$BASE
tmp=$out.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

note "exporting the $([ "$variant" = fixes ] && echo "fixes series" || echo "whole series (fixes and scalability)") of $(series_file "$variant")"
"$TOP/harness/dep3.py" "$(series_file "$variant")" "$tmp/export" || exit 1
fetch_source_package "$suite" glibc "$CACHE/src/glibc-$suite"
note "unpacking ${SRC_DSC##*/} (without its patches)"
(cd "$tmp" && dpkg-source --skip-patches -x "$SRC_DSC" pkg) > "$tmp/unpack.log" 2>&1 \
  || die "dpkg-source -x ${SRC_DSC##*/} failed (see the end of $tmp/unpack.log)"
cp -r "$tmp/export/nptl-scale" "$tmp/pkg/debian/patches/"
debian_count=$(grep -cv '^#\|^$' "$tmp/pkg/debian/patches/series")
cat "$tmp/export/series" >> "$tmp/pkg/debian/patches/series"
note "quilt push -a: Debian's $debian_count patches, then our $(wc -l < "$tmp/export/series")"
if ! (cd "$tmp/pkg" && QUILT_PATCHES=debian/patches QUILT_PC=.pc quilt push -a -q) \
     > "$tmp/quilt.log" 2>&1; then
  failed=$(sed -n 's/^Applying patch \(.*\)$/\1/p' "$tmp/quilt.log" | tail -n1)
  mkdir -p "$BUILD/export-debian" && cp "$tmp/quilt.log" "$out.quilt.log"
  die "quilt push -a stops at ${failed:-a patch}: $(grep -m1 -i 'fail\|error\|hunk' "$tmp/quilt.log" | cut -c1-160) (see $out.quilt.log)"
fi
rm -rf "$out" && mv "$tmp/export" "$out"
note "export: $out ($(wc -l < "$out/series") patches; append $out/series to debian/patches/series, copy $out/nptl-scale/ to debian/patches/)"
