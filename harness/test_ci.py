#!/usr/bin/env python3
"""Self-test of the CI examples (ci/*.yml), read as data, never run: the
stock build's cache is not keyed on patches/, the patched one is, the
results are uploaded, and an arm64 job runs the same gate next to the
x86_64 one, with the directories of its ARCH (harness/lib.sh's base_key)."""
import subprocess
import os
import unittest

try:
    import yaml
except ImportError:
    yaml = None

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = ["build/{dir}/check/*.sum", "build/{dir}/check/compare-*.txt",
           "build/{dir}/check/compare-*.json", "build/bench/"]


def base_key(arch):
    """lib.sh's base_key for BASE=2.43 on ARCH."""
    return subprocess.run(
        ["bash", "-c", ". harness/lib.sh && base_key"], cwd=TOP, check=True,
        capture_output=True, text=True,
        env=dict(os.environ, BASE="2.43", ARCH=arch, STOCK="", GLIBC_SRC="")).stdout.strip()


def load(name):
    with open(os.path.join(TOP, "ci", name)) as f:
        return yaml.safe_load(f)


@unittest.skipUnless(yaml, "needs python3-yaml")
class CiTest(unittest.TestCase):
    def test_github(self):
        wf = load("github-actions.yml")
        job = wf["jobs"]["gate"]
        self.assertEqual(list(wf["jobs"]), ["gate"])
        self.assertEqual(job["runs-on"], "${{ matrix.runner }}")
        dirs = {m["runner"]: m["dir"] for m in job["strategy"]["matrix"]["include"]}
        self.assertEqual(dirs, {"ubuntu-latest": base_key("x86_64"),
                                "ubuntu-24.04-arm": base_key("aarch64")})
        steps = job["steps"]
        restore = {s["id"]: s["with"] for s in steps if s.get("id") in ("stock", "patched")}
        self.assertNotIn("patches", restore["stock"]["key"])
        self.assertIn("build/${{ env.BASE }}/source", restore["stock"]["path"])
        self.assertIn("build/${{ matrix.dir }}/stock", restore["stock"]["path"])
        self.assertIn("patches/glibc-{0}/**", restore["patched"]["key"])
        self.assertIn("build/${{ matrix.dir }}/patched", restore["patched"]["path"])
        for r in restore.values():
            self.assertIn("${{ matrix.dir }}", r["key"])
        saves = [s for s in steps if s.get("uses", "").startswith("actions/cache/save")]
        self.assertEqual(len(saves), 2)
        upload = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")][0]
        self.assertEqual(upload["if"], "always()")
        self.assertIn("${{ matrix.dir }}", upload["with"]["name"])
        for p in RESULTS:
            self.assertIn(p.format(dir="${{ matrix.dir }}"), upload["with"]["path"])

    def test_gitlab(self):
        jobs = load("gitlab-ci.yml")
        self.assertEqual(sorted(jobs), [".nptl-scale-gate", "nptl-scale-gate",
                                        "nptl-scale-gate-arm64"])
        self.assertEqual(jobs["nptl-scale-gate"]["variables"]["DIR"], base_key("x86_64"))
        arm = jobs["nptl-scale-gate-arm64"]
        self.assertEqual(arm["variables"]["DIR"], base_key("aarch64"))
        self.assertIn("arm64", arm["tags"][0])
        for name in ("nptl-scale-gate", "nptl-scale-gate-arm64"):
            self.assertEqual(jobs[name]["extends"], ".nptl-scale-gate")
        job = jobs[".nptl-scale-gate"]
        stock, patched = job["cache"]
        self.assertIn("build/2.43/source", stock["paths"])
        self.assertIn("build/$DIR/stock", stock["paths"])
        self.assertIn("$DIR", stock["key"]["prefix"])
        self.assertFalse([f for f in stock["key"]["files"] if f.startswith("patches")])
        self.assertIn("build/$DIR/patched", patched["paths"])
        self.assertIn("$DIR", patched["key"]["prefix"])
        self.assertTrue(all(f.startswith("patches/glibc-2.43/") for f in patched["key"]["files"]))
        self.assertEqual(job["artifacts"]["when"], "always")
        for p in RESULTS:
            self.assertIn(p.format(dir="$DIR"), job["artifacts"]["paths"])

if __name__ == "__main__":
    unittest.main()
