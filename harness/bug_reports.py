#!/usr/bin/env python3
"""Bug reports for sourceware Bugzilla, one per stock bug that the fixes
series fixes.

    bug_reports.py --bugs FILE --series-dir DIR --mails DIR --label TEXT
                   [--check DIR] [--variant NAME] [--run NAME=CC ...]
                   [--arch ARCH] [--bz name=NNNNN,...] OUT
    bug_reports.py --bugs FILE --series-dir DIR --results [--patch P]
                   [--run NAME=CC ...] [--unfixed NAME=CC ...]

FILE (patches/glibc-<base>/bugs) has a stanza per bug: Name, Patch (the
fix's file in DIR), Component, Summary, Test (the glibc test the fix
adds, e.g. nptl/tst-x), and optionally Modules (shared objects the test
loads, built from files of the same patch), Env (the test's environment),
Arch (the only target where the bug shows), Observed and Expected
(continued on lines that start with a space).

Each report (OUT/<Name>.txt) gives the product, component and version,
the summary, what happens and what should, the fix's subject as the
fixes series numbers it (--mails: the mails that make mail wrote), the
result of the test in the last make check (--check: that check's
directory; --variant: the variant with the fix, `fixes` or `patched`),
and a stand-alone reproducer: the test's own source from the patch, with
glibc's support/ headers replaced by harness/reproducer-support.h and its
driver by harness/reproducer-driver.c, so that it builds with any C
compiler against an installed glibc.  Each --run NAME=CC builds the
reproducer with the compiler wrapper CC (a sysroot's bin/cc) and runs it;
the report quotes what each printed.  A reproducer that does not FAIL
with --run stock, or does not PASS with another --run (a build error
and UNSUPPORTED are neither), is an error: the report would claim what
was not seen.  --bz name=NNNNN puts the bug's
number into the report's title line once the submitter has filed it.

--results writes no report: it prints a line per bug and run (bug, run,
pass/fail/other, what the reproducer said) and fails as above; --unfixed
NAME=CC is a run that must FAIL as stock's does (a tree without the fix,
such as stock and the fixes before it), and --patch P keeps only the bugs
that P fixes (make check-fixes).
"""

import argparse
import concurrent.futures
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ("Name", "Patch", "Component", "Summary", "Test", "Modules", "Env",
          "Arch", "Observed", "Expected")
REQUIRED = ("Name", "Patch", "Component", "Summary", "Test", "Observed", "Expected")
SUPPORT_INCLUDE = re.compile(r'^#\s*include <support/([\w.-]+)>\s*$')


def read_bugs(path):
    """The stanzas of PATH as dicts; an error names the line."""
    bugs, cur, key = [], {}, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur:
                    bugs.append(cur)
                cur, key = {}, None
            elif line[0] in " \t":
                if key is None:
                    raise ValueError("%s:%d: continuation line outside a field" % (path, n))
                cur[key] += "\n" + line.strip()
            else:
                key, sep, value = line.partition(":")
                if not sep or key not in FIELDS:
                    raise ValueError("%s:%d: not a field of a bug (%s): %s"
                                     % (path, n, ", ".join(FIELDS), line[:60]))
                if key in cur:
                    raise ValueError("%s:%d: a second %s in one bug" % (path, n, key))
                cur[key] = value.strip()
    if cur:
        bugs.append(cur)
    names = [b.get("Name") for b in bugs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError("%s: two bugs named %s" % (path, twice[0]))
    for b in bugs:
        missing = [k for k in REQUIRED if not b.get(k)]
        if missing:
            raise ValueError("%s: bug %s lacks %s" % (path, b.get("Name", "?"), ", ".join(missing)))
    return bugs


def new_files(patch_text):
    """The files that the diff PATCH_TEXT creates, path -> content."""
    files = {}
    for sec in re.split(r"(?m)^(?=diff --git )", patch_text)[1:]:
        if "\nnew file mode " not in sec.split("@@", 1)[0]:
            continue
        path = sec.split()[3][2:]
        if "\n@@" not in sec:
            files[path] = ""  # empty or binary
            continue
        body = sec.split("\n@@", 1)[1].split("\n", 1)[1]
        lines = [l[1:] for l in body.split("\n") if l.startswith("+")]
        files[path] = "\n".join(lines) + "\n"
    return files


def gnu_source(text):
    """TEXT with _GNU_SOURCE defined before its first #include, as glibc
    builds its tests."""
    m = re.search(r"(?m)^#\s*include ", text)
    return text if m is None or "#define _GNU_SOURCE" in text else text[:m.start()] + "#define _GNU_SOURCE 1\n" + text[m.start():]


def standalone(source, support_h, driver_c):
    """SOURCE (a glibc test) with its support/ includes replaced: the
    first by SUPPORT_H, test-driver.c by DRIVER_C, the others dropped."""
    out, inlined = [], False
    for line in source.split("\n"):
        m = SUPPORT_INCLUDE.match(line)
        if not m:
            out.append(line)
        elif m.group(1) == "test-driver.c":
            out.append(driver_c.rstrip("\n"))
        elif not inlined:
            out.append(support_h.rstrip("\n"))
            inlined = True
    return gnu_source("\n".join(out))


def commands(bug):
    """The shell commands that build and run BUG's reproducer, with $CC."""
    test = os.path.basename(bug["Test"])
    mods = bug.get("Modules", "").split()
    build = ["$CC -O2 -fPIC -shared -o %s.so %s.c" % (m, m) for m in mods]
    build.append("$CC -O2 -pthread -o %s %s.c%s" % (test, test, " -ldl" if mods else ""))
    env = bug.get("Env", "")
    run = "%s%s./%s" % ("LD_LIBRARY_PATH=. " if mods else "", env + " " if env else "", test)
    return build, run


def run_reproducer(files, bug, cc, timeout):
    """Build and run the reproducer with CC in a directory of its own:
    ("pass" or "fail" as its driver said, or "other" when it did not
    build, was UNSUPPORTED or ended otherwise; what it said)."""
    build, run = commands(bug)
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        env = dict(os.environ, CC=cc)
        for cmd in build:
            r = subprocess.run(["sh", "-c", cmd], cwd=d, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                said = [l for l in r.stdout.split("\n") if "error" in l] or \
                    [l for l in r.stdout.split("\n") if l.strip()] or ["(no output)"]
                return "other", "did not build (exit %d): %s" % (r.returncode, said[0][:200])
        try:
            r = subprocess.run(["sh", "-c", "exec env " + run], cwd=d, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "other", "did not finish in %d s" % timeout
        said = [l for l in r.stdout.split("\n") if l.strip()]
        last = said[-1] if said else "(nothing)"
        first_error = next((l for l in said if l.startswith(("error:", "FAIL:"))), None)
        outcome = "exit %d, %s" % (r.returncode, last)
        if first_error and first_error != last:
            outcome += " (%s)" % first_error[:160]
        # The driver's last line: PASS, FAIL, or its "FAIL: timed out".
        kind = ("pass" if (r.returncode, last) == (0, "PASS")
                else "fail" if r.returncode == 1 and (last == "FAIL" or last.startswith("FAIL:"))
                else "other")
        return kind, outcome


def test_result(check_dir, variant, test):
    """The result of TEST in make check's glibc-VARIANT.sum, with its date."""
    if not check_dir:
        return None
    path = os.path.join(check_dir, "glibc-%s.sum" % variant)
    if not os.path.exists(path):
        return None
    sys.path.insert(0, HERE)
    from compare import sum_lines
    status = next((s for s, name, _, _ in sum_lines(path) if name == test), "MISSING")
    day = datetime.datetime.fromtimestamp(os.path.getmtime(path),
                                          datetime.timezone.utc).strftime("%Y-%m-%d")
    return status, day


def fix_subject(mails, patch):
    """The Subject: of the mail that carries PATCH (the same name after its
    number), unfolded, e.g. '[PATCH 1/4] nptl: Fix ...'."""
    suffix = patch[4:]
    for name in sorted(os.listdir(mails)):
        if name.endswith(suffix):
            with open(os.path.join(mails, name)) as f:
                m = re.search(r"(?m)^Subject: (.*(?:\n .*)*)", f.read())
            if m:
                return " ".join(m.group(1).split())
    return None


def report(bug, a, files, runs):
    test = os.path.basename(bug["Test"])
    build, run = commands(bug)
    subject = fix_subject(a.mails, bug["Patch"]) if a.mails else None
    result = test_result(a.check, a.variant, bug["Test"])
    bz = dict(x.split("=", 1) for x in a.bz.split(",") if "=" in x) if a.bz else {}
    wrap = lambda t: "\n".join("  " + l if l else "" for l in t.split("\n"))
    lines = ["Product:    glibc",
             "Component:  %s" % bug["Component"],
             "Version:    %s" % a.version,
             "Summary:    %s" % bug["Summary"]]
    if bug["Name"] in bz:
        lines.append("Bug:        BZ #%s (the fix's commit message carries it)" % bz[bug["Name"]])
    lines += ["Target:     %s" % (bug["Arch"] + "-linux-gnu only" if bug.get("Arch") else "any"),
              "", "Description:", wrap(bug["Observed"]), "",
              "Expected:", wrap(bug["Expected"]), "",
              "Reproduced:"]
    for name, (kind, said) in runs:
        lines.append("  glibc %s on %s-linux-gnu, %s: %s" % (
            a.label, a.arch, "stock" if name == "stock" else "with the fix (%s)" % name, said))
    if not runs:
        lines.append("  the stand-alone reproducer was not run here (%s)" % (
            "the bug shows on %s only; this is %s" % (bug["Arch"], a.arch)
            if bug.get("Arch") and bug["Arch"] != a.arch else "no sysroot built"))
    if result:
        lines.append("  glibc's test %s in the fixed tree (make check, %s): %s"
                     % (bug["Test"], result[1], result[0]))
    lines.append("  machine: %s, Linux %s, %d CPUs" % (a.arch, platform.release(), os.cpu_count()))
    lines += ["", "Fix:", "  %s" % (subject or bug["Patch"]),
              "  (the series \"fixes\", which adds %s as glibc's test)" % bug["Test"], "",
              "Reproducer (stand-alone: glibc's test with a copy of the parts of",
              "glibc's support/ it uses; prints PASS or FAIL, exit status 0 or 1):", ""]
    lines += ["  CC=gcc"] + ["  " + c for c in build] + ["  " + run, ""]
    for name in sorted(files, key=lambda n: (n != test + ".c", n)):
        lines += ["--- %s ---" % name, files[name].rstrip("\n"), ""]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bugs", required=True)
    ap.add_argument("--series-dir")
    ap.add_argument("--mails", help="the fixes series' mails (for the subjects)")
    ap.add_argument("--label", help="the glibc, e.g. '2.43 (upstream)'")
    ap.add_argument("--version", help="Bugzilla's version field (default: LABEL's first word)")
    ap.add_argument("--check", help="make check's directory (BUILD/<base>/check)")
    ap.add_argument("--variant", default="fixes", help="the variant with the fixes in that check")
    ap.add_argument("--run", action="append", default=[], metavar="NAME=CC")
    ap.add_argument("--unfixed", action="append", default=[], metavar="NAME=CC",
                    help="a run without the fix: its reproducer must FAIL")
    ap.add_argument("--patch", help="only the bugs that this patch (file name) fixes")
    ap.add_argument("--results", action="store_true",
                    help="print each run's result instead of writing reports")
    ap.add_argument("--arch", default=platform.machine())
    ap.add_argument("--bz", help="name=NNNNN,...: the Bugzilla numbers filed")
    ap.add_argument("--bz-lines", action="store_true",
                    help="only print, for --bz, each fix's patch and its bug's number")
    # The drivers scale their own limits by TIMEOUTFACTOR, as glibc's do.
    ap.add_argument("--timeout", type=int,
                    default=150 * max(1, int(os.environ.get("TIMEOUTFACTOR", "1") or 1)))
    ap.add_argument("out", nargs="?")
    a = ap.parse_args()
    try:
        bugs = read_bugs(a.bugs)
    except (OSError, ValueError) as e:
        sys.exit("bug_reports.py: %s" % e)
    with open(os.path.join(HERE, "reproducer-support.h")) as f:
        support_h = f.read()
    with open(os.path.join(HERE, "reproducer-driver.c")) as f:
        driver_c = f.read()
    if a.bz:
        bad = [x for x in a.bz.split(",") if not re.fullmatch(r"[\w-]+=[0-9]+", x)]
        if bad:
            sys.exit("bug_reports.py: BZ=%s: not name=NUMBER: %s" % (a.bz, bad[0]))
        unknown = [x.split("=")[0] for x in a.bz.split(",")
                   if x.split("=")[0] not in {b["Name"] for b in bugs}]
        if unknown:
            sys.exit("bug_reports.py: BZ= names no bug of %s: %s" % (a.bugs, ", ".join(unknown)))
    if a.bz_lines:
        bz = dict(x.split("=", 1) for x in (a.bz or "").split(",") if "=" in x)
        for b in bugs:
            if b["Name"] in bz:
                print("%s\t%s" % (b["Patch"], bz[b["Name"]]))
        return
    if a.patch:
        bugs = [b for b in bugs if b["Patch"] == a.patch]
    if a.unfixed and not a.results:
        ap.error("--unfixed goes with --results (a report names stock as the unfixed run)")
    if a.results:
        if not a.series_dir:
            ap.error("--series-dir is needed for --results")
    elif not (a.out and a.series_dir and a.label):
        ap.error("OUT, --series-dir and --label are needed for the reports")
    else:
        a.version = a.version or a.label.split()[0]
        os.makedirs(a.out, exist_ok=True)
    # (name, compiler, the result it must have)
    specs = [(n, cc, "fail" if n == "stock" else "pass")
             for n, _, cc in (s.partition("=") for s in a.run)]
    specs += [(n, cc, "fail") for n, _, cc in (s.partition("=") for s in a.unfixed)]
    prepared = []
    for bug in bugs:
        try:
            with open(os.path.join(a.series_dir, bug["Patch"])) as f:
                created = new_files(f.read())
        except OSError as e:
            sys.exit("bug_reports.py: bug %s: %s" % (bug["Name"], e))
        test = os.path.basename(bug["Test"])
        d = os.path.dirname(bug["Test"])
        want = [test + ".c"] + [m + ".c" for m in bug.get("Modules", "").split()]
        files = {}
        for name in want:
            path = "%s/%s" % (d, name)
            if path not in created:
                sys.exit("bug_reports.py: bug %s: %s does not create %s"
                         % (bug["Name"], bug["Patch"], path))
            files[name] = created[path]
        # Local headers that the files include, from the same patch.
        for text in list(files.values()):
            for h in re.findall(r'(?m)^#include "([\w.-]+)"', text):
                if "%s/%s" % (d, h) in created:
                    files[h] = created["%s/%s" % (d, h)]
        files = {n: gnu_source(t) if n.endswith(".c") else t for n, t in files.items()}
        files[test + ".c"] = standalone(files[test + ".c"], support_h, driver_c)
        prepared.append((bug, files))
    # The runs at once: a reproducer of a deadlock waits for its timeout
    # and uses no CPU meanwhile.
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {(bug["Name"], name): pool.submit(run_reproducer, files, bug, cc, a.timeout)
                   for bug, files in prepared
                   if not bug.get("Arch") or bug["Arch"] == a.arch
                   for name, cc, _ in specs}
    errors = []
    for bug, files in prepared:
        runs = []
        for name, _, want in specs:
            f = futures.get((bug["Name"], name))
            if f is None:
                continue
            kind, said = f.result()
            runs.append((name, (kind, said)))
            if a.results:
                print("%s\t%s\t%s\t%s" % (bug["Name"], name, kind, said))
            if kind != want:
                errors.append("%s: the reproducer %s with %s: %s" % (
                    bug["Name"], {"pass": "passed", "fail": "failed"}.get(kind, "could not run"),
                    name, said))
        if not a.results:
            with open(os.path.join(a.out, bug["Name"] + ".txt"), "w") as f:
                f.write(report(bug, a, files, runs))
    if errors:
        sys.exit("bug_reports.py: " + "; ".join(errors))


if __name__ == "__main__":
    main()
