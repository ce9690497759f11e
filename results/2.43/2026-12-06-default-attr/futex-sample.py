import collections, os, subprocess, sys, time
# Run the create-latency driver (500 threads, 5 s) and sample, every 0.25 s in the
# measured period, each task's system call (/proc/PID/task/*/syscall): futex
# waits tallied by address, named where it is libc's __default_pthread_attr_lock
# or inside ld.so's _rtld_global.
binv, runs = sys.argv[1], int(sys.argv[2])
LIBC_LOCK, RTLD_GLOBAL = 0x1d59c0, 0x37000
for r in range(runs):
    p = subprocess.Popen(["/tmp/cl/" + binv, "-t", "500", "-w", "0.2", "-d", "5", "-i", "0.1", "-p", "empty"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(8)
    tally = collections.Counter(); samples = 0; nrun = []
    base = {}
    for l in open("/proc/%d/maps" % p.pid):
        f = l.split()
        if len(f) >= 6 and f[2] == "00000000" and ("libc.so.6" in f[5] or "ld-linux" in f[5]):
            base["libc" if "libc.so" in f[5] else "ld"] = int(f[0].split("-")[0], 16)
    t_end = time.time() + 3
    while time.time() < t_end and p.poll() is None:
        samples += 1; running = 0
        for t in os.listdir("/proc/%d/task" % p.pid):
            try:
                s = open("/proc/%d/task/%s/syscall" % (p.pid, t)).read().split()
            except OSError:
                continue
            if s[0] == "running":
                running += 1
            elif s[0] == "202":
                a = int(s[1], 16)
                if a == base.get("libc", -1) + LIBC_LOCK:
                    tally["__default_pthread_attr_lock"] += 1
                elif 0 <= a - base.get("ld", -1) - RTLD_GLOBAL < 4096:
                    tally["_rtld_global+%#x" % (a - base["ld"] - RTLD_GLOBAL)] += 1
                else:
                    tally["other futex"] += 1
            else:
                tally["syscall " + s[0]] += 1
        nrun.append(running)
        time.sleep(0.25)
    out = p.communicate()[0]
    import json
    e = json.loads(out.strip().splitlines()[-1])
    print("%s run %d: rate %.0f/s, %d samples, running per sample %.1f; per sample: %s" % (
        binv, r, e["rate"], samples, sum(nrun) / max(1, len(nrun)),
        ", ".join("%s %.1f" % (k, v / samples) for k, v in tally.most_common(6))), flush=True)
