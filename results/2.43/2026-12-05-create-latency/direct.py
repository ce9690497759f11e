import json, subprocess, sys, threading, time, statistics
variants = sys.argv[1].split(","); reps = int(sys.argv[2]); secs = sys.argv[3]
param = sys.argv[4] if len(sys.argv) > 4 else "empty"; n = sys.argv[5] if len(sys.argv) > 5 else "500"
def procs_running():
    for l in open("/proc/stat"):
        if l.startswith("procs_running"):
            return int(l.split()[1])
for r in range(reps):
    for v in variants:
        pre = ["perf", "stat", "-x,", "-o", "/dev/null", "-e", "task-clock,context-switches,cpu-migrations,page-faults"] if v.endswith("+perf") else []
        import os
        binv, _, tun = v.replace("+perf", "").partition("@")
        env = dict(os.environ, GLIBC_TUNABLES=tun) if tun else None
        p = subprocess.Popen(pre + ["/tmp/cl/" + binv, "-t", n, "-w", "0.2", "-d", secs, "-i", "0.1", "-p", param],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        state = {"measure": False, "done": False}; samples = []
        def errs():
            for l in p.stderr:
                if "measure" in l: state["measure"] = True
                if "join" in l: state["measure"] = False; state["done"] = True
        t = threading.Thread(target=errs); t.start()
        while p.poll() is None:
            if state["measure"]: samples.append(procs_running())
            time.sleep(0.005)
        t.join(); out = p.stdout.read()
        e = json.loads(out.strip().splitlines()[-1]); c = e["create_latency"]
        print("%-28s r%d ops/s %6.0f min %4d p50 %5.1fus p99 %7.2fms p99.9 %7.1fms max %6.0fms startup %5.1fs pre/op %.3f runnable mean %5.1f p90 %4d" % (
            v, r, e["rate"], e["thread_ops_min"], c["p50_ns"]/1e3, c["p99_ns"]/1e6, c["p999_ns"]/1e6, c["max_ns"]/1e6, e["startup_s"], e.get("preemptions", 0) / e["ops"],
            statistics.mean(samples) if samples else -1, sorted(samples)[int(len(samples)*0.9)] if samples else -1), flush=True)
