#!/usr/bin/env python3
"""Cache-line transfers per operation, by field, without hardware counters.

    measure.py --build BUILD/BASE --out DIR [--set condvar|create-join]
               [--line 64] [--seconds S] VARIANT...

Each benchmark of bench/cases/ named in the set's configurations (SETS) is
built for each variant (its sysroot's cc, not position-independent, so
that its objects have fixed addresses) and run under qemu-user with the
TCG plugin lines.c (see there for the model).  The plugin is given the
benchmark's data and bss objects: every pthread_cond_t and
pthread_mutex_t field by field (from the variant's own debug information,
so each layout is seen as it is), anything else by symbol.  For the
create-join set it is given libc.so's and ld.so's data and bss too
(_rtld_global, _rtld_global_ro, main_arena and the stack shards field by
field, the rest by symbol), at the load addresses the program reports,
and struct pthread field by field for every descriptor a thread names
(bench/bench.h: bench_label_self).  The result, DIR/lines-LINE[-SET].json
and .md: transfers (and false-sharing transfers) per operation for each
field, and the total, per variant and configuration.  Emulated timings are
not performance; only the counts are reported.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "bench"))
import run  # noqa: E402  (variant layout, tunables)

# (case, threads, param): the queue at 1:1, 4:4 and 16:16, the broadcast
# fan-out, the event, and the degenerate hand-off for reference.
CONFIGS = [
    ("cond-queue", 2, "1:1:signal"),
    ("cond-queue", 8, "4:4:signal"),
    ("cond-queue", 32, "16:16:signal"),
    ("cond-fanout", 8, ""),
    ("cond-event", 8, ""),
    ("cond-handoff", 8, "4:4:signal"),
]
# create+join at 2, 8 and 40 threads, and the seed's spawn case.
CREATE_CONFIGS = [
    ("create-join", 2, ""),
    ("create-join", 8, ""),
    ("create-join", 40, ""),
    ("seed-work", 40, "spawn"),
]
SETS = {"condvar": CONFIGS, "create-join": CREATE_CONFIGS}
# The shared objects of the create-join set: (label prefix, file, module
# number of bench.h), and the objects labelled field by field.
MODULES = (("libc:", "libc.so.6", 0), ("rtld:", "ld-linux-x86-64.so.2", 1))
SPLIT = ("_rtld_global", "_rtld_global_ro", "main_arena", "_dl_stack_shards")
TYPES = {"pthread_cond_t": "struct __pthread_cond_s",
         "pthread_mutex_t": "struct __pthread_mutex_s"}


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("measure.py: %s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def qemu_include():
    """The directory holding qemu-plugin.h: QEMU_PLUGIN_INCLUDE, or the
    one fetch-qemu-plugin-header put under the build tree."""
    d = os.environ.get("QEMU_PLUGIN_INCLUDE", "")
    if d and os.path.exists(os.path.join(d, "qemu-plugin.h")):
        return d
    sys.exit("measure.py: no qemu-plugin.h (QEMU_PLUGIN_INCLUDE=%r); "
             "run 'make linetraffic', which fetches it" % d)


def build_plugin(out):
    so = os.path.join(out, "lines.so")
    sh(["gcc", "-O2", "-Wall", "-shared", "-fPIC", "-I", qemu_include(),
        "-o", so, os.path.join(HERE, "lines.c")])
    return so


def fields(exe, struct):
    """The top-level members of STRUCT in EXE's debug information (gdb's
    ptype /o), as (name, offset, size); an array is split into its
    elements.  A member that is itself an anonymous struct spans the lines
    between its "{" and the "}" that names it."""
    text = sh(["gdb", "-batch", "-nx", "-ex", "ptype /o " + struct, exe])
    members, depth = [], 0
    for line in text.splitlines():
        m = re.match(r"\s*/\*\s*(\d+)\s*\|\s*(\d+)\s*\*/\s*(.*)$", line)
        body = m.group(3) if m else line.strip()
        if m and depth == 1:
            named = re.search(r"(\w+)((?:\[\d+\])*)\s*(?:__attribute__.*)?;$", body)
            # A pointer to a function: "void (*name)(void *);".
            fptr = re.search(r"\(\*\s*(\w+)\)\s*\(.*\);$", body)
            members.append([fptr.group(1) if fptr else named.group(1) + named.group(2)
                            if named else None, int(m.group(1)), int(m.group(2))])
        elif depth == 2 and body.startswith("}") and members and members[-1][0] is None:
            named = re.search(r"}\s*(\w+)((?:\[\d+\])*)\s*;", body)
            members[-1][0] = named.group(1) + named.group(2) if named else None
        depth += body.count("{") - body.count("}")
    res = []
    for name, off, size in members:
        name = name or "anon_%d" % off
        dims = [int(d) for d in re.findall(r"\[(\d+)\]", name)]
        base = re.sub(r"\[.*", "", name)
        if len(dims) == 1 and dims[0] > 1 and size % dims[0] == 0:
            step = size // dims[0]
            res += [("%s[%d]" % (base, i), off + i * step, step) for i in range(dims[0])]
        else:
            res.append((base, off, size))
    return res


def whatis(path, names):
    """The type gdb gives each of NAMES in PATH's debug information, "" for
    a symbol it cannot type: one "whatis" per symbol, each answer after a
    marker of its own, in one gdb run."""
    if not names:
        return []
    out = sh(["gdb", "-batch", "-nx"]
             + sum((["-ex", "echo @@%d\\n" % i, "-ex", "whatis " + n]
                    for i, n in enumerate(names)), []) + [path])
    found = dict(re.findall(r"^@@(\d+)\ntype = (.*)$", out, re.M))
    return [found.get(str(i), "") for i in range(len(names))]


def data_symbols(path):
    """The data objects of PATH with a size (readelf: type OBJECT, defined;
    not TLS, whose values are offsets), (addr, size, name) sorted by
    address, names without their version; of symbols at one address
    (aliases), the first name in SPLIT, else the first that is not an
    internal alias (__GI_)."""
    syms = []
    for line in sh(["readelf", "-sW", path]).splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] == "OBJECT" and p[6] != "UND":
            size = int(p[2], 0)
            if size > 0:
                syms.append((int(p[1], 16), size, p[7].split("@")[0]))
    syms.sort(key=lambda x: (x[0], x[2] not in SPLIT, x[2].startswith("__GI_"), x[2]))
    out = []
    for a, size, name in syms:
        if not out or a >= out[-1][0] + out[-1][1]:
            out.append((a, size, name))
    return out


def symbol_label(name, addr):
    """A symbol's label: its name, or for a name with a '.' (GCC's
    function-local statics, "lock.0", of which several files have one) the
    name with '_' for '.' and its address, as the plugin and the report
    take a label's object to end at its first '.'."""
    return name if "." not in name else "%s@%x" % (name.replace(".", "_"), addr)


def module_rows(builddir, variant):
    """The plugin's module-relative rows ("R MODULE OFF SIZE LABEL") for
    libc.so and ld.so of VARIANT's sysroot, and its template of struct
    pthread ("T 0 OFF SIZE pthread.FIELD")."""
    root = run.variant_dir(builddir, variant, "root")
    rows = []
    libc = None
    for prefix, name, module in MODULES:
        paths = [os.path.join(root, d, name) for d in ("lib64", "lib")
                 if os.path.exists(os.path.join(root, d, name))]
        if not paths:
            sys.exit("measure.py: no %s in %s" % (name, root))
        path = os.path.realpath(paths[0])
        libc = libc or path
        syms = data_symbols(path)
        split = [s for s in syms if s[2] in SPLIT]
        types = {s[2]: t for s, t in zip(split, whatis(path, [s[2] for s in split]))
                 if t.startswith("struct ")}
        for a, size, sym in syms:
            parts = fields(path, types[sym]) if sym in types else []
            for f, off, fsize in parts or [(None, 0, size)]:
                rows.append("R %d %x %d %s%s%s" % (module, a + off, fsize, prefix,
                                                  symbol_label(sym, a),
                                                  "." + f if f else ""))
    for f, off, size in fields(libc, "struct pthread"):
        rows.append("T 0 %x %d pthread.%s" % (off, size, f))
    return rows


def label_map(exe, path, extra=()):
    """Write the plugin's map for EXE: its data and bss objects, cond and
    mutex fields one by one, then the rows EXTRA."""
    syms = []
    for line in sh(["nm", "-S", "--defined-only", exe]).splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "bBdD" and int(p[1], 16) > 0 and "@" not in p[3]:
            syms.append((int(p[0], 16), int(p[1], 16), p[3]))
    syms.sort()
    types = whatis(exe, [s[2] for s in syms])
    layout = {t: fields(exe, s) for t, s in TYPES.items() if t in types}
    rows = []
    for (addr, size, name), typ in zip(syms, types):
        # Arrays of condvars (cond-signal-empty's union) are left whole.
        if typ in layout:
            for f, off, fsize in layout[typ]:
                rows.append((addr + off, fsize, "%s.%s" % (name, f)))
        else:
            rows.append((addr, size, name))
    rows.sort()
    with open(path, "w") as f:
        for a, s, n in rows:
            f.write("%x %d %s\n" % (a, s, n))
        for r in extra:
            f.write(r + "\n")
    return sorted(name for (addr, size, name), typ in zip(syms, types)
                  if typ == "pthread_cond_t")


def measure(variant, builddir, out, plugin, line, seconds, reps, configs=CONFIGS,
            libs=False):
    """Run CONFIGS for VARIANT; with LIBS, libc.so, ld.so and the
    descriptors labelled too (module_rows)."""
    cc = run.variant_dir(builddir, variant, "cc")
    if not os.access(cc, os.X_OK):
        sys.exit("measure.py: no sysroot for %s (%s); run 'make sysroot VARIANTS=%s'"
                 % (variant, cc, run.sysroot(variant)))
    d = os.path.join(out, run.sysroot(variant))
    os.makedirs(d, exist_ok=True)
    results = []
    extra = module_rows(builddir, variant) if libs else ()
    for case, n, param in configs:
        exe = os.path.join(d, case)
        sh([cc, "-O2", "-g", "-no-pie", "-pthread", "-o", exe,
            os.path.join(TOP, "bench", "driver.c"),
            os.path.join(TOP, "bench", "cases", case + ".c")])
        conds = label_map(exe, exe + ".map", extra)
        tag = "%s-%d-%s-%s" % (case, n, param.replace(":", "_") or "x",
                               variant.replace("@", "_").replace("=", "_"))
        env = dict(os.environ)
        t = run.tunables(variant)
        guest_env = (["GLIBC_TUNABLES=" + t] if t else []) + (
            ["NPTL_SCALE_LINES=1"] if extra else [])
        if guest_env:
            env["QEMU_SET_ENV"] = ",".join(guest_env)
        runs = []
        for rep in range(reps):
            res = os.path.join(d, "%s-%d-%d.lines" % (tag, line, rep))
            cmd = ["qemu-x86_64", "-plugin", "%s,map=%s,out=%s,line=%d,yield=1"
                   % (plugin, exe + ".map", res, line),
                   exe, "-t", str(n), "-w", "0", "-d", str(seconds), "-i",
                   str(seconds / 5)] + (["-p", param] if param else [])
            r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                               timeout=600)
            if r.returncode != 0:
                sys.exit("measure.py: %s: %s" % (" ".join(cmd), r.stderr))
            ops = json.loads(r.stdout.strip().splitlines()[-1])["ops_total"]
            per = {}
            for l in open(res):
                p = l.split()
                if p[0] == "UNCOUNTED":
                    sys.exit("measure.py: %s: %s" % (res, l.strip()))
                if p[0] == "LINE":
                    continue
                per[p[0]] = {"accesses": int(p[1]), "transfers": int(p[3]),
                             "false": int(p[4]), "false_inside": int(p[5])}
            runs.append({"variant": variant, "case": case, "threads": n,
                         "param": param, "ops": ops, "line": line, "rep": rep,
                         "conds": conds, "fields": per})
        # The repetition whose total transfers per operation is the median.
        runs.sort(key=lambda x: x["fields"]["TOTAL"]["transfers"] / max(x["ops"], 1))
        med = runs[len(runs) // 2]
        med["reps_total_per_op"] = [round(x["fields"]["TOTAL"]["transfers"]
                                          / max(x["ops"], 1), 3) for x in runs]
        results.append(med)
        print("%-24s %-22s t=%-3d line %3d  transfers/op %s  (false %.2f)"
              % (variant, case + " " + param, n, line,
                 " ".join("%.2f" % x for x in med["reps_total_per_op"]),
                 med["fields"]["TOTAL"]["false"] / max(med["ops"], 1)), flush=True)
    return results


def cond_sums(r):
    """Transfers, false ones, and false ones inside one condvar, summed
    over the fields of the case's pthread_cond_t objects, per operation."""
    t = f = fi = 0
    for k, v in r["fields"].items():
        if k.split(".")[0] in r["conds"] and "." in k:
            t, f, fi = t + v["transfers"], f + v["false"], fi + v["false_inside"]
    ops = max(r["ops"], 1)
    return t / ops, f / ops, fi / ops


def object_sums(r):
    """Transfers and false ones per operation by object (a label's name up
    to its first '.': "rtld:_rtld_global", "pthread"), largest first."""
    sums = {}
    for k, v in r["fields"].items():
        if k == "TOTAL":
            continue
        o = sums.setdefault(k.split(".")[0], [0, 0])
        o[0] += v["transfers"]
        o[1] += v["false"]
    ops = max(r["ops"], 1)
    return sorted(((k, t / ops, f / ops) for k, (t, f) in sums.items()),
                  key=lambda x: -x[1])


def report(results, variants, path, line, configs=CONFIGS, libs=False):
    out = ["# Cache-line transfers per operation, %d-byte lines (qemu-user TCG plugin)" % line, "",
           "Counted by `bench/linetraffic/lines.c` (see its header): a read of a line that "
           "another thread holds modified, or a write to a line that other threads hold, "
           "is one transfer.  *false*: the bytes accessed do not overlap those the other "
           "thread last accessed on that line; *inside*: false, and that other access was "
           "to another field of the same object.  Threads are made to interleave at every "
           "access to the benchmark's shared data (the plugin yields the host CPU after "
           "each), as on a machine with a core per thread; counts are per operation of the "
           "case (an item, a wake-up, a round), from the repetition with the median total "
           "of %d.  Emulated: no timings." % len(results[0].get("reps_total_per_op", [0])), "",
           ] + ([
           "## Summary: all shared data / the pthread_cond_t objects only", "",
           "transfers per operation, *false* in brackets; for the condvars, *inside* "
           "after the slash.", ""] if not libs else [
           "## Summary: all labelled data, and the objects that move most", "",
           "Transfers per operation (one create+join, or one seed work unit with "
           "its create+join), *false* in brackets: the total over everything "
           "labelled (the program's data, libc.so's and ld.so's data and bss, "
           "the descriptors the threads named), then by object, those with at "
           "least 0.05.  Not labelled: thread stacks below the descriptor, "
           "malloc's heaps and the arenas of threads other than the main arena.", ""])
    hdr = ["case"] + variants
    out += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for case, n, param in configs:
        cells = ["%s %s t=%d" % (case, param, n)]
        for v in variants:
            r = [x for x in results if (x["variant"], x["case"], x["threads"], x["param"])
                 == (v, case, n, param)]
            if not r:
                cells.append("-")
                continue
            r = r[0]
            ops = max(r["ops"], 1)
            tot = r["fields"]["TOTAL"]
            if not libs:
                ct, cf, ci = cond_sums(r)
                cells.append("all %.1f (%.1f); cond %.1f (%.1f / %.1f)"
                             % (tot["transfers"] / ops, tot["false"] / ops, ct, cf, ci))
            else:
                cells.append("all %.2f (%.2f); %s" % (
                    tot["transfers"] / ops, tot["false"] / ops,
                    ", ".join("%s %.2f (%.2f)" % o for o in object_sums(r)
                              if o[1] >= 0.05) or "-"))
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for case, n, param in configs:
        rows = [r for r in results if (r["case"], r["threads"], r["param"]) == (case, n, param)]
        if not rows:
            continue
        out += ["## %s %s, %d threads: by field" % (case, param, n), "",
                "transfers/op (false, inside) for each field with at least 0.05.", ""]
        hdr = ["field"] + [r["variant"] for r in rows]
        out += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
        per = lambda r, k: r["fields"].get(k, {"transfers": 0})["transfers"] / max(r["ops"], 1)
        names = sorted({k for r in rows for k in r["fields"]
                        if k != "TOTAL" and per(r, k) >= 0.05},
                       key=lambda k: (k.split(".")[0], -max(per(r, k) for r in rows)))
        for k in names + ["TOTAL"]:
            cells = [k]
            for r in rows:
                v = r["fields"].get(k)
                o = max(r["ops"], 1)
                cells.append("%.2f (%.2f, %.2f)" % (v["transfers"] / o, v["false"] / o,
                                                   v["false_inside"] / o) if v else "-")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", default="condvar", choices=sorted(SETS))
    ap.add_argument("--line", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    plugin = build_plugin(a.out)
    configs = SETS[a.set]
    results = []
    for v in a.variants:
        results += measure(v, a.build, a.out, plugin, a.line, a.seconds, a.reps,
                           configs, a.set != "condvar")
    name = "lines-%d%s" % (a.line, "" if a.set == "condvar" else "-" + a.set)
    with open(os.path.join(a.out, name + ".json"), "w") as f:
        json.dump(results, f, indent=1)
    report(results, a.variants, os.path.join(a.out, name + ".md"), a.line, configs,
           a.set != "condvar")
    print("report: %s" % os.path.join(a.out, name + ".md"))


if __name__ == "__main__":
    main()
