#!/usr/bin/python3
"""paired-ratio.py CSV BASE OTHER - the per-round ratio OTHER / BASE of a
`lockswap ab --out PREFIX` run (PREFIX.csv), its median and a 95% bootstrap
confidence interval of that median.

Each round of `lockswap ab` runs every backend once, back to back, so the
ratio within a round cancels most of the load that other jobs put on a
shared machine; the tool's own ratio of medians pools the runs unpaired.
`lockswap ab` now prints this comparison itself ("paired by round", and
`paired` in PREFIX.json); this script stays for the CSV files of earlier
runs, and gives the intervals quoted with them (its resampling draws from
Python's generator, the tool's from numpy's, so the bounds differ a little).
"""
import csv
import random
import statistics
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, base, other = argv[1:]
    rounds = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["status"] == "ok":
                rounds.setdefault(row["round"], {})[row["backend"]] = float(row["value"])
    ratios = [r[other] / r[base] for r in rounds.values() if base in r and other in r]
    if len(ratios) < 2:
        print(f"paired-ratio: fewer than 2 rounds with both {base!r} and {other!r}", file=sys.stderr)
        return 1
    rng = random.Random(1)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    print(f"rounds {len(ratios)}  paired median ratio {statistics.median(ratios):.3f}  "
          f"95% CI [{medians[50]:.3f}, {medians[1949]:.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
