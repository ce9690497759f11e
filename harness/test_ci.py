#!/usr/bin/env python3
"""Self-test of the CI examples (ci/*.yml), read as data, never run: the
stock build's cache is not keyed on patches/, the patched one is, the
results are uploaded, and no arm64 job is there (another issue's)."""
import os
import unittest

try:
    import yaml
except ImportError:
    yaml = None

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = ["build/2.43/check/*.sum", "build/2.43/check/compare-*.txt",
           "build/2.43/check/compare-*.json", "build/bench/"]


def load(name):
    with open(os.path.join(TOP, "ci", name)) as f:
        return yaml.safe_load(f)


@unittest.skipUnless(yaml, "needs python3-yaml")
class CiTest(unittest.TestCase):
    def test_github(self):
        wf = load("github-actions.yml")
        steps = wf["jobs"]["gate"]["steps"]
        self.assertEqual(list(wf["jobs"]), ["gate"])
        restore = {s["id"]: s["with"] for s in steps if s.get("id") in ("stock", "patched")}
        self.assertNotIn("patches", restore["stock"]["key"])
        self.assertIn("build/${{ env.BASE }}/stock", restore["stock"]["path"])
        self.assertIn("patches/glibc-{0}/**", restore["patched"]["key"])
        self.assertIn("build/${{ env.BASE }}/patched", restore["patched"]["path"])
        saves = [s for s in steps if s.get("uses", "").startswith("actions/cache/save")]
        self.assertEqual(len(saves), 2)
        upload = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")][0]
        self.assertEqual(upload["if"], "always()")
        paths = upload["with"]["path"].replace("${{ env.BASE }}", wf["env"]["BASE"])
        for p in RESULTS:
            self.assertIn(p, paths)
        self.assertEqual(wf["jobs"]["gate"]["runs-on"], "ubuntu-latest")

    def test_gitlab(self):
        jobs = load("gitlab-ci.yml")
        self.assertEqual(list(jobs), ["nptl-scale-gate"])
        job = jobs["nptl-scale-gate"]
        stock, patched = job["cache"]
        self.assertIn("build/2.43/stock", stock["paths"])
        self.assertFalse([f for f in stock["key"]["files"] if f.startswith("patches")])
        self.assertIn("build/2.43/patched", patched["paths"])
        self.assertTrue(all(f.startswith("patches/glibc-2.43/") for f in patched["key"]["files"]))
        self.assertEqual(job["artifacts"]["when"], "always")
        for p in RESULTS:
            self.assertIn(p, job["artifacts"]["paths"])

    def test_no_arm64_job(self):
        for name in ("github-actions.yml", "gitlab-ci.yml"):
            with open(os.path.join(TOP, "ci", name)) as f:
                text = f.read()
            self.assertNotIn("arm64:", text)
            self.assertIn("No arm64 job here", text)


if __name__ == "__main__":
    unittest.main()
