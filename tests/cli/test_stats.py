"""Bootstrap confidence interval of a ratio of medians, and verdicts."""
import unittest

import helpers  # noqa: F401
import numpy as np
from lockswap_cli import stats

BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 98.8]


def row(rows, label):
    return next(r for r in rows if r["backend"] == label)


class Verdicts(unittest.TestCase):
    def compare(self, other, lower_is_better=False, base=BASE):
        return stats.compare({"A": base, "B": other}, lower_is_better, seed=7)

    def test_clearly_faster(self):
        b = row(self.compare([v * 1.5 for v in BASE]), "B")
        self.assertGreater(b["ci_low"], 1.0)
        self.assertAlmostEqual(b["ratio"], 1.5, places=6)
        self.assertEqual(b["verdict"], "faster")

    def test_clearly_slower(self):
        b = row(self.compare([v * 0.6 for v in BASE]), "B")
        self.assertLess(b["ci_high"], 1.0)
        self.assertEqual(b["verdict"], "slower")

    def test_lower_is_better_turns_them_round(self):
        self.assertEqual(row(self.compare([v * 1.5 for v in BASE], True), "B")["verdict"], "slower")
        self.assertEqual(row(self.compare([v * 0.6 for v in BASE], True), "B")["verdict"], "faster")

    def test_identical_is_no_clear_difference(self):
        b = row(self.compare(list(BASE)), "B")
        self.assertLessEqual(b["ci_low"], 1.0)
        self.assertGreaterEqual(b["ci_high"], 1.0)
        self.assertEqual(b["verdict"], stats.NO_DIFFERENCE)
        const = row(self.compare([5.0] * 4, base=[5.0] * 4), "B")
        self.assertEqual(const["verdict"], stats.NO_DIFFERENCE)

    def test_overlapping_noise_is_no_clear_difference(self):
        rng = np.random.default_rng(1)
        a = list(100 + rng.normal(0, 10, 5))
        b = list(101 + rng.normal(0, 10, 5))
        self.assertEqual(row(stats.compare({"A": a, "B": b}, False, 3), "B")["verdict"],
                         stats.NO_DIFFERENCE)

    def test_baseline_row(self):
        a = row(self.compare([v * 2 for v in BASE]), "A")
        self.assertEqual((a["verdict"], a["ratio"], a["n"]), ("baseline", 1.0, len(BASE)))
        self.assertEqual(a["median"], float(np.median(BASE)))
        self.assertEqual((a["min"], a["max"]), (min(BASE), max(BASE)))

    def test_too_few_runs_give_no_verdict(self):
        rows = stats.compare({"A": BASE, "B": [150.0], "C": []}, False, 1)
        self.assertTrue(row(rows, "B")["verdict"].startswith("no verdict"))
        self.assertIsNone(row(rows, "B")["ci_low"])
        self.assertTrue(row(rows, "C")["verdict"].startswith("no verdict"))
        self.assertIsNone(row(rows, "C")["median"])
        rows = stats.compare({"A": [1.0], "B": BASE}, False, 1)
        self.assertTrue(row(rows, "A")["verdict"].startswith("no verdict"))
        self.assertTrue(row(rows, "B")["verdict"].startswith("no verdict"))

    def test_seeded_and_repeatable(self):
        other = [v * 1.01 for v in reversed(BASE)]
        self.assertEqual(self.compare(other), self.compare(other))

    def test_interval_uses_the_resamples(self):
        rng = np.random.default_rng(0)
        low, high = stats.ratio_ci([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], rng)
        self.assertLessEqual(low, 2.0)
        self.assertGreaterEqual(high, 2.0)
        self.assertGreater(high, low)


class Paired(unittest.TestCase):
    """stats.paired: the median of per-round ratios to the baseline."""

    def test_round_to_round_drift_cancels(self):
        # Every round twice as fast as the one before (load going away):
        # unpaired the ranges overlap; in each round B is A x 1.1.
        rounds = {i: {"A": 100.0 * 2 ** i, "B": 110.0 * 2 ** i} for i in range(7)}
        b = row(stats.paired(rounds, ["A", "B"], False, 5), "B")
        self.assertEqual(b["rounds"], 7)
        self.assertAlmostEqual(b["ratio"], 1.1, places=9)
        self.assertAlmostEqual(b["ci_low"], 1.1, places=9)
        self.assertAlmostEqual(b["ci_high"], 1.1, places=9)
        self.assertEqual(b["verdict"], "faster")
        unpaired = row(stats.compare({"A": [r["A"] for r in rounds.values()],
                                      "B": [r["B"] for r in rounds.values()]}, False, 5), "B")
        self.assertEqual(unpaired["verdict"], stats.NO_DIFFERENCE)

    def test_median_of_the_ratios_and_its_interval(self):
        ratios = [0.8, 0.9, 1.0, 1.2, 1.3]
        rounds = {i: {"A": 10.0, "B": 10.0 * q} for i, q in enumerate(ratios)}
        b = row(stats.paired(rounds, ["A", "B"], False, 1), "B")
        self.assertAlmostEqual(b["ratio"], 1.0, places=9)
        self.assertTrue(0.8 <= b["ci_low"] <= 1.0 <= b["ci_high"] <= 1.3)
        self.assertEqual(b["verdict"], stats.NO_DIFFERENCE)

    def test_lower_is_better_turns_the_verdict(self):
        rounds = {i: {"A": 2.0 + i, "B": (2.0 + i) * 0.5} for i in range(5)}
        self.assertEqual(row(stats.paired(rounds, ["A", "B"], True, 1), "B")["verdict"], "faster")
        self.assertEqual(row(stats.paired(rounds, ["A", "B"], False, 1), "B")["verdict"], "slower")

    def test_only_rounds_with_both_count(self):
        # Round 2 lost B's run, round 3 the baseline's, round 4's baseline is 0.
        rounds = {0: {"A": 10.0, "B": 20.0, "C": 5.0}, 1: {"A": 10.0, "B": 20.0, "C": 5.0},
                  2: {"A": 10.0, "C": 5.0}, 3: {"B": 1.0, "C": 5.0}, 4: {"A": 0.0, "B": 3.0}}
        rows = stats.paired(rounds, ["A", "B", "C"], False, 2)
        self.assertEqual([r["backend"] for r in rows], ["B", "C"])
        self.assertEqual((row(rows, "B")["rounds"], row(rows, "B")["ratio"]), (2, 2.0))
        self.assertEqual((row(rows, "C")["rounds"], row(rows, "C")["ratio"]), (3, 0.5))

    def test_too_few_rounds_give_no_verdict(self):
        rows = stats.paired({0: {"A": 1.0, "B": 2.0}, 1: {"A": 1.0}}, ["A", "B"], False, 1)
        self.assertEqual(rows[0]["verdict"], "no verdict: 1 round with both")
        self.assertIsNone(rows[0]["ratio"])
        self.assertIsNone(rows[0]["ci_low"])

    def test_seeded_and_repeatable(self):
        rounds = {i: {"A": 100.0 + i, "B": 103.0 - i} for i in range(9)}
        self.assertEqual(stats.paired(rounds, ["A", "B"], False, 4),
                         stats.paired(rounds, ["A", "B"], False, 4))


class TimesBetter(unittest.TestCase):
    def test_higher_is_better_is_kept(self):
        r = {"ratio": 2.0, "ci_low": 1.5, "ci_high": 2.5}
        self.assertEqual(stats.times_better(r, False), (2.0, 1.5, 2.5))

    def test_lower_is_better_is_inverted_interval_included(self):
        r = {"ratio": 0.5, "ci_low": 0.4, "ci_high": 0.8}
        self.assertEqual(stats.times_better(r, True), (2.0, 1.25, 2.5))

    def test_no_ratio_stays_none(self):
        r = {"ratio": None, "ci_low": None, "ci_high": None}
        self.assertEqual(stats.times_better(r, True), (None, None, None))


if __name__ == "__main__":
    unittest.main()
