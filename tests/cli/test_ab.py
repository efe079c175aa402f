"""lockswap ab against a fake benchmark (tests/cli/fake_bench.py)."""
import csv
import json
import os
import shutil
import sys
import tempfile
import unittest

from helpers import FAKE, LIB, CliAssertions, clean_env, lockswap

AB = ["ab", "-b", "glibc", "-b", "futex", "--json-key", "throughput", "--seed", "11", "-q"]


class Interleaving(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.log = os.path.join(cls.tmp.name, "log")
        cls.prefix = os.path.join(cls.tmp.name, "out", "ab")
        cls.p = lockswap(*AB, "-b", "futex,SPIN=0", "--runs", "4", "--warmup", "1",
                         "--extra-key", "min_share", "--out", cls.prefix, "--", FAKE, "--tag", "x",
                         env=clean_env(FAKE_LOG=cls.log))
        with open(cls.prefix + ".json") as f:
            cls.result = json.load(f)
        with open(cls.log) as f:
            cls.executed = [line.split() for line in f]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_succeeds(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_every_round_runs_every_backend_once(self):
        labels = {"glibc", "futex", "futex,SPIN=0"}
        measured = [r for r in self.result["runs"] if not r["warmup"]]
        rounds = {}
        for r in measured:
            rounds.setdefault(r["round"], []).append(r["backend"])
        self.assertEqual(sorted(rounds), [1, 2, 3, 4])
        for order in rounds.values():
            self.assertEqual(sorted(order), sorted(labels))
        for rnd in rounds:
            positions = [r["position"] for r in measured if r["round"] == rnd]
            self.assertEqual(positions, [1, 2, 3])

    def test_recorded_order_is_execution_order(self):
        # The fake logs LOCKSWAP_BACKEND of each run, warm-up included.
        expected = [r["backend"].split(",")[0] for r in self.result["runs"]]
        self.assertEqual([e[0] for e in self.executed], expected)
        self.assertEqual(len(self.executed), 3 * (4 + 1))
        self.assertTrue(all(e[1:] == ["--tag", "x"] for e in self.executed))

    def test_variant_settings_reach_the_program(self):
        spins = {b["label"]: b["settings"].get("LOCKSWAP_SPIN") for b in self.result["backends"]}
        self.assertEqual(spins, {"glibc": None, "futex": None, "futex,SPIN=0": "0"})

    def test_summary_and_verdict(self):
        rows = {r["backend"]: r for r in self.result["summary"]}
        self.assertEqual(rows["glibc"]["verdict"], "baseline")
        self.assertEqual(rows["futex"]["verdict"], "faster")
        self.assertEqual(rows["futex"]["n"], 4)
        self.assertAlmostEqual(rows["futex"]["ratio"], 2.0, delta=0.02)
        for line in ("glibc", "futex", "faster", "baseline", "seed 11", "min_share"):
            self.assertIn(line, self.p.stdout)

    def test_paired_by_round(self):
        # The fake's values: glibc 100, futex 200 (both futex variants),
        # each plus a wobble of 0-1 by run count.
        pairs = {r["backend"]: r for r in self.result["paired"]}
        self.assertEqual(sorted(pairs), ["futex", "futex,SPIN=0"])
        for label in pairs:
            self.assertEqual(pairs[label]["rounds"], 4)
            self.assertAlmostEqual(pairs[label]["ratio"], 2.0, delta=0.02)
            self.assertEqual(pairs[label]["verdict"], "faster")
            self.assertTrue(pairs[label]["ci_low"] <= pairs[label]["ratio"]
                            <= pairs[label]["ci_high"])
        self.assertIn("paired by round", self.p.stdout)
        self.assertRegex(self.p.stdout, r"\nfutex,SPIN=0 +4 +\d\.\d{3}  \[[\d.]+, [\d.]+\]  faster\n")
        with open(self.prefix + ".md") as f:
            self.assertRegex(f.read(), r"\| futex \| 4 \| \d\.\d{3} \| \[[\d.]+, [\d.]+\] \| faster \|")

    def test_files(self):
        with open(self.prefix + ".csv") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 12)
        self.assertEqual(list(rows[0])[:6],
                         ["round", "position", "backend", "value", "exit_status", "seconds"])
        measured = [r for r in self.result["runs"] if not r["warmup"]]
        self.assertEqual([r["backend"] for r in rows], [r["backend"] for r in measured])
        self.assertTrue(all(r["exit_status"] == "0" for r in rows))
        self.assertTrue(all(r["min_share"] == "0.5" for r in rows))
        with open(self.prefix + ".md") as f:
            md = f.read()
        self.assertIn(FAKE + " --tag x", md)
        self.assertIn("| futex |", md)
        self.assertIn(self.prefix + ".md", self.p.stdout)


class Failures(unittest.TestCase):
    def test_failing_runs_are_reported_not_averaged(self):
        p = lockswap(*AB, "--runs", "3", "--warmup", "0", "-b", "futex,SPIN=0", "--", FAKE,
                     env=clean_env(FAKE_FAIL="futex"))
        # FAKE_FAIL matches LOCKSWAP_BACKEND, so both futex variants fail.
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("exit 3", p.stdout)
        self.assertIn("futex failed on purpose", p.stdout)
        self.assertIn("no verdict", p.stdout)
        summary, paired = p.stdout.split("paired by round")
        verdicts = [l.split(None, 8)[-1] for l in summary.splitlines() if l.startswith("futex")]
        self.assertEqual(verdicts, ["no verdict: 0 good runs"] * 2)
        paired = paired.split("medians of other keys:")[0]   # the fairness key's table follows
        verdicts = [l.split(None, 4)[-1] for l in paired.splitlines() if l.startswith("futex")]
        self.assertEqual(verdicts, ["no verdict: 0 rounds with both"] * 2)
        glibc = next(l for l in p.stdout.splitlines() if l.startswith("glibc "))
        self.assertEqual(glibc.split()[1:4], ["3", "0", "100"])  # good, failed, median

    def test_each_failed_run_is_reported_once(self):
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "--json-key", "throughput", "--runs", "2",
                     "--warmup", "1", "--", FAKE, env=clean_env(FAKE_FAIL="futex"))
        self.assertEqual(p.returncode, 1, p.stderr)
        for kind in ("warm-up 1", "round 1", "round 2"):
            said = [l for l in p.stderr.splitlines() if kind in l and "futex" in l]
            self.assertEqual(len(said), 1, p.stderr)
            self.assertIn("exit 3", said[0])

    def test_failing_baseline_stops_early(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log")
            p = lockswap(*AB, "--runs", "5", "--warmup", "1", "--", FAKE,
                         env=clean_env(FAKE_FAIL="glibc", FAKE_LOG=log))
            with open(log) as f:
                executed = [line.split()[0] for line in f]
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(executed.count("glibc"), 3, executed)
        self.assertLess(len(executed), 12)
        line = p.stderr.strip()
        self.assertEqual(len(line.splitlines()), 1, p.stderr)
        self.assertIn("the baseline glibc failed its first 3 runs (exit 3", line)
        self.assertIn("failed on purpose", line)
        self.assertIn(f"stopped after {len(executed)} of 12 runs", line)

    def test_missing_metric_counts_as_failed(self):
        with tempfile.TemporaryDirectory() as d:
            p = lockswap(*AB, "--runs", "2", "--warmup", "0", "--out", os.path.join(d, "r"),
                         "--", FAKE, env=clean_env(FAKE_NOKEY="glibc"))
            self.assertEqual(p.returncode, 1)
            with open(os.path.join(d, "r.json")) as f:
                runs = json.load(f)["runs"]
        bad = [r for r in runs if r["backend"] == "glibc"]
        self.assertTrue(all(r["value"] is None and "metric not found" in r["status"]
                            and r["exit_status"] == 0 for r in bad))
        self.assertTrue(all(r["status"] == "ok" for r in runs if r["backend"] == "futex"))

    def test_timeout_kills_the_run(self):
        p = lockswap("ab", "-q", "-b", "glibc", "-b", "futex", "--runs", "1", "--warmup", "0",
                     "--timeout", "0.3", "--", sys.executable, "-c",
                     "import time; time.sleep(30)")
        self.assertEqual(p.returncode, 1)
        self.assertIn("timeout", p.stdout)


class OtherMetrics(unittest.TestCase):
    def test_regex_metric(self):
        p = lockswap("ab", "-q", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0",
                     "--metric", r"ops/s: (\S+)", "--", FAKE, env=clean_env(FAKE_TEXT="1"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        glibc = next(l for l in p.stdout.splitlines() if l.startswith("glibc "))
        self.assertEqual(glibc.split()[3], "100")

    def test_wall_time_by_default(self):
        p = lockswap("ab", "-q", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0",
                     "--", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("wall-clock seconds (lower is better)", p.stdout)


class PerBackendLibrary(unittest.TestCase, CliAssertions):
    """-b NAME,LIB=PATH: that backend's runs preload that build of the
    library (two builds A/B-tested in the same interleaved rounds), and the
    files say which build each backend ran under."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.other = os.path.join(cls.tmp.name, "other", "liblockswap.so")
        os.makedirs(os.path.dirname(cls.other))
        shutil.copy(LIB, cls.other)
        cls.log = os.path.join(cls.tmp.name, "preloads")
        cls.prefix = os.path.join(cls.tmp.name, "out", "ab")
        cls.p = lockswap("ab", "-b", "futex", "-b", "futex,LIB=" + cls.other, "-b", "glibc",
                         "--json-key", "throughput", "--runs", "2", "--warmup", "0", "-q",
                         "--out", cls.prefix, "--", FAKE,
                         env=clean_env(FAKE_PRELOAD_LOG=cls.log))
        with open(cls.log) as f:
            cls.preloads = [line.split() for line in f]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_succeeds(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_each_run_preloads_its_build(self):
        # Both futex variants log backend "futex"; 2 rounds of each.
        libs = sorted(lib for backend, lib in self.preloads if backend == "futex")
        self.assertEqual(libs, sorted([os.path.realpath(LIB)] * 2 + [self.other] * 2))
        self.assertTrue(all(lib == os.path.realpath(LIB)
                            for backend, lib in self.preloads if backend == "glibc"))

    def test_files_name_the_build(self):
        with open(self.prefix + ".json") as f:
            result = json.load(f)
        own = {b["label"]: b.get("library") for b in result["backends"]}
        self.assertEqual(own, {"futex": None, "futex,LIB=" + self.other: self.other,
                               "glibc": None})
        with open(self.prefix + ".md") as f:
            self.assertIn(f"library of `futex,LIB={self.other}`: {self.other}", f.read())

    def test_missing_build(self):
        p = lockswap("ab", "-b", "futex", "-b", "futex,LIB=/nonexistent/liblockswap.so",
                     "--", FAKE)
        self.assertUsageError(p, "LIB=/nonexistent/liblockswap.so: no such file")

    def test_not_a_build(self):
        p = lockswap("ab", "-b", "futex", "-b", "futex,LIB=" + FAKE, "--", FAKE)
        self.assertUsageError(p, "not a usable lockswap library")

    def test_empty_path(self):
        p = lockswap("sweep", "-b", "futex", "-b", "futex,LIB=", "--threads", "1", "--",
                     FAKE, "--threads", "{threads}")
        self.assertUsageError(p, "LIB= needs the path")


class WithoutLockswap(unittest.TestCase, CliAssertions):
    """-b none: the program without lockswap, neither preloaded nor given
    a LOCKSWAP_* variable (an inherited one included), beside arms that
    load it: what loading lockswap costs at all."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.log = os.path.join(cls.tmp.name, "preloads")
        cls.prefix = os.path.join(cls.tmp.name, "out", "ab")
        cls.p = lockswap("ab", "-b", "none", "-b", "futex", "--json-key", "throughput",
                         "--runs", "2", "--warmup", "0", "-q", "--out", cls.prefix, "--", FAKE,
                         env=clean_env(FAKE_PRELOAD_LOG=cls.log, LOCKSWAP_SPIN="0"))
        with open(cls.log) as f:
            cls.preloads = sorted(tuple(line.split()) for line in f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_succeeds(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_none_runs_without_the_library(self):
        # fake_bench logs "none" for a run without LOCKSWAP_BACKEND, and
        # the first LD_PRELOAD entry (none here) after it.
        lib = os.path.realpath(LIB)
        self.assertEqual(self.preloads, [("futex", lib)] * 2 + [("none",)] * 2)

    def test_files_say_so(self):
        with open(self.prefix + ".json") as f:
            result = json.load(f)
        none = next(b for b in result["backends"] if b["label"] == "none")
        self.assertEqual((none["settings"], none.get("preload")), ({}, False))
        with open(self.prefix + ".md") as f:
            self.assertIn("- `none`: the program without lockswap", f.read())

    def test_none_takes_no_settings(self):
        p = lockswap("ab", "-b", "none,SPIN=0", "-b", "futex", "--", FAKE)
        self.assertUsageError(p, "none runs the program without lockswap, so it takes no "
                                 "settings")

    def test_none_has_no_rwlock(self):
        p = lockswap("ab", "-b", "none", "-b", "futex", "-r", "futex", "--", FAKE)
        self.assertUsageError(p, "-b none runs the program without lockswap")


class ManyBuilds(unittest.TestCase, CliAssertions):
    """Five builds beside the default one: more than this Python process
    can load next to each other (each build's initial-exec TLS comes out
    of glibc's small reserve for libraries loaded late), so the CLI asks
    the extra ones in a child process; they still run, and their settings
    are still checked by their own library."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.builds = []
        for name in "abcde":
            path = os.path.join(cls.tmp.name, name, "liblockswap.so")
            os.makedirs(os.path.dirname(path))
            shutil.copy(LIB, path)
            cls.builds.append(path)
        cls.log = os.path.join(cls.tmp.name, "preloads")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_five_builds_run(self):
        p = lockswap("ab", "-b", "futex", *[a for path in self.builds
                                           for a in ("-b", "futex,LIB=" + path)],
                     "--json-key", "throughput", "--runs", "2", "--warmup", "0", "-q", "--",
                     FAKE, env=clean_env(FAKE_PRELOAD_LOG=self.log))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.log) as f:
            libs = sorted(line.split()[1] for line in f)
        self.assertEqual(libs, sorted([os.path.realpath(LIB)] * 2 + self.builds * 2))

    def test_bad_setting_of_the_last_build(self):
        p = lockswap("ab", "-b", "futex", *[a for path in self.builds[:-1]
                                           for a in ("-b", "futex,LIB=" + path)],
                     "-b", "capacitor:tts,BYPASS=0,LIB=" + self.builds[-1], "--", FAKE)
        self.assertUsageError(p, f"-b capacitor:tts,BYPASS=0,LIB={self.builds[-1]} (LOCKSWAP_BYPASS): "
                                 "must be a whole number")


if __name__ == "__main__":
    unittest.main()
