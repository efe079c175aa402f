"""native_rounds.py RUNS.jsonl BASELINE - the tables of scripts/manycore/seeds.sh's
nativebench rounds: per phase (steady, start-up) and variant, the median
throughput, the median (min-max) of each round's throughput over the same
round's BASELINE run, the median min share, and the fraction of sections
run on another thread than their caller's."""
import json
import sys
from collections import defaultdict
from statistics import median

path, baseline = sys.argv[1], sys.argv[2]
runs = defaultdict(dict)          # (phase, variant) -> {round: result}
order = []
for line in open(path):
    o = json.loads(line)
    key = (o["phase"], o["variant"])
    if key not in runs:
        order.append(key)
    runs[key][o["round"]] = o["result"]
for phase in dict.fromkeys(p for p, _ in order):
    print("%s:\n" % phase)
    print("| variant | median calls/s | / %s, paired: median (min-max) | median min share | delegated |" % baseline)
    print("|---|---|---|---|---|")
    base = runs.get((phase, baseline), {})
    for p, v in order:
        if p != phase:
            continue
        rs = runs[(p, v)]
        r = [rs[k]["throughput"] / base[k]["throughput"]
             for k in sorted(set(rs) & set(base)) if base[k]["throughput"] > 0]
        ratio = "1" if v == baseline else ("%.3f (%.3f-%.3f)" % (median(r), min(r), max(r)) if r else "-")
        print("| %s | %s | %s | %.4f | %.3f |" % (
            v, format(int(round(median(x["throughput"] for x in rs.values()))), ","), ratio,
            median(x["min_share"] for x in rs.values()),
            median(x["delegated"] / max(x["total_ops"], 1) for x in rs.values())))
    print()
excl = all(x["exclusive"] for d in runs.values() for x in d.values())
print("every run's exclusion check held: %s" % excl)
