#!/usr/bin/env bash
# make mail: the series as mails for libc-alpha, in $BUILD/mail/<base>/:
# git format-patch files on top of the base source, each with the
# submitter's From: and Signed-off-by: (from git config user.name and
# user.email; none, and it refuses), and 0000-cover-letter.patch written
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
  unset GLIBC_SRC
  [ "$BASE" = local ] && BASE=$(series_base)
fi
check_base
"$TOP/harness/fetch-source.sh" || exit 1
out=$BUILD/mail/$BASE
tmp=$out.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# base_repo DIR: the base source as a git repository of one commit.
base_repo () {
  mkdir -p "$1"
  tar -xf "$(base_dir source)/glibc.tar" -C "$1" --strip-components=1
  git -C "$1" init -q
  git -C "$1" add -A
  GIT_AUTHOR_DATE="2000-01-01 00:00:00 +0000" GIT_COMMITTER_DATE="2000-01-01 00:00:00 +0000" \
    git -C "$1" -c user.name=base -c user.email=base@invalid commit -q -m "glibc $BASE (base)" \
    || die "could not make a git repository of the glibc $BASE source in $1"
}

# apply_mails REPO WHERE PATCH...: git am, or a one-line error naming the
# patch and the file that does not apply.
apply_mails () {
  local repo=$1 where=$2 p err file; shift 2
  for p in "$@"; do
    if ! err=$(git -C "$repo" -c user.name="$name" -c user.email="$email" \
                 am -q --keep-cr "$p" 2>&1); then
      git -C "$repo" am --abort >/dev/null 2>&1
      file=$(patch_error_file "$err")
      die "${p##*/} does not apply to $where${file:+ (file $file)}: $(printf '%s\n' "$err" | grep -m1 -i 'error\|fail' | cut -c1-200)"
    fi
  done
}

note "the series of glibc $BASE on its base source, as $name <$email>"
base_repo "$tmp/repo"
mapfile -t series < <(series_patches patched)
apply_mails "$tmp/repo" "glibc $BASE" "${series[@]}"
# The submitter becomes the author, and signs off; the dates stay.
git -C "$tmp/repo" -c user.name="$name" -c user.email="$email" \
  rebase -q --exec 'git commit -q --amend --no-edit --reset-author -s' HEAD~${#series[@]} \
  > /dev/null 2>&1 || die "could not set the author and Signed-off-by"
mkdir -p "$tmp/mail"
git -C "$tmp/repo" -c user.name="$name" -c user.email="$email" format-patch -q \
  --cover-letter --thread=shallow -o "$tmp/mail" HEAD~${#series[@]} \
  || die "git format-patch failed"
"$TOP/harness/cover_letter.py" --base "$BASE" --build "$BUILD" \
  "$tmp/mail/0000-cover-letter.patch" || exit 1
mapfile -t mails < <(ls "$tmp/mail"/0*.patch | grep -v /0000-)

note "checking: git am of the mails on glibc $BASE"
base_repo "$tmp/check"
apply_mails "$tmp/check" "glibc $BASE" "${mails[@]}"
if [ -n "$target" ]; then
  note "checking: git am of the mails on $target ($(git -C "$target" log -1 --format='%h %s' | cut -c1-60))"
  git clone -q --shared --no-checkout "$target" "$tmp/target" \
    && git -C "$tmp/target" checkout -q --detach "$(git -C "$target" rev-parse HEAD)" \
    || die "could not check out $target"
  apply_mails "$tmp/target" "$target" "${mails[@]}"
fi

rm -rf "$out" && mv "$tmp/mail" "$out"
note "mails in $out: $(ls "$out" | wc -l) files ($(ls "$out" | head -n1) ...); send with git send-email --to=libc-alpha@sourceware.org $out/*.patch"
