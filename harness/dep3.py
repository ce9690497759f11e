#!/usr/bin/env python3
"""Write a series of git format-patch files as quilt patches with DEP-3
headers, for a Debian source package.

    dep3.py SERIES_FILE OUTDIR

For each patch that SERIES_FILE names: OUTDIR/nptl-scale/NAME.diff with
Description (the subject and the commit message), Origin, Forwarded and
Last-Update (the patch's date), then the diff; and OUTDIR/series, the
lines to append to debian/patches/series.  No Bug field: no upstream bug
number exists for these changes yet.  Debian's glibc source has no
manual/ (it is repacked without it), so a patch's manual/ files are left
out, and its Description says so.
"""

import email
import email.policy
import email.utils
import os
import re
import sys


def convert(path, rel):
    with open(path) as f:
        text = f.read()
    head, _, rest = text.partition("\n\n")
    msg = email.message_from_string(head + "\n\n", policy=email.policy.default)
    subject = re.sub(r"^\[PATCH[^\]]*\]\s*", "", " ".join(str(msg["Subject"]).split()))
    date = email.utils.parsedate_to_datetime(str(msg["Date"])).strftime("%Y-%m-%d")
    body, sep, diff = rest.partition("\n---\n")
    if not sep or "diff --git" not in diff:
        sys.exit("dep3.py: %s is not a git format-patch file" % path)
    diff = diff[diff.index("diff --git"):]
    # The trailer git format-patch appends ("-- \n2.39.5\n") is not a diff.
    diff = re.sub(r"\n-- \n[^\n]*\n*$", "\n", diff)
    files = re.split(r"(?m)^(?=diff --git )", diff)
    kept = [f for f in files if not f.startswith("diff --git a/manual/")]
    diff = "".join(kept)
    desc = ["Description: " + subject]
    for line in body.strip("\n").split("\n"):
        desc.append(" " + line if line.strip() else " .")
    if len(kept) != len(files):
        desc += [" .", " The manual/ part of the change is left out: Debian's glibc source"
                 " has no manual/."]
    return "\n".join(desc + [
        "Origin: other, nptl-scale (%s)" % rel,
        "Forwarded: no",
        "Last-Update: " + date,
        "---",
        ""]) + diff


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    series, out = sys.argv[1:]
    d = os.path.dirname(os.path.abspath(series))
    os.makedirs(os.path.join(out, "nptl-scale"), exist_ok=True)
    lines = []
    with open(series) as f:
        names = [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]
    for name in names:
        base = os.path.splitext(os.path.basename(name))[0] + ".diff"
        with open(os.path.join(out, "nptl-scale", base), "w") as f:
            f.write(convert(os.path.join(d, name),
                            os.path.relpath(os.path.join(d, name),
                                            os.path.dirname(os.path.dirname(d)))))
        lines.append("nptl-scale/" + base)
    with open(os.path.join(out, "series"), "w") as f:
        f.write("".join(l + "\n" for l in lines))


if __name__ == "__main__":
    main()
