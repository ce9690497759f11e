#!/usr/bin/env bash
# make mail: the series as mails for libc-alpha, in $BUILD/mail/<base>/,
# as two threads and the bug reports:
#   fixes/  the fixes of stock bugs (series.fixes, the first patches of
#           the series), each with its test;
#   scale/  the rest of the series, whose cover letter says that it
#           depends on the fixes thread;
#   bugs/   a report per stock bug for sourceware Bugzilla
#           (harness/bug_reports.py), with a stand-alone reproducer that
#           is run here on stock and with the fixes when their sysroots
#           are built (and must fail, then pass).
# Each mail is the series' git format-patch file, numbered within its
# thread, with the submitter's From: and Signed-off-by: (from git config
# user.name and user.email; none, and it refuses), and BZ=name=NNNNN,...
# adds a "BZ #NNNNN" line to the fix of each bug filed.  The cover letters
# are written from the last `make check` and `make bench` results of this
# tree (harness/cover_letter.py).  It then checks that the mails apply
# with `git am` to the base source, and to the glibc git checkout
# GLIBC_SRC when one is given (the libc-alpha case: the submitter's
# master).  The output directory is replaced only once all of that
# succeeded.
. "$(dirname "$0")/lib.sh"

ensure_tools git python3 tar
name=$(git -C "$TOP" config user.name) email=$(git -C "$TOP" config user.email)
[ -n "$name" ] && [ -n "$email" ] \
  || die "no git identity: set git config user.name and user.email (the patches carry the submitter's Signed-off-by, never an invented one)"

# A GLIBC_SRC checkout is where the mails must also apply; the series is
# made on the base's own source either way.
target=$GLIBC_SRC
if [ -n "$target" ]; then
  git -C "$target" rev-parse --verify -q HEAD >/dev/null \
    || die "GLIBC_SRC=$target is not a git checkout (make mail applies the mails there with git am)"
  [ "$BASE" = local ] && BASE=$(series_base)
  unset GLIBC_SRC
fi
check_base
# BZ=name=NUMBER,...: bugs of this base's bugs file, checked before the
# source is fetched.
bugs=$(patch_dir)/bugs
bz_lines=
if [ -n "$BZ" ]; then
  [ -f "$bugs" ] || die "BZ=$BZ: no $bugs names the bugs of this base"
  bz_lines=$("$TOP/harness/bug_reports.py" --bugs "$bugs" --bz "$BZ" --bz-lines) || exit 1
fi
"$TOP/harness/fetch-source.sh" || exit 1
out=$BUILD/mail/$(stock_key)
tmp=$out.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# base_repo DIR: the base source as a git repository of one commit.
base_repo () {
  mkdir -p "$1"
  tar -xf "$(source_dir)/glibc.tar" -C "$1" --strip-components=1
  git -C "$1" init -q
  git -C "$1" add -A
  GIT_AUTHOR_DATE="2000-01-01 00:00:00 +0000" GIT_COMMITTER_DATE="2000-01-01 00:00:00 +0000" \
    git -C "$1" -c user.name=base -c user.email=base@invalid commit -q -m "glibc $BASE (base)" \
    || die "could not make a git repository of the glibc $BASE source in $1"
}

# apply_mails REPO WHERE PATCH...: git am, or a one-line error naming the
# patch and the file that does not apply.
apply_mails () {
  local repo=$1 where=$2 p err file ex; shift 2
  for p in "$@"; do
    ex=$(apply_excludes "$repo" "$p")
    if ! err=$(git -C "$repo" -c user.name="$name" -c user.email="$email" \
                 am -q --keep-cr ${ex:+"$ex"} "$p" 2>&1); then
      git -C "$repo" am --abort >/dev/null 2>&1
      file=$(patch_error_file "$err")
      die "${p##*/} does not apply to $where${file:+ (file $file)}: $(printf '%s\n' "$err" | grep -m1 -i 'error\|fail' | cut -c1-200)"
    fi
  done
}

note "the series of glibc $(glibc_label) as mails from $name <$email>"
# The mails are the series' own files (git format-patch output of the tree
# it was made on, manual/ included) with the submitter as From:, the BZ
# lines of the bugs filed, and a Signed-off-by: trailer of theirs (git
# interpret-trailers: its own paragraph at the end of the message, before
# the --- line); the dates stay.
# (series_patches dies on a missing entry: in a process substitution that
# would only end the subshell, so each list is checked first.)
series_patches patched >/dev/null || exit 1
mapfile -t series < <(series_patches patched)
fixes=()
if [ -f "$(series_file fixes)" ]; then
  series_patches fixes >/dev/null || exit 1
  mapfile -t fixes < <(series_patches fixes)
fi
for i in "${!fixes[@]}"; do
  [ "${fixes[i]}" = "${series[i]:-}" ] \
    || die "$(series_file fixes): the fixes must be the first patches of $(series_file patched), in its order (entry $((i + 1)) is ${fixes[i]##*/})"
done
mkdir -p "$tmp/all"
sob="Signed-off-by: $name <$email>"
for p in "${series[@]}"; do
  bz=$(awk -F'\t' -v p="${p##*/}" '$1 == p { printf "BZ #%s\n", $2 }' <<< "$bz_lines")
  awk -v from="From: $name <$email>" -v bz="$bz" '
    BEGIN { hdr = 1 }
    hdr && /^From: / { print from; next }
    hdr && /^$/ { hdr = 0 }
    !hdr && !done && /^---$/ && bz != "" { printf "\n%s\n", bz; done = 1 }
    { print }' "$p" | git interpret-trailers --trailer "$sob" > "$tmp/all/${p##*/}" \
    && grep -q '^---$' "$tmp/all/${p##*/}" \
    && git interpret-trailers --parse < "$tmp/all/${p##*/}" | grep -qxF "$sob" \
    || die "${p##*/} is not a git format-patch mail (no --- line, or its Signed-off-by: is not a trailer)"
done
mails=()
for p in "${series[@]}"; do mails+=("$tmp/all/${p##*/}"); done

note "checking: git am of the mails on glibc $(glibc_label)"
base_repo "$tmp/check"
apply_mails "$tmp/check" "glibc $(glibc_label)" "${mails[@]}"
cover_repo=$tmp/check
if [ -n "$target" ]; then
  note "checking: git am of the mails on $target ($(git -C "$target" log -1 --format='%h %s' | cut -c1-60))"
  git clone -q --shared --no-checkout "$target" "$tmp/target" \
    && git -C "$tmp/target" checkout -q --detach "$(git -C "$target" rev-parse HEAD)" \
    || die "could not check out $target"
  apply_mails "$tmp/target" "$target" "${mails[@]}"
  # NEWS: the series opens the section of the next release, which a
  # checkout of master already has; the hunk's short context would then
  # make a second one.
  dup=$(grep -E '^Version [0-9.]+$' "$tmp/target/NEWS" 2>/dev/null | sort | uniq -d | head -n1)
  [ -z "$dup" ] || die "on $target the series' NEWS entry makes a second '$dup' section: move it under the existing one (patches/ and the dev tree) and run make mail again"
  cover_repo=$tmp/target
fi
# thread PART FIRST COUNT: the mails FIRST (0-based) to FIRST+COUNT-1 as
# the thread PART, numbered 1/COUNT to COUNT/COUNT, with a cover letter
# whose shortlog and diffstat come from the tree the mails went on last:
# the checkout when one is given (all of the series applies there), else
# the base source (without the manual/ hunks if it has no manual/:
# cover_letter.py then says so).
thread () {
  local part=$1 first=$2 count=$3 dir=$tmp/mail/$1 i p n manual_left_out=
  [ "$count" -gt 0 ] || return 0
  mkdir -p "$dir"
  for ((i = 0; i < count; i++)); do
    p=${mails[first + i]}
    [ -n "$(apply_excludes "$cover_repo" "$p" 2>/dev/null)" ] && manual_left_out=1
    n=$(printf '%04d' $((i + 1)))
    sed "0,/^Subject: \[PATCH [0-9]*\/[0-9]*\]/s//Subject: [PATCH $((i + 1))\/$count]/" "$p" \
      > "$dir/$n-${p##*/[0-9][0-9][0-9][0-9]-}"
  done
  local to=$(( ${#mails[@]} - first - count ))
  git -C "$cover_repo" -c user.name="$name" -c user.email="$email" format-patch -q \
    --cover-letter --thread=shallow -o "$tmp/cover-$part" "HEAD~$((to + count))..HEAD~$to" \
    && mv "$tmp/cover-$part/0000-cover-letter.patch" "$dir/" \
    || die "git format-patch --cover-letter failed"
  "$TOP/harness/cover_letter.py" --base "$(stock_key)" --label "$(glibc_label)" --build "$BUILD" \
    --part "$part" ${fixes_count:+--fixes-count "$fixes_count"} \
    ${manual_left_out:+--manual-left-out} "$dir/0000-cover-letter.patch" || exit 1
}
fixes_count=${#fixes[@]}
thread fixes 0 "$fixes_count"
[ "$fixes_count" -gt 0 ] || fixes_count=
thread scale "${#fixes[@]}" $(( ${#series[@]} - ${#fixes[@]} ))

# The bug reports: the reproducers run with the sysroots that are built
# here (stock, and the fixes, or else the whole series, which has them),
# when their programs run on this machine.
if [ -f "$bugs" ] && [ ${#fixes[@]} -eq 0 ]; then
  die "$bugs lists bugs, but there is no $(series_file fixes) whose patches fix them"
elif [ -f "$bugs" ]; then
  runs=() variant=
  if [ "$(arch_runs)" = native ] && [ -x "$(variant_dir stock cc)" ]; then
    for v in fixes patched; do
      [ -x "$(variant_dir "$v" cc)" ] || continue
      runs=(--run "stock=$(variant_dir stock cc)" --run "$v=$(variant_dir "$v" cc)")
      variant=$v
      break
    done
  fi
  # The results of make check quoted: those of the sysroot the
  # reproducers ran with, else the fixes', else the whole series'.
  if [ -z "$variant" ]; then
    variant=patched
    [ -f "$(base_dir check)/glibc-fixes.sum" ] && variant=fixes
  fi
  [ ${#runs[@]} -gt 0 ] \
    || note "no stock and fixed sysroots here (make sysroot VARIANTS='stock fixes'): the reproducers are not run"
  note "bug reports: $(grep -c '^Name:' "$bugs") from ${bugs#"$TOP"/}${runs:+, each reproducer run on stock and $variant}"
  "$TOP/harness/bug_reports.py" --bugs "$bugs" --series-dir "$(patch_dir)" --mails "$tmp/mail/fixes" \
    --label "$(glibc_label)" --check "$(base_dir check)" --variant "$variant" --arch "$ARCH" \
    ${BZ:+--bz "$BZ"} "${runs[@]}" "$tmp/mail/bugs" || exit 1
fi

# No mail may carry the series' placeholder identity.
! grep -rlq '^From: nptl-scale <unsent@invalid>' "$tmp/mail" \
  || die "a mail still has the placeholder From: of patches/"
rm -rf "$out" && mv "$tmp/mail" "$out"
# The fixes of a release branch go to libc-stable (say the branch in the
# subjects); its scalability series is for distributions, not a branch.
for part in fixes scale; do
  [ -d "$out/$part" ] || continue
  to=libc-alpha
  case $BASE/$part in 2.43/*|local/*) ;; */fixes) to=libc-stable ;; *) to= ;; esac
  note "$part: $(ls "$out/$part" | wc -l) files in $out/$part${to:+; send with git send-email --to=$to@sourceware.org $out/$part/*.patch}"
done
[ -d "$out/bugs" ] && note "bug reports: $out/bugs/*.txt (file them, then make mail BZ=name=NUMBER,... puts the numbers into the fixes)"
exit 0
