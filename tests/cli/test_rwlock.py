"""The rwlock backend in the CLI: lockswap list, run -r, ab -r, sweep -r."""
import json
import os
import sys
import tempfile
import unittest

from helpers import CliAssertions, clean_env, describe, lockswap

# A stand-in benchmark: logs LOCKSWAP_BACKEND/LOCKSWAP_RWLOCK of each run
# and reports a throughput that depends on the rwlock backend.
PROBE = [sys.executable, "-c",
         "import json, os, sys\n"
         "b, r = os.environ.get('LOCKSWAP_BACKEND', '-'), os.environ.get('LOCKSWAP_RWLOCK', '-')\n"
         "open(os.environ['PROBE_LOG'], 'a').write(b + ' ' + r + '\\n')\n"
         "print(json.dumps({'throughput': {'glibc': 100, 'futex': 150, 'bravo': 200}.get(r, 1)}))"]


def logged(path):
    with open(path) as f:
        return [tuple(line.split()) for line in f]


class List(unittest.TestCase):
    def test_rwlock_backends_listed(self):
        desc = describe()
        names = [b["name"] for b in desc["rwlock_backends"]]
        opt = [o for o in desc["options"] if o["name"] == "LOCKSWAP_RWLOCK"][0]
        self.assertEqual(sorted(names), sorted(opt["choices"].split("|")))
        out = lockswap("list").stdout
        self.assertIn("Rwlock backends (-r NAME", out)
        for b in desc["rwlock_backends"]:
            self.assertIn(b["name"], out)


class Run(unittest.TestCase, CliAssertions):
    def test_run_sets_rwlock(self):
        p = lockswap("run", "-b", "glibc", "-r", "bravo", "--", sys.executable, "-c",
                     "import os; print(os.environ['LOCKSWAP_BACKEND'], os.environ['LOCKSWAP_RWLOCK'])")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), ["glibc", "bravo"])

    def test_bad_rwlock_is_the_librarys_message(self):
        self.assertUsageError(lockswap("run", "-r", "nosuch", "--", "true"),
                              "-r nosuch (LOCKSWAP_RWLOCK): not one of the accepted", "futex")


class Compare(unittest.TestCase, CliAssertions):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "log")
        self.env = clean_env(PROBE_LOG=self.log)

    def tearDown(self):
        self.tmp.cleanup()

    def test_ab_over_rwlock_backends(self):
        out = os.path.join(self.tmp.name, "ab")
        p = lockswap("ab", "-r", "glibc", "-r", "bravo", "--runs", "2", "--warmup", "0", "-q",
                     "--json-key", "throughput", "--out", out, "--", *PROBE, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out + ".json") as f:
            runs = json.load(f)["runs"]
        self.assertEqual(sorted({r["backend"] for r in runs}), ["bravo", "glibc"])
        self.assertEqual(sorted(r for _, r in logged(self.log)), ["bravo"] * 2 + ["glibc"] * 2)
        self.assertRegex(p.stdout, r"bravo .* 2\.000")

    def test_ab_every_mutex_with_every_rwlock(self):
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "-r", "futex", "-r", "bravo", "--runs", "2",
                     "--warmup", "0", "-q", "--json-key", "throughput", "--", *PROBE, env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        for label in ("glibc/futex", "glibc/bravo", "futex/futex", "futex/bravo"):
            self.assertIn(label, p.stdout)
        self.assertEqual(sorted(set(logged(self.log))),
                         [("futex", "bravo"), ("futex", "futex"), ("glibc", "bravo"), ("glibc", "futex")])

    def test_sweep_over_rwlock_backends(self):
        p = lockswap("sweep", "-r", "futex", "-r", "bravo", "--threads", "1,2", "--runs", "1", "-q",
                     "--json-key", "throughput", "--", *PROBE, "{threads}", env=self.env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(logged(self.log)), 4)

    def test_set_rwlock_with_r_is_refused(self):
        self.assertUsageError(lockswap("ab", "-r", "futex", "-r", "bravo", "--set", "RWLOCK=glibc",
                                       "--", *PROBE, env=self.env), "-r")

    def test_bad_r_is_checked_before_anything_runs(self):
        self.assertUsageError(lockswap("ab", "-r", "futex", "-r", "nosuch", "--", *PROBE, env=self.env),
                              "-r nosuch (LOCKSWAP_RWLOCK)")
        self.assertFalse(os.path.exists(self.log))


if __name__ == "__main__":
    unittest.main()
