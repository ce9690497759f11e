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
  every other file of the fix is left byte for byte, as a conflict in
  code is a dependency on the earlier fix;
- the earlier fixes are applied to stock's copy of the file here, so that
  each line is known to be stock's or to come from a given earlier fix;
  the fix's changes are put between the same stock lines as in the
  earlier fixes' version, and the file's diff is made anew against stock;
- refused, with exit status 1 and one line that names the patch, the
  file and the earlier fix: a hunk that removes or changes a line an
  earlier fix added, one between whose lines an earlier fix removed or
  changed a stock line, and one that would land in a different place of
  the Makefile's syntax than in the earlier fixes' version: after a
  line an earlier fix added that ends in a backslash (a rule or a list
  it continues), or inside a conditional (ifeq ... endif, define ...
  endef) that an earlier fix added.

usage: rebase_fix.py --tree STOCK_TREE [--files NAME,...] FIX [EARLIER...]
The rewritten FIX goes to standard output; standard error names each file
where context lines of earlier fixes were dropped, one line each.
"""

import argparse
import difflib
import os
import re
import sys

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
DIFF = re.compile(r"^diff --git a/(\S+) b/(\S+)$")
OPEN = re.compile(r"^\s*(ifeq|ifneq|ifdef|ifndef|define)\b")
CLOSE = re.compile(r"^\s*(endif|endef)\b")


class Refused(Exception):
    pass


def read_text(path):
    """PATH as text, whatever its bytes (the patch is written back as read)."""
    with open(path, encoding="utf-8", errors="surrogateescape",
              newline="") as f:
        return f.read()


def lines_of(text):
    """TEXT split at newlines only (a form feed is part of a line)."""
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def fix_name(path):
    """A patch's number, as the summary names fixes: 0002."""
    return os.path.basename(path).split("-")[0]


def sections(lines):
    """The patch as HEAD, [(path, header, hunks)...], TAIL: HEAD is the mail
    before the first diff, each hunk is (start, header line, body lines),
    TAIL the signature after the last hunk."""
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
            start = int(h.group(1))
            hline = lines[i]
            body = []
            i += 1
            while old > 0 or new > 0 or (i < len(lines)
                                         and lines[i].startswith("\\")):
                if i >= len(lines):
                    raise Refused("%s: a hunk is shorter than its header says"
                                  % m.group(1))
                line = lines[i]
                body.append(line)
                i += 1
                tag = line[:1]
                if tag == " ":
                    old -= 1
                    new -= 1
                elif tag == "-":
                    old -= 1
                elif tag == "+":
                    new -= 1
                elif tag != "\\":
                    raise Refused("%s: a hunk is shorter than its header says"
                                  % m.group(1))
            hunks.append((start, hline, body))
        files.append((m.group(1), header, hunks))
    return head, files, tail


def find(lines, old, pos):
    """Where OLD (a list of lines) is in LINES, the nearest to POS, as git
    apply looks for a hunk; None if nowhere."""
    if not old:
        return min(max(pos, 0), len(lines))
    for d in range(len(lines) + 1):
        for p in (pos - d, pos + d) if d else (pos,):
            if 0 <= p <= len(lines) - len(old) and lines[p:p + len(old)] == old:
                return p
    return None


def apply_tracked(lines, origin, hunks, name, path):
    """HUNKS (of the patch NAME) applied to LINES; ORIGIN holds, for each
    line, its index in stock or the name of the fix that added it."""
    offset = 0
    for start, _, body in hunks:
        old = [l[1:] for l in body if l[:1] in " -"]
        at = find(lines, old, start - 1 + offset)
        if at is None:
            raise Refused("%s: %s does not apply to stock's file" % (path, name))
        new_lines, new_origin, j = [], [], at
        for l in body:
            if l[:1] == " ":
                new_lines.append(lines[j])
                new_origin.append(origin[j])
                j += 1
            elif l[:1] == "-":
                j += 1
            elif l[:1] == "+":
                new_lines.append(l[1:])
                new_origin.append(name)
        lines[at:j] = new_lines
        origin[at:j] = new_origin
        offset += len(new_lines) - (j - at)


def balanced(run):
    """Whether the Makefile lines RUN open and close their conditionals."""
    depth = 0
    for l in run:
        if OPEN.match(l):
            depth += 1
        elif CLOSE.match(l):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def check_run(run, prev, who, at_line):
    """Refuse RUN, lines that the fix WHO added, which stand between PREV
    and what follows them in the earlier fixes' version and are left out of
    stock's, if leaving them out changes what the lines around them are in
    the Makefile: a line that PREV continues must go on to the line after
    RUN in both versions (every line of RUN continues), a line after RUN
    must not continue the last of RUN, and RUN must close what it opens."""
    if not run:
        return
    cont = [l.endswith("\\") for l in run]
    if prev.endswith("\\") and not all(cont):
        raise Refused(at_line + " continues into a line that %s added" % who)
    if not prev.endswith("\\") and cont[-1]:
        raise Refused(at_line + " continues a line that %s added" % who)
    if not balanced(run):
        raise Refused(at_line + " is inside a conditional that %s added"
                      % who)


def rebase_file(path, hunks, stock, before, origin):
    """The diff lines of PATH's HUNKS (made against BEFORE) made against
    STOCK, and the number of context lines of earlier fixes dropped; None
    for the diff if the hunks need no change."""
    edits, dropped, offset, touched = [], 0, 0, False
    for start, _, body in hunks:
        at_line = "%s: the hunk at line %d" % (path, start)
        if any(l.startswith("\\") for l in body):
            raise Refused(at_line + " is at the end of a file without a "
                          "newline")
        old = [l[1:] for l in body if l[:1] in " -"]
        at = find(before, old, start - 1 + offset)
        if at is None:
            raise Refused(at_line + " does not apply to the earlier fixes' "
                          "version")
        offset = at - (start - 1)
        tags = [l[0] for l in body]
        first = next(k for k, t in enumerate(tags) if t != " ")
        last = len(tags) - next(k for k, t in enumerate(reversed(tags))
                                if t != " ")
        dropped += sum(1 for k, t in enumerate(t for t in tags if t in " -")
                       if t == " " and isinstance(origin[at + k], str))
        # The earlier fixes' lines between the last stock line before the
        # changes and the changes.
        j0 = at + tags[:first].count(" ")
        k = j0 - 1
        while k >= 0 and isinstance(origin[k], str):
            k -= 1
        s = origin[k] + 1 if k >= 0 else 0
        prev = stock[s - 1] if s > 0 else ""
        if k + 1 < j0:
            check_run(before[k + 1:j0], prev, origin[j0 - 1], at_line)
            touched = True
        # The changes, less the earlier fixes' lines between them.
        inner, n, j, run, who = [], 0, j0, [], None
        for line in body[first:last]:
            w = origin[j] if line[0] != "+" else None
            if isinstance(w, str):
                if line[0] == "-":
                    raise Refused(at_line + " removes a line that %s added"
                                  % w)
                run.append(line[1:])
                who = w
                j += 1
                touched = True
                continue
            check_run(run, prev, who, at_line)
            run = []
            if line[0] == "+":
                inner.append(line[1:])
                prev = line[1:]
                continue
            j += 1
            if w != s + n:
                raise Refused(at_line + " has stock lines that an earlier "
                              "fix removed or changed")
            if line[0] == " ":
                inner.append(line[1:])
                prev = line[1:]
            n += 1
        # The earlier fixes' lines after the changes, up to the next stock
        # line, which must be the one after them in stock too.
        k = j
        while k < len(before) and isinstance(origin[k], str):
            k += 1
        if (origin[k] if k < len(before) else len(stock)) != s + n:
            raise Refused(at_line + " precedes stock lines that an earlier "
                          "fix removed or changed")
        if j < k:
            check_run(before[j:k], prev, origin[j], at_line)
            touched = True
        if edits and s < edits[-1][0] + edits[-1][1]:
            raise Refused(at_line + " overlaps the hunk before it in stock")
        edits.append((s, n, inner))
    if not touched and not dropped:
        # No line of an earlier fix in or next to the changes: the hunks
        # apply to stock as they are (at an offset, as git apply finds).
        return None, 0
    result = list(stock)
    for s, n, new in reversed(edits):
        result[s:s + n] = new
    diff = list(difflib.unified_diff(stock, result, lineterm="", n=3))
    return diff[2:], dropped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True, help="stock's source tree")
    ap.add_argument("--files", default="Makefile",
                    help="base names of the files to rewrite, comma-separated")
    ap.add_argument("fix")
    ap.add_argument("earlier", nargs="*")
    a = ap.parse_args()
    names = set(a.files.split(","))
    text = read_text(a.fix)
    out, changed = [], False
    try:
        # Each earlier fix's files and hunks, read once.
        earlier = [(fix_name(p), sections(lines_of(read_text(p)))[1])
                   for p in a.earlier]
        head, files, tail = sections(lines_of(text))
        out.extend(head)
        for path, header, hunks in files:
            stock_path = os.path.join(a.tree, path)
            diff = None
            if os.path.basename(path) in names and os.path.isfile(stock_path):
                stock_text = read_text(stock_path)
                if not stock_text.endswith("\n"):
                    raise Refused("%s: stock's file does not end in a newline"
                                  % path)
                stock = lines_of(stock_text)
                before, origin = list(stock), list(range(len(stock)))
                for name, efiles in earlier:
                    for epath, _, ehunks in efiles:
                        if epath == path:
                            apply_tracked(before, origin, ehunks, name, path)
                diff, dropped = rebase_file(path, hunks, stock, before, origin)
                if dropped:
                    print("%s: %d context line%s of earlier fixes dropped"
                          % (path, dropped, "" if dropped == 1 else "s"),
                          file=sys.stderr)
            if diff is None:
                out.extend(header)
                for _, hline, body in hunks:
                    out.append(hline)
                    out.extend(body)
            else:
                changed = True
                # The index line names the earlier fixes' blobs: left out.
                out.extend(l for l in header if not l.startswith("index "))
                out.extend(diff)
        out.extend(tail)
    except Refused as e:
        sys.exit("%s: %s" % (os.path.basename(a.fix), e))
    result = "\n".join(out) + "\n" if changed else text
    sys.stdout.buffer.write(result.encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main()
