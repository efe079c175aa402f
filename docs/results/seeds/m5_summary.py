"""m5_summary.py RUNS.jsonl - per thread count and spin setting: median
throughput, min share, delegated fraction and voluntary context switches per
1000 calls (whole process, whole run: vol / total_ops), and the median
(min-max) of each round's throughput over the same round's adaptive run."""
import json
import sys
from collections import defaultdict

import numpy as np

runs = defaultdict(dict)          # (threads, spin) -> {round: record}
for line in open(sys.argv[1]):
    o = json.loads(line)
    runs[(o["result"]["threads"], o["spin"])][o["round"]] = o
spins = ["adaptive", "0", "1000000"]
names = {"adaptive": "adaptive (spin, then park)", "0": "0 (park at once)",
         "1000000": "1000000 polls (spin, rarely park)"}
print("| threads | --spin | median calls/s | / adaptive, paired: median (min-max) "
      "| median min share | delegated | vol. switches / 1000 calls |")
print("|---|---|---|---|---|---|---|")
for t in sorted({t for t, _ in runs}):
    base = runs[(t, "adaptive")]
    for s in spins:
        rs = runs[(t, s)]
        if not rs:
            continue
        thr = np.median([x["result"]["throughput"] for x in rs.values()])
        if s == "adaptive":
            ratio = "1"
        else:
            r = [rs[k]["result"]["throughput"] / base[k]["result"]["throughput"]
                 for k in sorted(set(rs) & set(base))]
            ratio = "%.3f (%.3f-%.3f)" % (np.median(r), min(r), max(r))
        ms = np.median([x["result"]["min_share"] for x in rs.values()])
        dl = np.median([x["result"]["delegated"] / x["result"]["total_ops"] for x in rs.values()])
        sw = np.median([1000.0 * x["vol"] / x["result"]["total_ops"] for x in rs.values()])
        print("| %d | %s | %s | %s | %.4f | %.3f | %.3f |" % (
            t, names[s], format(int(round(thr)), ","), ratio, ms, dl, sw))
rounds = len({r for d in runs.values() for r in d})
print()
print("%d rounds; every run's exclusion check held: %s" % (
    rounds, all(x["result"]["exclusive"] for d in runs.values() for x in d.values())))
