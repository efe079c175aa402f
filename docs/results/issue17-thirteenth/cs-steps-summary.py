#!/usr/bin/env python3
"""Per-round ratios of cs-steps.sh's output to the round's off10 run: median
and the 95% bootstrap CI of the median (2000 resamples of the rounds)."""
import random
import statistics
import sys
from collections import defaultdict

runs = defaultdict(dict)
for line in open(sys.argv[1]):
    rnd, config, ops = line.split()
    runs[rnd][config] = float(ops)
rounds = [r for r in runs.values() if 'off10' in r]
rng = random.Random(1)
print(f"{len(rounds)} rounds; off10 median {statistics.median(r['off10'] for r in rounds) / 1e6:.2f} M ops/s")
for config in ('off11', 'off12', 'summary10'):
    ratios = [r[config] / r['off10'] for r in rounds if config in r]
    boot = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    print(f"{config:>9} / off10: {statistics.median(ratios):.3f} [{boot[50]:.3f}, {boot[1949]:.3f}]")
