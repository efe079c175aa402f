"""lockswap report --by-arm: many processes' statistics files merged and
compared by arm.  Every expected number is computed here from the
generated inputs, never copied from the program's output."""
import csv
import json
import os
import random
import sys
import tempfile
import unittest

import fleet_profiles as fp
from helpers import REPO, CliAssertions, lockswap

sys.path.insert(0, os.path.join(REPO, "scripts"))
from lockswap_cli import fleet_measures  # noqa: E402

ARMS = ("glibc", "futex", "restricted")


def read_json(path):
    with open(path) as f:
        return json.load(f)


class Merge(unittest.TestCase):
    """K profiles with random counts: the per-site and per-arm rows are
    the sums of their inputs; a heap lock at a different address in every
    process is still one row."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rnd = random.Random(12)
        cls.expected_sites = {}
        cls.expected_arms = {a: {"acquisitions": 0, "contended": 0} for a in ARMS}
        files = []
        for k in range(9):
            arm = ARMS[k % 3]
            locks = []
            for id_, label in enumerate(("big_lock", "mutex at ?? (prog+0x4242)", "mutex at worker"), 1):
                acq = rnd.randint(1000, 50000)
                cont = rnd.randint(0, acq // 2)
                if label == "big_lock":
                    locks.append(fp.base.mutex(id_, "big_lock", acq, cont, cont, shares=(acq,)))
                elif "prog" in label:
                    locks.append(fp.heap_mutex(id_, acq, cont, addr=0x7000_0000 + 0x10000 * k))
                elif k % 2:     # a lock only some processes use
                    locks.append(fp.base.mutex(id_, None, acq, cont, cont, shares=(acq,)))
                else:
                    continue
                site = cls.expected_sites.setdefault((label, arm), {
                    "processes": 0, "acquisitions": 0, "contended": 0})
                site["processes"] += 1
                site["acquisitions"] += acq
                site["contended"] += cont
                cls.expected_arms[arm]["acquisitions"] += acq
                cls.expected_arms[arm]["contended"] += cont
            doc = fp.process(100 + k, locks, fp.arm_object(arm, ARMS.index(arm), key_value=str(k)))
            files.append(fp.write(cls.tmp.name, f"p{k}", doc))
        cls.prefix = os.path.join(cls.tmp.name, "out", "fleet")
        cls.p = lockswap("report", "--by-arm", *files, "--out", cls.prefix)
        cls.result = read_json(cls.prefix + ".json") if cls.p.returncode == 0 else None

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_sites_are_sums_of_their_processes(self):
        got = {(s["site"], s["arm"]): {k: s[k] for k in ("processes", "acquisitions", "contended")}
               for s in self.result["sites"]}
        self.assertEqual(got, self.expected_sites)

    def test_arms_are_sums_of_their_processes(self):
        got = {a["name"]: {"acquisitions": a["acquisitions"], "contended": a["contended"]}
               for a in self.result["arms"]}
        self.assertEqual(got, self.expected_arms)

    def test_exports_exist_and_parse(self):
        with open(self.prefix + ".csv") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 3 * len(ARMS))   # three lock measures, no --metric
        self.assertEqual({r["arm"] for r in rows}, set(ARMS))
        with open(self.prefix + ".md") as f:
            md = f.read()
        self.assertIn("| big_lock | futex |", md)
        with open(self.prefix + ".png", "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(self.result["baseline"], "glibc")
        self.assertEqual([a["name"] for a in self.result["arms"]], list(ARMS))


class Measures(unittest.TestCase):
    """The per-process numbers, from their definitions in docs/fleet.md."""

    def test_p99_interpolates_inside_its_log2_bucket(self):
        hist = [0] * 10 + [100]                 # every wait in [1024, 2048) ns
        self.assertAlmostEqual(fleet_measures.hist_quantile(hist, 0.99), 1024 + 1024 * 0.99)
        hist = [50] + [0] * 19 + [50]           # half under 2 ns, half in [2^20, 2^21)
        self.assertGreaterEqual(fleet_measures.hist_quantile(hist, 0.99), 2 ** 20)
        self.assertLessEqual(fleet_measures.hist_quantile(hist, 0.5), 2)
        self.assertIsNone(fleet_measures.hist_quantile([0, 0], 0.99))

    def test_shares(self):
        a = fp.competing_mutex(1, "a", 100, shares=(100, 300, 600))
        b = fp.competing_mutex(2, "b", 200, shares=(1500, 1500))
        doc = fp.process(1, [a, b])
        self.assertAlmostEqual(fleet_measures.contended_share(doc), 300 / 4000)
        # the hottest lock is b (200 contended): two even threads
        self.assertAlmostEqual(fleet_measures.min_share(doc), 1.0)
        a["contended"] = 900
        self.assertAlmostEqual(fleet_measures.min_share(doc), 100 / (1000 / 3))
        # a thread that never waited for it is not counted
        a["per_thread"][0]["contended"] = 0
        self.assertAlmostEqual(fleet_measures.min_share(doc), 300 / (900 / 2))
        a["per_thread"][1]["contended"] = 0
        self.assertIsNone(fleet_measures.min_share(doc), "one competing thread is no contest")


def share_fleet(folder, arms, metric=None, fairness=None):
    """One process per value: arms = {name: [contended shares]}; metric
    = {name: [app values]} written to the .app.json files; fairness =
    {name: [the first of two threads' share of the acquisitions]}."""
    files = []
    for index, (name, shares) in enumerate(arms.items()):
        for k, share in enumerate(shares):
            first = round(10000 * fairness[name][k]) if fairness else 5000
            lock = fp.competing_mutex(1, "big_lock", round(share * 10000),
                                      shares=(first, 10000 - first))
            doc = fp.process(1000 + 100 * index + k, [lock], fp.arm_object(name, index, len(arms)))
            app = {"result": {"ops": metric[name][k]}} if metric else None
            files.append(fp.write(folder, f"{name}-{k}", doc, app))
    return files


class Verdicts(unittest.TestCase):
    """Constructed fleets: a clearly better arm, a clearly worse one, and
    one drawn from the baseline's own values."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def verdicts(self, files, *flags, measure="contended_share"):
        prefix = os.path.join(self.tmp.name, "r")
        p = lockswap("report", "--by-arm", *files, "--out", prefix, *flags)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = read_json(prefix + ".json")
        rows = next(m["rows"] for m in doc["measures"] if m["key"] == measure)
        return {r["arm"]: r["verdict"] for r in rows}

    def test_better_worse_and_indistinguishable(self):
        rnd = random.Random(5)
        base = [0.30 + rnd.uniform(-0.02, 0.02) for _ in range(8)]
        same = list(base)
        rnd.shuffle(same)
        files = share_fleet(self.tmp.name, {
            "glibc": base,
            "better": [0.10 + rnd.uniform(-0.02, 0.02) for _ in range(8)],
            "worse": [0.60 + rnd.uniform(-0.02, 0.02) for _ in range(8)],
            "same": same})
        self.assertEqual(self.verdicts(files), {"glibc": "baseline", "better": "better",
                                                "worse": "worse", "same": "no clear difference"})

    def test_min_share_higher_is_better(self):
        rnd = random.Random(7)
        first = {"glibc": [0.25 + rnd.uniform(-0.02, 0.02) for _ in range(6)],   # min share ~0.5
                 "fairer": [0.5 + rnd.uniform(-0.02, 0.0) for _ in range(6)],    # ~1.0
                 "starves": [0.05 + rnd.uniform(-0.02, 0.02) for _ in range(6)]}  # ~0.1
        files = share_fleet(self.tmp.name, {a: [0.3] * 6 for a in first}, fairness=first)
        self.assertEqual(self.verdicts(files, measure="min_share"),
                         {"glibc": "baseline", "fairer": "better", "starves": "worse"})

    def test_metric_direction_and_baseline_flag(self):
        n = 6
        files = share_fleet(self.tmp.name, {"a": [0.2] * n, "b": [0.2] * n},
                            metric={"a": [100 + k for k in range(n)],
                                    "b": [200 + k for k in range(n)]})
        self.assertEqual(self.verdicts(files, "--metric", "result.ops", measure="metric"),
                         {"a": "baseline", "b": "better"})
        self.assertEqual(self.verdicts(files, "--metric", "result.ops", "--lower-is-better",
                                       measure="metric"), {"a": "baseline", "b": "worse"})
        self.assertEqual(self.verdicts(files, "--metric", "result.ops", "--baseline", "b",
                                       measure="metric"), {"b": "baseline", "a": "worse"})

    def test_grouped_by_backend_without_arm_objects(self):
        files = []
        for backend, share in (("futex", 0.1), ("glibc", 0.4)):
            for k in range(5):
                lock = fp.competing_mutex(1, "big_lock", int(share * 10000) + k,
                                          shares=(5000, 5000))
                files.append(fp.write(self.tmp.name, f"{backend}{k}",
                                      fp.process(10 + k, [lock], backend=backend)))
        # no "arm" object: grouped by "backend", glibc is the baseline
        self.assertEqual(self.verdicts(files), {"glibc": "baseline", "futex": "better"})


class Errors(CliAssertions, unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.files = share_fleet(self.tmp.name, {"a": [0.1, 0.2], "b": [0.3, 0.4]})

    def test_unreadable_and_invalid_files(self):
        self.assertUsageError(lockswap("report", "--by-arm", *self.files,
                                       os.path.join(self.tmp.name, "gone.json")),
                              "cannot read", "gone.json")
        bad = os.path.join(self.tmp.name, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        self.assertUsageError(lockswap("report", "--by-arm", *self.files, bad), "bad.json",
                              "not JSON")
        doc = read_json(self.files[0])
        del doc["locks"][0]["contended"]
        fp.write(self.tmp.name, "short", doc)
        self.assertUsageError(lockswap("report", "--by-arm", *self.files,
                                       os.path.join(self.tmp.name, "short.json")),
                              "short.json: not a valid statistics file", "contended")

    def test_single_arm(self):
        self.assertUsageError(lockswap("report", "--by-arm", *self.files[:2]),
                              "two arms", "a")

    def test_unknown_baseline(self):
        self.assertUsageError(lockswap("report", "--by-arm", *self.files, "--baseline", "c"),
                              "--baseline c", "a, b")

    def test_missing_metric(self):
        self.assertUsageError(lockswap("report", "--by-arm", *self.files, "--metric", "ops"),
                              "--metric ops", "no process reports it")

    def test_arm_with_two_settings(self):
        doc = read_json(self.files[0])
        doc["arm"]["settings"] = "futex SPIN=0"
        fp.write(self.tmp.name, "changed", doc)
        self.assertUsageError(lockswap("report", "--by-arm", *self.files,
                                       os.path.join(self.tmp.name, "changed.json")),
                              "arm a has settings")

    def test_fleet_flags_need_by_arm(self):
        self.assertUsageError(lockswap("report", self.files[0], "--baseline", "a"),
                              "--baseline goes with --by-arm")


if __name__ == "__main__":
    unittest.main()
