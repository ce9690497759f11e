#!/usr/bin/env python3
"""Per-run maximum (and p99, p99.9) of one pthread_create while N threads
churn, stock against patched, with a bare-clone churn under each library
as the control: REPS repetitions, the four runs of a repetition in
rotated order.  Writes one JSON line per run to OUT (appending, so that
an interrupted run resumes at its next repetition); --report prints the
medians and the paired ratios with bench/run.py's bootstrap interval.
ORDER: rotated (each repetition starts with the next configuration, so
each always follows the same one), or shuffled (a random order per
repetition, seeded by it, and PAUSE seconds of rest before every run).

    max.py BINDIR OUT REPS THREADS SECONDS [ORDER [PAUSE]]
    max.py --report OUT
"""
import json
import os
import random
import statistics
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(TOP, "bench"))
import run  # noqa: E402  (bench/run.py: bootstrap, paired_ratio)

VARIANTS = [("stock", "empty"), ("patched", "empty"), ("stock", "clone"), ("patched", "clone")]


def measure(bindir, out, reps, threads, seconds, order="rotated", pause=0.0):
    done = set()
    if os.path.exists(out):
        with open(out) as f:
            done = {(r["rep"], r["variant"]) for r in map(json.loads, f)}
    for rep in range(reps):
        k = rep % len(VARIANTS)
        configs = (random.Random(rep).sample(VARIANTS, len(VARIANTS)) if order == "shuffled"
                   else VARIANTS[k:] + VARIANTS[:k])
        for lib, param in configs:
            name = "%s/%s" % (lib, param)
            if (rep, name) in done:
                continue
            time.sleep(pause)
            p = subprocess.run([os.path.join(bindir, lib, "create-latency"), "-t", str(threads),
                                "-w", "0.2", "-d", str(seconds), "-i", "0.1", "-p", param],
                               capture_output=True, text=True, check=True)
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r.update(rep=rep, variant=name)
            with open(out, "a") as f:
                f.write(json.dumps(r) + "\n")
            c = r["create_latency"]
            print("r%-2d %-14s rate %7.0f p99 %7.2f ms p99.9 %7.1f ms max %6.0f ms runnable %5.1f"
                  % (rep, name, r["rate"], c["p99_ns"] / 1e6, c["p999_ns"] / 1e6,
                     c["max_ns"] / 1e6, r["runnable_mean"]), flush=True)


def report(out):
    with open(out) as f:
        runs = [json.loads(l) for l in f]
    keys = {"max ms": lambda r: r["create_latency"]["max_ns"] / 1e6,
            "p99.9 ms": lambda r: r["create_latency"]["p999_ns"] / 1e6,
            "p99 ms": lambda r: r["create_latency"]["p99_ns"] / 1e6,
            "rate /s": lambda r: r["rate"],
            "runnable": lambda r: r["runnable_mean"]}
    names = ["%s/%s" % v for v in VARIANTS]
    print("| variant | runs | " + " | ".join("%s median [min-max]" % k for k in keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for v in names:
        rs = [r for r in runs if r["variant"] == v]
        cells = []
        for get in keys.values():
            xs = [get(r) for r in rs]
            cells.append("%.1f [%.1f-%.1f]" % (statistics.median(xs), min(xs), max(xs)))
        print("| %s | %d | %s |" % (v, len(rs), " | ".join(cells)))
    print()
    print("| ratio (paired by repetition) | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for base, v in (("stock/empty", "patched/empty"), ("stock/clone", "patched/clone"),
                    ("stock/empty", "stock/clone"), ("patched/empty", "patched/clone")):
        cells = []
        for get in keys.values():
            pr = run.paired_ratio(runs, base, v, key=get)
            lo, hi = pr["ratio_ci"] or (float("nan"), float("nan"))
            cells.append("%.3f [%.3f, %.3f]" % (pr["ratio"], lo, hi))
        print("| %s / %s (n=%d) | %s |" % (v, base, pr["ratio_n"], " | ".join(cells)))


if __name__ == "__main__":
    if sys.argv[1] == "--report":
        report(sys.argv[2])
    else:
        measure(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
                *sys.argv[6:7], *map(float, sys.argv[7:8]))
