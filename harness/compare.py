#!/usr/bin/env python3
"""Compare two test result files in the DejaGnu .sum format, test by test.

    compare.py [--known FILE] [--json OUT.json] STOCK.sum PATCHED.sum
    compare.py --lines [--test NAME] FILE         (used by check.sh)
    compare.py --failed [--known FILE] RAW.sum    (used by check.sh)
    compare.py --merge-reruns RERUNS.sum RAW.sum  (used by check.sh)
    compare.py --summary [--smoke SMOKE.sum] COMPARISON.json...

In the tradition of GCC's contrib/compare_tests: every test is looked up in
both files.  A regression is a test that is not failing on stock and fails,
is unresolved or disappears on the patched side, or one that passes on stock
and is an expected failure, untested or unsupported on the patched side; the
exit status is 1 when there is any.  UNSUPPORTED is kept apart from FAIL.  A
test that failed and then passed when run again is FLAKY: it is listed, not
silenced, and does not count as a regression unless it never passed.  A
test the series adds as another mode of a stock test (X-cond-legacy) is
compared with stock's X.

The known-failures file lists tests that fail on stock in some environment,
one per line: "subdir/test  reason".  An entry for a test that passes on
stock is an error: the list may only explain real stock failures.  An
entry whose reason begins "intermittent:" is a test that fails there some
of the time on stock and on patched alike (the reason gives how often,
measured): one run of each side says nothing about the series, so a PASS
on one side and a FAIL on the other (of the test, or of its X-cond-legacy
mode) is listed as such, neither a regression nor an improvement, and a
PASS on stock is not an error.  A FAIL that is no result (the test did
not build, or make was killed) is not chance: it stays a regression.

--json writes the comparison as data (the same as the text: both sides'
counts per status, the regressions, flaky tests, improvements...); check.sh
keeps one per comparison and --summary reads them for the gate's closing
line.  --lines prints the result lines of a file (DejaGnu's .sum, with its
other lines), or the first of test NAME; --failed prints the names of the
tests that FAILed, one a line (with --known, those the list does not
explain: running a known failure again tells nothing, and under qemu-user
most of them hang to their time limit), and --merge-reruns reads the
results of running them again (RERUNS.sum: result lines in the same
format, in the order they ran) and prints RAW with each failure that then
passed turned FLAKY.
"""

import argparse
import collections
import json
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


def sum_lines(path):
    """The result lines of a .sum file, as (status, name, rest, line); the
    one reader of the format."""
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m:
                yield m.group(1), m.group(2), (m.group(3) or "").strip(), line


def read_sum(path):
    """Map test name -> (status, rest of line).  A name seen twice keeps its
    worst result."""
    results = collections.OrderedDict()
    for status, name, rest, _ in sum_lines(path):
        old = results.get(name)
        if old is None or (status in BAD and old[0] not in BAD):
            results[name] = (status, rest)
    return results


INTERMITTENT = "intermittent:"
# How check.sh's result_of marks a test that gave no result (not built, or
# make killed): never chance.
NO_RESULT = "(no result"
# How the DejaGnu and POSIX runners mark a test they killed at its time
# limit: a hang, not the test's own failure, so never chance either.
TIMED_OUT = "TIMEOUT after"


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


def failed(raw_path, known):
    """The names of the tests that FAILed in RAW and that KNOWN (a
    known-failures map) does not explain, by their own name or their
    baseline's, in order, once each."""
    names = []
    for status, name, _, _ in sum_lines(raw_path):
        if (status == "FAIL" and name not in names
                and baseline(name, known) not in known):
            names.append(name)
    return names


def merge_reruns(reruns_path, raw_path):
    """RAW's lines with each FAIL that passed on a later run (a line of
    RERUNS) turned FLAKY, keeping what the failed run said."""
    runs = collections.defaultdict(list)
    for status, name, _, _ in sum_lines(reruns_path):
        runs[name].append(status)
    out = []
    with open(raw_path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            later = runs.get(m.group(2), []) if m else []
            if m and m.group(1) == "FAIL" and "PASS" in later:
                why = (m.group(3) or "").strip()
                out.append("FLAKY: %s (failed%s, then %d of %d re-runs passed)\n"
                           % (m.group(2), ": " + why if why else "",
                              later.count("PASS"), len(later)))
            else:
                out.append(line)
    return out


def side(path, results):
    c = collections.Counter(s for s, _ in results.values())
    return {"file": path, "name": os.path.basename(path).rsplit(".", 1)[0],
            "tests": len(results),
            "counts": {s: c[s] for s in STATUSES if c[s]}}


# The series adds tests that run a test stock has again in another mode:
# X-cond-legacy is X's program with glibc.pthread.cond_legacy=1.  Where
# stock has no X-cond-legacy, its baseline is stock's X: the same program
# in the same environment (a failure of X there, under qemu-user say, is
# not the series').
VARIANT_SUFFIXES = ("-cond-legacy",)


def baseline(name, stock):
    """The name of the stock test that NAME of patched is compared with."""
    if name not in stock:
        for suffix in VARIANT_SUFFIXES:
            if name.endswith(suffix) and name[:-len(suffix)] in stock:
                return name[:-len(suffix)]
    return name


def compare(stock_path, patched_path, known_path=None):
    """The comparison as data: see --json."""
    stock = read_sum(stock_path)
    patched = read_sum(patched_path)
    known = read_known(known_path) if known_path else {}
    doc = {"stock": side(stock_path, stock), "patched": side(patched_path, patched),
           "regressions": [], "flaky": [], "improvements": [], "changes": [],
           "stock_failures": [], "stale_known": [], "intermittent": []}
    intermittent = {n for n, why in known.items() if why.startswith(INTERMITTENT)}

    for name in sorted(set(stock) | set(patched)):
        base = baseline(name, stock)
        s = stock.get(base, ("MISSING", ""))[0]
        p = patched.get(name, ("MISSING", ""))[0]
        change = {"test": name, "stock": s, "patched": p}
        if base != name:
            change["stock_test"] = base
        if s == "FLAKY" or p == "FLAKY":
            doc["flaky"].append(change)
        # A variant's baseline is listed, if failing, under its own name.
        if base == name and s in BAD:
            doc["stock_failures"].append(dict(change, known=known.get(name)))
        elif (base == name and name in known and s != "MISSING"
              and name not in intermittent):
            doc["stale_known"].append(change)
        if s == p:
            continue
        rest = patched.get(name, ("", ""))[1]
        no_result = NO_RESULT in rest or TIMED_OUT in rest
        if base in intermittent and {s, p} <= {"PASS", "FAIL"} and not no_result:
            doc["intermittent"].append(dict(change, known=known[base]))
            continue
        if s not in BAD and (p in BAD or p == "MISSING"
                             or (s == "PASS" and p in NOT_PASSING)):
            doc["regressions"].append(change)
        elif s in BAD and p == "PASS":
            doc["improvements"].append(change)
        elif "FLAKY" not in (s, p):
            doc["changes"].append(change)
    doc["exit_status"] = 1 if doc["regressions"] or doc["stale_known"] else 0
    return doc


def render(doc):
    """The comparison as text (compare-*.txt), ending in a RESULT: line."""
    names = (doc["stock"]["name"], doc["patched"]["name"])
    width = max(len(n) for n in names) + 1
    out = []
    for sd in (doc["stock"], doc["patched"]):
        out.append("%-*s %d tests: %s" % (
            width, sd["name"] + ":", sd["tests"],
            " ".join("%s %d" % kv for kv in sd["counts"].items())))
    change = "{test}: {stock} -> {patched}".format
    for title, key, fmt in (
            ("REGRESSIONS (not failing on %s, failing or no longer passing on %s)"
             % names, "regressions", change),
            ("flaky (failed, then passed when run again)", "flaky",
             "{test}: stock {stock}, patched {patched}".format),
            ("improvements", "improvements", change),
            ("other differences", "changes", change),
            ("intermittent on stock (known failures): PASS on one side and "
             "FAIL on the other by chance", "intermittent",
             lambda **c: "%s: %s -> %s (%s)" % (c["test"], c["stock"], c["patched"],
                                               c["known"])),
            ("failing on stock", "stock_failures",
             lambda **c: "%s: %s%s" % (c["test"], c["stock"],
                                       " (known: %s)" % c["known"] if c["known"]
                                       else " (not in the known-failures list)")),
            ("ERROR in the known-failures list", "stale_known",
             "{test} is listed as a known failure but is {stock} on stock".format)):
        if doc[key]:
            out.append("%s: %d" % (title, len(doc[key])))
            out += ["  " + fmt(**c) for c in doc[key]]
    if doc["exit_status"]:
        out.append("RESULT: %d regression(s)%s" % (
            len(doc["regressions"]),
            ", stale known-failures entries" if doc["stale_known"] else ""))
    else:
        out.append("RESULT: no regressions")
    return "\n".join(out) + "\n"


def summary(json_paths, smoke_path=None):
    """The gate's closing line: the patched sides' tests that did not
    regress, and the regressions plus the failed smoke checks.  A comparison
    that wrote no JSON (it did not run) counts as one failure."""
    passed = nfail = 0
    for path in json_paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("compare.py: no comparison in %s: %s" % (path, e), file=sys.stderr)
            nfail += 1
            continue
        regressed = doc["regressions"]
        passed += doc["patched"]["tests"] - sum(1 for c in regressed
                                                if c["patched"] != "MISSING")
        nfail += len(regressed)
    if smoke_path:
        nfail += sum(1 for s, _, _, _ in sum_lines(smoke_path) if s == "FAIL")
    return "check: %d passed, %d failed" % (passed, nfail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--known", help="known stock failures of this base")
    ap.add_argument("--json", metavar="OUT", help="write the comparison as JSON")
    ap.add_argument("--lines", action="store_true",
                    help="print the result lines of the file")
    ap.add_argument("--test", metavar="NAME", help="with --lines: only the first of NAME")
    ap.add_argument("--failed", action="store_true",
                    help="print the names of the tests that FAILed in the file")
    ap.add_argument("--merge-reruns", metavar="RERUNS")
    ap.add_argument("--summary", action="store_true",
                    help="print the gate's closing line from comparisons' JSON")
    ap.add_argument("--smoke", help="with --summary: the smoke test's .sum")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.summary:
        print(summary(a.files, a.smoke))
        return 0
    if a.lines or a.failed or a.merge_reruns:
        if len(a.files) != 1:
            ap.error("give one file")
        if a.lines:
            lines = [l for _, name, _, l in sum_lines(a.files[0])
                     if a.test in (None, name)][:1 if a.test else None]
        else:
            lines = (failed(a.files[0], read_known(a.known) if a.known else {})
                     if a.failed
                     else merge_reruns(a.merge_reruns, a.files[0]))
        sys.stdout.write("".join(l if l.endswith("\n") else l + "\n" for l in lines))
        return 0
    if len(a.files) != 2:
        ap.error("give STOCK.sum and PATCHED.sum")
    doc = compare(a.files[0], a.files[1], a.known)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    sys.stdout.write(render(doc))
    return doc["exit_status"]


if __name__ == "__main__":
    sys.exit(main())
