"""The run schedule: rounds, shuffling, warm-ups, the seed."""
import random
import unittest

import helpers  # noqa: F401  (puts scripts/ on sys.path)
from lockswap_cli.campaign import plan
from lockswap_cli.settings import Variant

VARIANTS = [Variant("glibc"), Variant("futex"), Variant("futex,SPIN=0")]


def orders(runs):
    out = {}
    for r in runs:
        out.setdefault((r.group, r.warmup, r.round), []).append(r.backend)
    return out


class Plan(unittest.TestCase):
    def test_each_round_has_each_backend_once(self):
        runs = plan([None], VARIANTS, 6, 2, random.Random(1))
        self.assertEqual(len(runs), 3 * 8)
        by_round = orders(runs)
        self.assertEqual(len(by_round), 8)
        for order in by_round.values():
            self.assertEqual(sorted(order), sorted(v.label for v in VARIANTS))
        self.assertEqual([r.warmup for r in runs[:6]], [True] * 6)
        self.assertFalse(any(r.warmup for r in runs[6:]))
        self.assertEqual([r.round for r in runs[6:] if r.position == 1], [1, 2, 3, 4, 5, 6])

    def test_same_seed_same_plan_and_orders_vary(self):
        a = [r.backend for r in plan([None], VARIANTS, 10, 0, random.Random(42))]
        b = [r.backend for r in plan([None], VARIANTS, 10, 0, random.Random(42))]
        self.assertEqual(a, b)
        distinct = {tuple(o) for o in orders(plan([None], VARIANTS, 10, 0, random.Random(42))).values()}
        self.assertGreater(len(distinct), 1)

    def test_groups_run_one_after_another(self):
        runs = plan([1, 4], VARIANTS, 2, 1, random.Random(3))
        self.assertEqual([r.group for r in runs], [1] * 9 + [4] * 9)


if __name__ == "__main__":
    unittest.main()
