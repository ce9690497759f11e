#!/usr/bin/env python3
"""Fill in the cover letter that git format-patch --cover-letter wrote.

    cover_letter.py --base KEY [--label TEXT] [--part fixes|scale]
                    [--fixes-count N] [--manual-left-out] --build BUILD COVER.patch

make mail sends the series as two threads (--part): the fixes of stock
bugs (series.fixes), and the scalability series that depends on them
(--fixes-count: the fixes thread has N patches; its cover letter then
says so).  The subject and the text come from what this tree measured
last: the `make check` comparison (BUILD/KEY/check/compare-*-patched.json;
for the fixes, compare-*-fixes.json of make check VARIANTS="stock fixes"), glibc's
whole suite (BUILD/KEY/check-full/, or else the newest committed
results/KEY/<date>-check-full/), the same
for the other targets checked (BUILD/KEY-aarch64/, KEY-i686/), the targets
only compiled (make check-arches: BUILD/arches/KEY/summary.txt) and the
default `make bench` run (BUILD/bench/KEY/results.json), each with its
machine and date.  What was not run is said, not left out.  The
motivation is the fixed text of harness/cover-letter.txt.
"""

import argparse
import datetime
import glob
import json
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
SUBJECTS = {"scale": "nptl: Stack cache lock off the create and exit paths; legacy condvar tunable",
            "fixes": "nptl: Fix set*id deadlocks in pthread_create, and stack cache bugs"}
MOTIVATION = {"scale": "cover-letter.txt", "fixes": "cover-letter-fixes.txt"}
KINDS = (("glibc", "glibc's tests (the quick selection of nptl, nptl_db, elf, posix)"),
         ("dejagnu", "nptl-scale's stress and regression suite"),
         ("posix", "the pthread_cond tests of the Open POSIX Test Suite, in both condvar modes"),
         ("abi", "sizes and alignments of the pthread types, and a stock-built binary"))
# The benchmark rows quoted: creators of create+join, and the seed.
QUOTED = [("create-join", "create-join", n, "") for n in (1, 8, 40, 120, 500)] + \
         [("seed", "seed-work", n, p) for n, p in ((40, "direct"), (40, "spawn"),
                                                   (120, "spawn"), (500, "spawn"))]
# The create-latency rows quoted: empty threads churning, and the bare
# clone churning (the scheduler's bound on the same machine).
LATENCY_THREADS = (40, 120, 500)


def mtime(path):
    return datetime.datetime.fromtimestamp(os.path.getmtime(path),
                                           datetime.timezone.utc).strftime("%Y-%m-%d")


def committed_full(base, results, variant="patched"):
    """The newest make check-full comparison of VARIANT committed for BASE
    (RESULTS/BASE/<date>-check-full/compare-glibc-VARIANT.json), with its
    date and directory; None if there is none."""
    found = sorted(glob.glob(os.path.join(results, base, "*-check-full",
                                          "compare-glibc-%s.json" % variant)))
    if not found:
        return None
    d = os.path.dirname(found[-1])
    return found[-1], os.path.basename(d)[:10], os.path.relpath(d, os.path.dirname(results))


def check_part(build, base, results=None, variant="patched"):
    """The comparisons of make check (stock against VARIANT), then glibc's
    whole suite (make check-full) when it was run in BUILD, or else as
    committed under RESULTS; and whether it was run."""
    out = []
    kinds = [("check", kind, what) for kind, what in KINDS] + \
        [("check-full", "glibc", "glibc's whole test suite (make check-full)")]
    full = False
    for d, kind, what in kinds:
        p = os.path.join(build, base, d, "compare-%s-%s.json" % (kind, variant))
        when = mtime(p) if os.path.exists(p) else None
        if when is None and d == "check-full" and results:
            c = committed_full(base, results, variant)
            if c:
                p, day, where = c
                when = "%s, %s" % (day, where)
        if when is None:
            if d == "check":
                out.append("  %s: not run in this tree%s" % (
                    what, "" if variant == "patched"
                    else " (make check VARIANTS=\"stock %s\")" % variant))
            continue
        full = full or d == "check-full"
        with open(p) as f:
            c = json.load(f)
        counts = lambda side: ", ".join("%s %d" % kv for kv in sorted(c[side]["counts"].items()))
        out.append("  %s (%s):\n    stock: %s\n    %s: %s\n    regressions: %d"
                   % (what, when, counts("stock"), variant, counts("patched"),
                      len(c["regressions"])))
    return out, full


# The other targets checked with make check ARCH=..., and how their
# programs ran here.
ARCHES = (("aarch64", "under {qemu}, which has no rseq"), ("i686", "natively"))


def emulator(check_dir):
    """The qemu-user that ran a check (check.sh's emulator file: its
    version line, then its path), without the path."""
    try:
        with open(os.path.join(check_dir, "emulator")) as f:
            return f.readline().split(" (/")[0].strip() or "qemu-user"
    except OSError:
        return "qemu-user"


def arch_part(build, base, variant="patched"):
    """The make check comparisons (stock against VARIANT) of the other
    targets, then the targets make check-arches compiled (the whole
    series only); nothing when none was run."""
    out = []
    for arch, how in ARCHES:
        check_dir = os.path.join(build, "%s-%s" % (base, arch), "check")
        if os.path.exists(os.path.join(check_dir, "compare-glibc-%s.json" % variant)):
            lines, _ = check_part(build, "%s-%s" % (base, arch), variant=variant)
            how = how.format(qemu=emulator(check_dir))
            out += ["  %s (%s):" % (arch, how)] + ["  " + l.replace("\n", "\n  ")
                                                 for l in lines]
    summary = os.path.join(build, "arches", base, "summary.txt")
    if variant == "patched" and os.path.exists(summary):
        with open(summary) as f:
            compiled = [l.split() for l in f if " compiled, " in l]
        if compiled:
            out.append("  compiled only, stock and patched (libc.so with nptl/ and "
                       "elf/; make check-arches, %s):" % mtime(summary))
            out += ["    %s: %s" % (w[0], " ".join(w[w.index("compiled,"):]))
                    for w in compiled]
    return out


def bench_part(build, base):
    p = os.path.join(build, "bench", base, "results.json")
    if not os.path.exists(p):
        return ["  not run in this tree (make bench)"], None
    with open(p) as f:
        doc = json.load(f)
    m = doc["machine"]
    machine = "%d cores (%s), %s GiB, Linux %s" % (m["cores"], m.get("cpu", "?"),
                                                  m.get("mem_gib", "?"), m["kernel"])
    rows = {(r["group"], r["case"], r["threads"], r["param"]): r for r in doc["summary"]}
    out = ["  %s; %s; %d repetitions, medians, patched/stock with its 95%% "
           "bootstrap interval:" % (machine, doc["date"][:10], doc["reps"])]
    for key in QUOTED:
        r = rows.get(key)
        if r is None or "patched" not in r["variants"]:
            continue
        s, pv = r["variants"]["stock"], r["variants"]["patched"]
        ci = pv.get("ratio_ci") or [0, 0]
        out.append("    %-10s %-8s %4d threads  stock %10.0f/s  patched %10.0f/s  %.3f [%.3f, %.3f]%s"
                   % (key[1], key[3] or "-", key[2], s["median"], pv["median"],
                      pv["ratio"], ci[0], ci[1], "  (within noise)" if pv.get("ratio_noise") else ""))
    return out + lock_part(rows) + latency_part(rows), m["cores"]


# The global locks a lock-counting build counts, as the letter names them.
GLOBAL_LOCK_NAMES = (("stack_list", "GL (dl_stack_cache_lock)"),
                     ("load_tls", "GL (dl_load_tls_lock)"),
                     ("default_attr", "__default_pthread_attr_lock"))


def lock_part(rows):
    """Acquisitions of each global lock per create+join, by the builds of
    stock and patched that count them, at the fewest and most creators
    run (none if the run had no such build)."""
    counted = sorted((r for k, r in rows.items() if k[:2] == ("create-join", "create-join")
                      and all("lockstat" in r["variants"].get(v + "-lockstat", {})
                              for v in ("stock", "patched"))),
                     key=lambda r: r["threads"])
    if not counted:
        return []
    ends = counted[:1] + counted[1:][-1:]
    out = ["", textwrap.fill(
        "Acquisitions per create+join of each global lock, with %s creators "
        "(builds of the same trees that count them; counted over the whole "
        "process and divided by its operations):"
        % " and ".join(str(r["threads"]) for r in ends),
        72, initial_indent="  ", subsequent_indent="  ")]
    for lock, name in GLOBAL_LOCK_NAMES:
        cells = [" / ".join("%.2f" % r["variants"][v + "-lockstat"]["lockstat"][lock]["acq"]
                            if lock in r["variants"][v + "-lockstat"]["lockstat"] else "-"
                            for r in ends) for v in ("stock", "patched")]
        out.append("    %-28s stock %-11s patched %s" % (name, cells[0], cells[1]))
    return out


def latency_part(rows):
    """One pthread_create's p99, p99.9 and max while N threads churn, stock
    and patched, beside a bare clone's in the same run (the clone built
    against stock): what a library can reach on this machine."""
    def lat(n, param, variant):
        row = rows.get(("create-latency", "create-latency", n, param), {})
        return row.get("variants", {}).get(variant, {}).get("create_latency")

    ms = lambda ns: "%.2f" % (ns / 1e6) if ns < 10e6 else "%.0f" % (ns / 1e6)  # noqa: E731
    out = []
    for n in LATENCY_THREADS:
        cells = [(name, lat(n, p, v)) for name, p, v in (("stock", "empty", "stock"),
                                                          ("patched", "empty", "patched"),
                                                          ("clone", "clone", "stock"))]
        if not (cells[0][1] and cells[1][1]):
            continue
        out.append("    %3d threads  %s" % (n, "  ".join(
            "%s %s / %s / %s" % (name, ms(c["p99_ns"]), ms(c["p999_ns"]), ms(c["max_ns"]))
            for name, c in cells if c)))
    if not out:
        return []
    return ["", textwrap.fill(
        "One pthread_create while N threads each create and join a thread in a "
        "loop, p99 / p99.9 / max in ms (quantiles: medians over the "
        "repetitions; max: the largest of all); clone: a bare clone and a wait "
        "in the same run, the bound of what a library can reach here: with "
        "more runnable threads than CPUs, a creator preempted in the call "
        "returns after a round of the runqueue, so the tail is the "
        "scheduler's:", 72, initial_indent="  ", subsequent_indent="  ")] + out


def private_changes(patch):
    """What the diff PATCH changes in what an ld.so and a libc.so of the
    release share: the symbols of the version scripts (Versions, all
    GLIBC_PRIVATE where a series of this kind adds any), the members of
    struct rtld_global (EXTERN lines of hunks in it), and the tunables,
    whose IDs the two pass between them."""
    out = []
    for sec in re.split(r"(?m)^(?=diff --git )", patch)[1:]:
        path = sec.split()[2][2:]
        lines = sec.split("\n")
        added = [l[1:].strip() for l in lines if l.startswith("+") and not l.startswith("+++")]
        removed = [l[1:].strip() for l in lines if l.startswith("-") and not l.startswith("---")]
        if path.endswith("/Versions"):
            sym = lambda ls: sorted(x.rstrip(";") for x in ls if re.fullmatch(r"\w+;", x))
            plus, minus = sym(added), sym(removed)
            plus, minus = [x for x in plus if x not in minus], [x for x in minus if x not in plus]
            if plus:
                out.append("%s adds %s" % (path, ", ".join(plus)))
            if minus:
                out.append("%s removes %s" % (path, ", ".join(minus)))
        elif path == "sysdeps/generic/ldsodefs.h":
            for hunk in re.split(r"(?m)^(?=@@ )", sec)[1:]:
                head = hunk.split("\n", 1)[0]
                body = [l for l in hunk.split("\n")[1:] if l[:1] in "+-" and "EXTERN" in l]
                if "struct rtld_global" in head and body:
                    out.append("changes the members of struct rtld_global")
                    break
        elif path.endswith("dl-tunables.list"):
            names = [m.group(1) for l in added for m in [re.fullmatch(r"(\w+) \{", l)] if m]
            last = "id: last" in added
            for n in names:
                out.append("adds tunable %s%s" % (
                    n, " after the release's (their IDs stay)" if last
                    else ", which can move the IDs of the release's tunables"))
    return out


def private_part(build, base, maildir, variant="patched"):
    """Per patch, what it changes between ld.so and libc.so
    (private_changes); what make check found of it (abi/layout/...,
    abi/tunable-ids, abi/mixed-loader/...: an ld.so and a libc.so, one
    patched and one not, in one process); and the patches that change none
    of it, which a stable branch can take."""
    out, clean = [], []
    for p in sorted(glob.glob(os.path.join(maildir, "[0-9][0-9][0-9][0-9]-*.patch"))):
        n = int(os.path.basename(p)[:4])
        if n == 0:
            continue
        with open(p) as f:
            changes = private_changes(f.read())
        out.append("  %d: %s" % (n, "; ".join(changes) if changes else "nothing"))
        if not changes:
            clean.append(str(n))
    sum_path = os.path.join(build, base, "check", "abi-%s.sum" % variant)
    if os.path.exists(sum_path):
        with open(sum_path) as f:
            found = [l.strip() for l in f
                     if re.match(r"\w+: abi/(layout/|tunable-ids|mixed-loader/)", l)]
        out += ["  make check (%s):" % mtime(sum_path)] + ["    " + l for l in found]
    else:
        out.append("  make check: not run in this tree")
    out.append("  Patches that change none of it: %s (each may need the ones "
               "before it to apply)." % (", ".join(clean) if clean else "none"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--label", help="what the text calls this glibc (default: BASE)")
    ap.add_argument("--manual-left-out", action="store_true",
                    help="the diffstat was made on a tree without manual/")
    ap.add_argument("--build", required=True)
    ap.add_argument("--part", choices=sorted(SUBJECTS), default="scale")
    ap.add_argument("--fixes-count", type=int,
                    help="with --part scale: the fixes thread it depends on has N patches")
    ap.add_argument("--results", default=os.path.join(os.path.dirname(HERE), "results"),
                    help="committed results, for a make check-full not run in BUILD")
    ap.add_argument("cover")
    a = ap.parse_args()
    with open(os.path.join(HERE, MOTIVATION[a.part])) as f:
        motivation = f.read().strip()
    wrap = lambda t: textwrap.fill(t, 72)
    if a.part == "scale" and a.fixes_count:
        motivation = "\n\n".join([wrap(
            "This series depends on the %d patches of \"[PATCH 0/%d] %s\", "
            "sent as a thread of its own, and applies on top of them."
            % (a.fixes_count, a.fixes_count, SUBJECTS["fixes"])), motivation])
    variant = "fixes" if a.part == "fixes" else "patched"
    checks, full = check_part(a.build, a.base, a.results, variant)
    arches = arch_part(a.build, a.base, variant)
    origin = os.path.join(a.build, a.base, "source", "ORIGIN")
    source = open(origin).read().strip() if os.path.exists(origin) else "unknown"
    tested = ([motivation, "",
               wrap("Tested on x86_64, on glibc %s (source: %s), stock and %s "
                    "built the same way and compared test by test (nptl-scale's "
                    "make check):" % (a.label or a.base, source,
                                      "with these patches" if a.part == "fixes"
                                      else "patched"))]
              + checks
              + (["", "Other targets, built and compared the same way:"] + arches
                 if arches else []))
    if a.part == "fixes":
        # Bug fixes: their tests are the evidence; no benchmark.
        measured = ["", wrap("Not run here%s." % (
            "" if full else ": glibc's whole test suite with these patches alone "
            "(make check-full VARIANTS=\"stock fixes\")"))] if not full else []
    else:
        bench, cores = bench_part(a.build, a.base)
        measured = (["", "Measured (nptl-scale's make bench), stock and patched interleaved:"]
                    + bench
                    + ["", wrap("Not measured here: %s" % (
                        "a machine with many cores (the symptom this series addresses needs "
                        "them; on %s cores the cause is shown instead, as lock hold times "
                        "with experiments/lockstat.patch); %s%s." % (
                            cores or "these",
                            "benchmarks on other architectures" if arches
                            else "other architectures",
                            "" if full else "; glibc's whole test suite (make check-full)"))),
                       "", "The figures of each patch are in its commit message."])
    blurb = "\n".join(
        tested + measured
        + ["", wrap("What the patches change in what an ld.so and a libc.so of "
                    "the release share (GLIBC_PRIVATE), which a stable branch "
                    "must keep for a process whose ld.so and libc.so come from "
                    "different builds (as during a package update):")]
        + private_part(a.build, a.base, os.path.dirname(os.path.abspath(a.cover)), variant)
        + (["", wrap("The diffstat below leaves out the manual/ hunks of the "
                     "series: it was made on a tree without manual/.")]
           if a.manual_left_out else []))
    with open(a.cover) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        sys.exit("cover_letter.py: %s is not git format-patch's cover letter" % a.cover)
    text = text.replace("*** SUBJECT HERE ***", SUBJECTS[a.part]).replace("*** BLURB HERE ***", blurb)
    with open(a.cover, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
