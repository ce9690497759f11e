#!/usr/bin/env python3
"""rebase_fix.py: a fix, rewritten to apply to stock without the fixes
before it where it meets them only in the files named (Makefiles).

Each fix of the series is made on top of the fixes before it.  Where
those only added lines near a hunk of the fix (a test's name in a sorted
test list of nptl/Makefile, the rules of its modules), the hunk's context
holds lines that stock lacks, and the fix does not apply to stock alone
although nothing in it depends on those lines: a distribution that takes
the fix alone drops them from the context by hand.  This does the same,
and nothing more:

- only in the files whose base name --files names (default: Makefile);
  a hunk elsewhere is left as it is, as a conflict in code is a
  dependency on the earlier fix;
- the earlier fixes are applied to stock's copy of the file (git apply),
  stock's lines are matched to the result's (difflib), and a context line
  that an earlier fix added is dropped;
- a hunk that removes such a line, or one whose remaining context is not
  one run of stock's lines (an earlier fix removed or changed a stock
  line there), or one that is left without context on a side that had
  some, is refused: exit status 1 and one line naming the patch and the
  file.

usage: rebase_fix.py --tree STOCK_TREE [--files NAME,...] FIX [EARLIER...]
The rewritten FIX goes to standard output; standard error names each file
where context lines were dropped, one line each.
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
DIFF = re.compile(r"^diff --git a/(\S+) b/(\S+)$")


class Refused(Exception):
    pass


def sections(lines):
    """The patch as [head, (path, header, hunks)..., tail]: HEAD is the mail
    before the first diff, each hunk is (match, body lines), TAIL the
    signature after the last hunk."""
    head, files, i = [], [], 0
    while i < len(lines) and not DIFF.match(lines[i]):
        head.append(lines[i])
        i += 1
    tail = []
    while i < len(lines):
        m = DIFF.match(lines[i])
        if not m:
            tail = lines[i:]
            break
        header = [lines[i]]
        i += 1
        while i < len(lines) and not HUNK.match(lines[i]) \
                and not DIFF.match(lines[i]):
            header.append(lines[i])
            i += 1
        hunks = []
        while i < len(lines) and HUNK.match(lines[i]):
            h = HUNK.match(lines[i])
            old = int(h.group(2) if h.group(2) is not None else 1)
            new = int(h.group(4) if h.group(4) is not None else 1)
            body = []
            i += 1
            while old > 0 or new > 0 or (i < len(lines)
                                         and lines[i].startswith("\\")):
                line = lines[i]
                body.append(line)
                i += 1
                if line.startswith(" "):
                    old -= 1
                    new -= 1
                elif line.startswith("-"):
                    old -= 1
                elif line.startswith("+"):
                    new -= 1
                elif not line.startswith("\\"):
                    raise Refused("hunk shorter than its header says")
            hunks.append((h, body))
        files.append((m.group(1), header, hunks))
    return head, files, tail


def earlier_version(tree, path, earlier):
    """Stock's PATH with the earlier patches applied, as lines."""
    tmp = tempfile.mkdtemp(prefix="rebase-fix-")
    try:
        dest = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(tree, path), dest)
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(tmp))
        for p in earlier:
            with open(p, encoding="utf-8") as f:
                if ("diff --git a/%s b/%s\n" % (path, path)) not in f.read():
                    continue
            r = subprocess.run(["git", "apply", "--include=" + path,
                                os.path.abspath(p)], cwd=tmp, env=env,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise Refused("%s does not apply to stock's %s: %s"
                              % (os.path.basename(p), path,
                                 r.stderr.strip().splitlines()[-1]))
        with open(dest, encoding="utf-8") as f:
            return f.read().splitlines()
    finally:
        shutil.rmtree(tmp)


def stock_lines(stock, before):
    """For each line of BEFORE (stock with the earlier fixes), the index of
    the same line in STOCK, None for a line an earlier fix added, or
    "changed" for one that replaced a stock line."""
    where = [None] * len(before)
    sm = difflib.SequenceMatcher(None, stock, before, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for j in range(j1, j2):
            if tag == "equal":
                where[j] = i1 + (j - j1)
            elif tag == "replace":
                where[j] = "changed"
    return where


def rebase_hunks(path, hunks, stock, before):
    """HUNKS of PATH (made against BEFORE) made against STOCK, and the
    number of context lines dropped.  A hunk's changes (its lines from the
    first line it removes or adds to the last, the context between them
    less the lines earlier fixes added) go where the stock lines around
    them are; its outer context is taken again from stock, as many lines
    as it had."""
    where = stock_lines(stock, before)
    out, dropped, delta = [], 0, 0
    for h, body in hunks:
        at = "%s: the hunk at line %s" % (path, h.group(1))
        if any(l.startswith("\\") for l in body):
            raise Refused(at + " is at the end of a file without a newline")
        lines = body
        tags = [l[0] for l in lines]
        first = next(k for k, t in enumerate(tags) if t != " ")
        last = len(tags) - next(k for k, t in enumerate(reversed(tags))
                                if t != " ")
        # B: index in BEFORE of each line on the old side.
        j = int(h.group(1)) - 1
        for line in lines:
            if line[0] in " -":
                if j >= len(before) or before[j] != line[1:]:
                    raise Refused(at + " does not match the earlier fixes' "
                                  "version")
                dropped += line[0] == " " and where[j] is None
                j += 1
        j0 = int(h.group(1)) - 1 + tags[:first].count(" ")
        # The last stock line before the changes, in stock.
        k = j0 - 1
        while k >= 0 and where[k] is None:
            k -= 1
        if k >= 0 and where[k] == "changed":
            raise Refused(at + " follows a line that an earlier fix changed")
        s = where[k] + 1 if k >= 0 else 0
        inner, n, j = [], 0, j0
        for line in lines[first:last]:
            if line[0] == "+":
                inner.append(line)
                continue
            w = where[j]
            j += 1
            if w is None and line[0] == " ":
                continue
            if w != s + n:
                raise Refused(at + " %s a line that an earlier fix %s"
                              % ("removes" if line[0] == "-"
                                 else "has as context",
                                 "added" if w is None
                                 else "changed" if w == "changed"
                                 else "moved"))
            inner.append(line)
            n += 1
        # The next stock line after the changes must be the one after them
        # in stock too: no stock line removed or changed there.
        k = j
        while k < len(before) and where[k] is None:
            k += 1
        if (where[k] if k < len(before) else len(stock)) != s + n:
            raise Refused(at + " precedes a line that an earlier fix "
                          "changed or removed")
        lead = stock[max(0, s - first):s]
        trail = stock[s + n:s + n + len(tags) - last]
        new_body = [" " + l for l in lead] + inner + [" " + l for l in trail]
        old = sum(1 for l in new_body if l[:1] in " -")
        new = sum(1 for l in new_body if l[:1] in " +")
        start = s - len(lead) + 1
        out.append("@@ -%d,%d +%d,%d @@%s" % (start, old, start + delta, new,
                                             h.group(5)))
        out.extend(new_body)
        delta += new - old
    return out, dropped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True, help="stock's source tree")
    ap.add_argument("--files", default="Makefile",
                    help="base names of the files to rewrite, comma-separated")
    ap.add_argument("fix")
    ap.add_argument("earlier", nargs="*")
    a = ap.parse_args()
    names = set(a.files.split(","))
    with open(a.fix, encoding="utf-8") as f:
        text = f.read()
    try:
        head, files, tail = sections(text.splitlines())
        out = list(head)
        for path, header, hunks in files:
            out.extend(header)
            if os.path.basename(path) in names \
                    and os.path.isfile(os.path.join(a.tree, path)):
                with open(os.path.join(a.tree, path), encoding="utf-8") as f:
                    stock = f.read().splitlines()
                before = earlier_version(a.tree, path, a.earlier)
                lines, dropped = rebase_hunks(path, hunks, stock, before)
                out.extend(lines)
                if dropped:
                    print("%s: %d context line%s of earlier fixes dropped"
                          % (path, dropped, "" if dropped == 1 else "s"),
                          file=sys.stderr)
            else:
                for h, body in hunks:
                    out.append(h.group(0))
                    out.extend(body)
        out.extend(tail)
    except Refused as e:
        sys.exit("%s: %s" % (os.path.basename(a.fix), e))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
