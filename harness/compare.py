#!/usr/bin/env python3
"""Compare two test result files in the DejaGnu .sum format, test by test.

    compare.py [--known FILE] STOCK.sum PATCHED.sum
    compare.py --merge-reruns RERUNS RAW.sum      (used by check.sh)

In the tradition of GCC's contrib/compare_tests: every test is looked up in
both files.  A regression is a test that is not failing on stock and fails,
is unresolved or disappears on the patched side, or one that passes on stock
and is an expected failure, untested or unsupported on the patched side; the
exit status is 1 when there is any.  UNSUPPORTED is kept apart from FAIL.  A
test that failed and then passed when run again is FLAKY: it is listed, not
silenced, and does not count as a regression unless it never passed.

The known-failures file lists tests that fail on stock in some environment,
one per line: "subdir/test  reason".  An entry for a test that passes on
stock is an error: the list may only explain real stock failures.
"""

import argparse
import collections
import os
import re
import sys

STATUSES = ("PASS", "FAIL", "FLAKY", "UNSUPPORTED", "XFAIL", "XPASS",
            "UNRESOLVED", "UNTESTED", "ERROR")
# The name ends at the first blank or at a colon followed by a blank
# (DejaGnu: "FAIL: storm: exit 1: ...").
LINE = re.compile(r"^(%s): (\S+?):?(\s.*)?$" % "|".join(STATUSES))
BAD = {"FAIL", "UNRESOLVED", "ERROR", "XPASS"}
# What a test that passes on stock must not become: an expected failure, a
# test that is not run, or none at all (compare_tests: "PASS->FAIL", "Tests
# that now fail", "Tests that disappeared").
NOT_PASSING = {"XFAIL", "UNTESTED", "UNSUPPORTED", "MISSING"}


def read_sum(path):
    """Map test name -> (status, rest of line).  A name seen twice keeps its
    worst result."""
    results = collections.OrderedDict()
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            status, name, rest = m.groups()
            rest = rest or ""
            old = results.get(name)
            if old is None or (status in BAD and old[0] not in BAD):
                results[name] = (status, rest.strip())
    return results


def read_known(path):
    known = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    name, _, reason = line.partition(" ")
                    known[name] = reason.strip() or "(no reason given)"
    except FileNotFoundError:
        pass
    return known


def merge_reruns(reruns_path, raw_path):
    """Print RAW with each FAIL that passed on a later run turned FLAKY."""
    runs = collections.defaultdict(list)
    with open(reruns_path) as f:
        for line in f:
            m = re.match(r"^run \d+: (.*)$", line)
            m = m and LINE.match(m.group(1))
            if m:
                runs[m.group(2)].append(m.group(1))
    with open(raw_path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m and m.group(1) == "FAIL" and "PASS" in runs.get(m.group(2), []):
                later = runs[m.group(2)]
                print("FLAKY: %s (failed, then %d of %d re-runs passed)"
                      % (m.group(2), later.count("PASS"), len(later)))
            else:
                sys.stdout.write(line)
    return 0


def counts(results):
    c = collections.Counter(s for s, _ in results.values())
    return " ".join("%s %d" % (s, c[s]) for s in STATUSES if c[s])


def compare(stock_path, patched_path, known_path):
    stock = read_sum(stock_path)
    patched = read_sum(patched_path)
    known = read_known(known_path) if known_path else {}
    regressions, improvements, changes, flaky, stock_fails, stale = \
        [], [], [], [], [], []

    for name in sorted(set(stock) | set(patched)):
        s = stock.get(name, ("MISSING", ""))[0]
        p = patched.get(name, ("MISSING", ""))[0]
        if s == "FLAKY" or p == "FLAKY":
            flaky.append("%s: stock %s, patched %s" % (name, s, p))
        if s in BAD:
            stock_fails.append("%s: %s%s" % (
                name, s, " (known: %s)" % known[name] if name in known
                else " (not in the known-failures list)"))
        elif name in known and s != "MISSING":
            stale.append("%s is listed as a known failure but is %s on stock"
                         % (name, s))
        if s == p:
            continue
        line = "%s: %s -> %s" % (name, s, p)
        if s not in BAD and (p in BAD or p == "MISSING"
                             or (s == "PASS" and p in NOT_PASSING)):
            regressions.append(line)
            continue
        if s in BAD and p == "PASS":
            improvements.append(line)
        elif "FLAKY" not in (s, p):
            changes.append(line)

    names = [os.path.basename(p).rsplit(".", 1)[0] for p in (stock_path, patched_path)]
    width = max(len(n) for n in names) + 1
    print("%-*s %d tests: %s" % (width, names[0] + ":", len(stock), counts(stock)))
    print("%-*s %d tests: %s" % (width, names[1] + ":", len(patched), counts(patched)))
    for title, lines in (("REGRESSIONS (not failing on %s, failing or no longer passing on %s)"
                          % tuple(names),
                          regressions),
                         ("flaky (failed, then passed when run again)", flaky),
                         ("improvements", improvements),
                         ("other differences", changes),
                         ("failing on stock", stock_fails),
                         ("ERROR in the known-failures list", stale)):
        if lines:
            print("%s: %d" % (title, len(lines)))
            for line in lines:
                print("  " + line)
    if regressions or stale:
        print("RESULT: %d regression(s)%s" % (
            len(regressions), ", stale known-failures entries" if stale else ""))
        return 1
    print("RESULT: no regressions")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--known", help="known stock failures of this base")
    ap.add_argument("--merge-reruns", metavar="RERUNS")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if a.merge_reruns:
        return merge_reruns(a.merge_reruns, a.files[0])
    if len(a.files) != 2:
        ap.error("give STOCK.sum and PATCHED.sum")
    return compare(a.files[0], a.files[1], a.known)


if __name__ == "__main__":
    sys.exit(main())
