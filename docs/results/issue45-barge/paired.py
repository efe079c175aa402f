#!/usr/bin/python3
"""Paired throughput ratios of the limit rows: each arm over the library
before the change, per round (default-matrix.sh runs every arm once per
round, so the i-th run of each arm is the same round), median and 95%
interval by bootstrap over rounds (2000 resamples, seed 1).

    /usr/bin/python3 paired.py MATRIX_OUT_DIR BASE_TAG > paired-NAME.txt
"""
import glob
import json
import os
import random
import statistics
import sys

out, base = sys.argv[1], sys.argv[2]
for path in sorted(glob.glob(os.path.join(out, "limit", f"*-{base}.json"))):
    row = os.path.basename(path)[:-len(f"-{base}.json")]
    b = json.load(open(path))["runs"]
    for other in sorted(glob.glob(os.path.join(out, "limit", f"{row}-slice_futex-*.json"))):
        tag = os.path.basename(other)[len(row) + 1:-len(".json")]
        if tag == base:
            continue
        t = json.load(open(other))["runs"]
        r = [x["throughput"] / y["throughput"] for x, y in zip(t, b)]
        rng = random.Random(1)
        meds = sorted(statistics.median(rng.choices(r, k=len(r))) for _ in range(2000))
        print(f"{row} {tag} over {base}, {len(r)} rounds: "
              f"{statistics.median(r):.3f} [{meds[50]:.3f}, {meds[1949]:.3f}]")
