import json, subprocess, sys, statistics, random
variants = sys.argv[1].split(","); reps = int(sys.argv[2]); secs = sys.argv[3]
counts = [int(x) for x in sys.argv[4].split(",")]; params = sys.argv[5].split(",") if len(sys.argv) > 5 else [""]
res = {}
for r in range(reps):
    for n in counts:
        for prm in params:
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                cmd = ["/work/runs/det/" + v, "-t", str(n), "-w", "0.2", "-d", secs] + (["-p", prm] if prm else [])
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0 or not p.stdout.strip():
                    print("FAILED", v, n, prm, "rc", p.returncode, p.stderr[-300:], file=sys.stderr, flush=True)
                    continue
                e = json.loads(p.stdout.strip().splitlines()[-1])
                res.setdefault((n, prm, v), []).append(e["rate"])
    print("rep", r, "done", file=sys.stderr, flush=True)
def boot(xs):
    rng = random.Random(13); m = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(2000))
    return m[round(0.025*1999)], m[round(0.975*1999)]
for n in counts:
    for prm in params:
        base = res[(n, prm, variants[0])]
        line = "%4d %-10s %s %8.0f" % (n, prm or "-", variants[0], statistics.median(base))
        for v in variants[1:]:
            rs = [a / b for a, b in zip(res[(n, prm, v)], base)]
            if len(rs) < 2: line += " | %s n=%d" % (v, len(rs)); continue
            lo, hi = boot(rs)
            line += " | %s %8.0f %.3f [%.3f, %.3f]" % (v, statistics.median(res[(n, prm, v)]), statistics.median(rs), lo, hi)
        print(line, flush=True)
json.dump({"%d|%s|%s" % k: v for k, v in res.items()}, open(sys.argv[6] if len(sys.argv) > 6 else "/dev/null", "w"))
