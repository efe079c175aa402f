#!/usr/bin/python3
"""paired.py FILE.csv - from a `lockswap ab --out` CSV of ab.sh's four arms:
per round, each library's summary over its own default, and summary after
over summary before; the median of those ratios and its 95% interval as
`lockswap ab` computes a paired one (scripts/lockswap_cli/stats.py: the
rounds resampled, numpy's generator, seed 1)."""
import csv
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts"))
from lockswap_cli import stats  # noqa: E402

rounds = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] == "ok":
        rounds.setdefault(r["round"], {})[r["backend"]] = float(r["value"])
B, A = "LIB=/tmp/before.so", "LIB=/tmp/after.so"
for name, base, other in (("before: summary over the default", f"slice:futex,{B}", f"slice:futex,STATS=summary,{B}"),
                          ("after: summary over the default", f"slice:futex,{A}", f"slice:futex,STATS=summary,{A}"),
                          ("summary, after over before", f"slice:futex,STATS=summary,{B}", f"slice:futex,STATS=summary,{A}")):
    ratios = [v[other] / v[base] for v in rounds.values() if base in v and other in v]
    low, high = stats.middle(stats.resampled_medians(np.asarray(ratios), np.random.default_rng(1)))
    print(f"{name}: {statistics.median(ratios):.3f} [{low:.3f}, {high:.3f}] ({len(ratios)} rounds)")
