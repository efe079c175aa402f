"""The fairness-against-throughput (frontier) picture of ab and sweep."""
import os
import tempfile
import unittest

from helpers import FAKE, clean_env, lockswap
from lockswap_cli import campaign, frontier, measure, metrics

PNG = b"\x89PNG\r\n\x1a\n"


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == PNG


def pt(label, x, y):
    return {"label": label, "x": x, "y": y}


class Frontier(unittest.TestCase):
    def test_dominated_points_are_off_the_frontier(self):
        pts = frontier.mark_frontier([pt("fast", 1.0, 0.3), pt("fair", 0.01, 1.0),
                                      pt("worse", 0.5, 0.2), pt("middle", 0.6, 0.8),
                                      pt("tie-slower", 0.6, 0.7)])
        on = {p["label"] for p in pts if p["frontier"]}
        self.assertEqual(on, {"fast", "fair", "middle"})

    def test_equal_points_both_stay(self):
        pts = frontier.mark_frontier([pt("a", 1.0, 0.5), pt("b", 1.0, 0.5)])
        self.assertTrue(all(p["frontier"] for p in pts))

    def test_speed_is_above_one_when_faster_either_way(self):
        self.assertEqual(frontier.speed(200.0, 100.0, lower_is_better=False), 2.0)
        self.assertEqual(frontier.speed(50.0, 100.0, lower_is_better=True), 2.0)
        self.assertIsNone(frontier.speed(1.0, 0.0, lower_is_better=False))
        self.assertIsNone(frontier.speed(0.0, 1.0, lower_is_better=True))
        self.assertIsNone(frontier.speed(1.0, None, lower_is_better=False))


class Written(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sweep = os.path.join(cls.tmp.name, "sw")
        cls.ab = os.path.join(cls.tmp.name, "ab")
        cls.ps = lockswap("sweep", "-q", "-b", "glibc", "-b", "futex", "-b", "mcs",
                          "--threads", "1,2,4,8", "--runs", "2", "--json-key", "throughput",
                          "--seed", "3", "--out", cls.sweep, "--", FAKE, "--threads", "{threads}")
        cls.pa = lockswap("ab", "-q", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0",
                          "--json-key", "throughput", "--seed", "3", "--out", cls.ab, "--",
                          FAKE, "--threads", "4")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_sweep_writes_and_names_the_frontier_png(self):
        self.assertEqual(self.ps.returncode, 0, self.ps.stderr)
        path = self.sweep + "-frontier.png"
        self.assertIn(path, self.ps.stdout)
        self.assertTrue(is_png(path))

    def test_ab_writes_the_frontier_png_and_shows_the_fairness_key(self):
        self.assertEqual(self.pa.returncode, 0, self.pa.stderr)
        path = self.ab + "-frontier.png"
        self.assertIn(path, self.pa.stdout)
        self.assertTrue(is_png(path))
        # the default --fairness-key is recorded with the runs and shown
        self.assertIn("min_share", self.pa.stdout)
        with open(self.ab + ".csv") as f:
            self.assertIn("min_share", f.readline())

    def test_no_frontier_without_the_key(self):
        prefix = os.path.join(self.tmp.name, "nokey")
        p = lockswap("ab", "-q", "-b", "glibc", "-b", "futex", "--runs", "2", "--warmup", "0",
                     "--json-key", "throughput", "--fairness-key", "jain", "--out", prefix,
                     "--", FAKE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("frontier", p.stdout)
        self.assertFalse(os.path.exists(prefix + "-frontier.png"))
        self.assertTrue(os.path.exists(prefix + ".md"))

    def test_a_backend_without_good_runs_is_left_out(self):
        prefix = os.path.join(self.tmp.name, "pts")
        p = lockswap("ab", "-q", "-b", "glibc", "-b", "futex", "-b", "mcs", "--runs", "2",
                     "--warmup", "0", "--json-key", "throughput", "--out", prefix, "--",
                     FAKE, "--threads", "3", env=clean_env(FAKE_NOKEY="mcs"))
        self.assertEqual(p.returncode, 1, p.stderr)      # mcs's runs lack the metric
        self.assertTrue(is_png(prefix + "-frontier.png"))


def measured(label, value, fairness, group=None, warmup=False, ok=True):
    run = campaign.Run(group, 1, 1, Variant(label), warmup)
    run.value, run.status = value, "ok" if ok else "exit 1"
    run.extras = {"min_share": fairness}
    return run


class Variant:
    def __init__(self, label):
        self.label = label


def plan_of(labels, lower_is_better=False):
    return measure.Measurement(None, None, [Variant(l) for l in labels],
                               metrics.Metric(json_key="x", lower_is_better=lower_is_better),
                               [None], {}, {}, 0, ["min_share"])


class Points(unittest.TestCase):
    def test_medians_spread_and_frontier(self):
        runs = [measured("glibc", v, f) for v, f in ((100, 0.3), (110, 0.5), (90, 0.4))]
        runs += [measured("fair", v, f) for v, f in ((1, 0.99), (2, 1.0), (3, 0.98))]
        runs += [measured("slow", v, f) for v, f in ((50, 0.2), (60, 0.1), (40, 0.3))]
        runs += [measured("fair", 1000, 0.0, warmup=True), measured("fair", 1000, 0.0, ok=False)]
        pts = {p["label"]: p for p in frontier.points(plan_of(["glibc", "fair", "slow"]), runs,
                                                       None, "min_share")}
        self.assertEqual((pts["glibc"]["x"], pts["glibc"]["x_low"], pts["glibc"]["x_high"]),
                         (1.0, 0.9, 1.1))
        self.assertEqual((pts["glibc"]["y"], pts["glibc"]["y_low"], pts["glibc"]["y_high"]),
                         (0.4, 0.3, 0.5))
        self.assertAlmostEqual(pts["fair"]["x"], 0.02)
        self.assertEqual(pts["fair"]["y"], 0.99)
        self.assertEqual(pts["slow"]["x"], 0.5)
        self.assertEqual([l for l, p in pts.items() if p["frontier"]], ["glibc", "fair"])

    def test_lower_is_better_flips_the_ratio(self):
        runs = [measured("a", 10, 0.5), measured("b", 5, 0.5)]
        pts = frontier.points(plan_of(["a", "b"], lower_is_better=True), runs, None, "min_share")
        self.assertEqual([p["x"] for p in pts], [1.0, 2.0])

    def test_no_baseline_no_points(self):
        runs = [measured("a", 10, 0.5, ok=False), measured("b", 5, 0.5)]
        self.assertEqual(frontier.points(plan_of(["a", "b"]), runs, None, "min_share"), [])


if __name__ == "__main__":
    unittest.main()
