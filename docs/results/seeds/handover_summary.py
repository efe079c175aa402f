"""handover_summary.py RUNS.jsonl - per thread count and backend, medians
over the rounds: throughput, its paired ratio to the same round's futex run
(median, min-max), min share, voluntary context switches per 1000
acquisitions (plain runs), and contended acquisitions and owner changes per
1000 acquisitions (the statistics runs)."""
import json
import sys
from collections import defaultdict

import numpy as np

runs = defaultdict(dict)          # (threads, backend) -> {round: record}
for line in open(sys.argv[1]):
    o = json.loads(line)
    runs[(o["threads"], o["backend"])][o["round"]] = o
print("| threads | backend | median ops/s | / futex, paired: median (min-max) | median min share "
      "| vol. switches / 1000 acq. | contended / 1000 acq. | owner changes / 1000 acq. |")
print("|---|---|---|---|---|---|---|---|")
for t in sorted({t for t, _ in runs}):
    base = runs[(t, "futex")]
    for b in ("glibc", "futex", "queued"):
        rs = runs[(t, b)]
        if not rs:
            continue
        p = [x["plain"] for x in rs.values()]
        s = [x["stats"] for x in rs.values()]
        if b == "futex":
            ratio = "1"
        else:
            r = [rs[k]["plain"]["throughput"] / base[k]["plain"]["throughput"]
                 for k in sorted(set(rs) & set(base))]
            ratio = "%.3f (%.3f-%.3f)" % (np.median(r), min(r), max(r))
        print("| %d | %s | %s | %s | %.4f | %.2f | %.1f | %.1f |" % (
            t, b, format(int(round(np.median([x["throughput"] for x in p]))), ","), ratio,
            np.median([x["min_share"] for x in p]),
            np.median([1000.0 * x["voluntary_switches"] / x["ops"] for x in p]),
            np.median([1000.0 * x["contended"] / x["acquisitions"] for x in s]),
            np.median([1000.0 * x["owner_changes"] / x["acquisitions"] for x in s])))
print()
print("%d rounds" % len({r for d in runs.values() for r in d}))
