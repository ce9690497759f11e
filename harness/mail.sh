#!/usr/bin/env bash
# make mail: the series as mails for libc-alpha, in $BUILD/mail/<base>/:
# the series' git format-patch files, each with the submitter's From: and
# Signed-off-by: (from git config user.name and user.email; none, and it
# refuses), and 0000-cover-letter.patch written
# from the last `make check` and `make bench` results of this tree
# (harness/cover_letter.py).  It then checks that the mails apply with
# `git am` to the base source, and to the glibc git checkout GLIBC_SRC
# when one is given (the libc-alpha case: the submitter's master).
# The output directory is replaced only once all of that succeeded.
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
# it was made on, manual/ included) with the submitter as From: and a
# Signed-off-by: trailer of theirs (git interpret-trailers: its own
# paragraph at the end of the message, before the --- line); the dates
# stay.
mapfile -t series < <(series_patches patched)
mkdir -p "$tmp/mail"
sob="Signed-off-by: $name <$email>"
for p in "${series[@]}"; do
  awk -v from="From: $name <$email>" '
    BEGIN { hdr = 1 }
    hdr && /^From: / { print from; next }
    hdr && /^$/ { hdr = 0 }
    { print }' "$p" | git interpret-trailers --trailer "$sob" > "$tmp/mail/${p##*/}" \
    && grep -q '^---$' "$tmp/mail/${p##*/}" \
    && git interpret-trailers --parse < "$tmp/mail/${p##*/}" | grep -qxF "$sob" \
    || die "${p##*/} is not a git format-patch mail (no --- line, or its Signed-off-by: is not a trailer)"
done
mapfile -t mails < <(ls "$tmp/mail"/0*.patch)

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
manual_left_out=
for p in "${mails[@]}"; do
  [ -n "$(apply_excludes "$cover_repo" "$p" 2>/dev/null)" ] && manual_left_out=1
done
# The cover letter's shortlog and diffstat from the tree the mails went
# on last: the checkout when one is given (all of the series applies
# there), else the base source (without the manual/ hunks if it has no
# manual/: cover_letter.py then says so).
git -C "$cover_repo" -c user.name="$name" -c user.email="$email" format-patch -q \
  --cover-letter --thread=shallow -o "$tmp/cover" HEAD~${#mails[@]} \
  && mv "$tmp/cover/0000-cover-letter.patch" "$tmp/mail/" \
  || die "git format-patch --cover-letter failed"
"$TOP/harness/cover_letter.py" --base "$(stock_key)" --label "$(glibc_label)" --build "$BUILD" \
  ${manual_left_out:+--manual-left-out} "$tmp/mail/0000-cover-letter.patch" || exit 1

rm -rf "$out" && mv "$tmp/mail" "$out"
note "mails in $out: $(ls "$out" | wc -l) files ($(ls "$out" | head -n1) ...); send with git send-email --to=libc-alpha@sourceware.org $out/*.patch"
