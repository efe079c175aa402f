"""summary.py RAW.jsonl - per thread count and variant: median throughput and
min share over the rounds, and the median (min-max) of the per-round ratio to
the futex baseline of the same round, and the median fraction of sections
that ran on another thread than their caller's; plus combining / bcs paired."""
import json
import sys
from collections import defaultdict

import numpy as np

runs = defaultdict(dict)          # (threads, variant) -> {round: result}
for line in open(sys.argv[1]):
    o = json.loads(line)
    runs[(o["result"]["threads"], o["variant"])][o["round"]] = o["result"]
variants = ["futex", "glibc", "bcs", "bcs-wf", "combining"]
threads = sorted({t for t, _ in runs})


def paired(t, num, den, key="throughput"):
    a, b = runs[(t, num)], runs[(t, den)]
    r = [a[k][key] / b[k][key] for k in sorted(set(a) & set(b))]
    return "%.3f (%.3f-%.3f)" % (np.median(r), min(r), max(r))


print("| threads | variant | median ops/s | median min share | / futex, paired: median (min-max) | delegated |")
print("|---|---|---|---|---|---|")
for t in threads:
    for v in variants:
        rs = list(runs[(t, v)].values())
        if not rs:
            continue
        thr = np.median([x["throughput"] for x in rs])
        ms = np.median([x["min_share"] for x in rs])
        ratio = "1" if v == "futex" else paired(t, v, "futex")
        dl = np.median([x["delegated"] / x["total_ops"] for x in rs])
        print("| %d | %s | %s | %.4f | %s | %.3f |" % (t, v, format(int(round(thr)), ","), ms, ratio, dl))
print()
print("| threads | combining / bcs, paired | bcs-wf / bcs, paired | bcs / glibc, paired |")
print("|---|---|---|---|")
for t in threads:
    print("| %d | %s | %s | %s |" % (t, paired(t, "combining", "bcs"), paired(t, "bcs-wf", "bcs"),
                                    paired(t, "bcs", "glibc")))
rounds = len({r for d in runs.values() for r in d})
print()
print("%d rounds; every run's exclusion check held: %s" % (
    rounds, all(x["exclusive"] for d in runs.values() for x in d.values())))
