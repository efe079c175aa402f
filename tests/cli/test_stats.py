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


if __name__ == "__main__":
    unittest.main()
