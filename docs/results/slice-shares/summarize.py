#!/usr/bin/env python3
"""Summarises raw.jsonl (written by run.sh, beside this file): per thread
count and configuration, medians over the rounds of
  - throughput over glibc's in the same round,
  - the niced threads' mean hold time over the others' (CFS weights give
    1/1.953 = 0.512 for 3 nice steps),
  - the weighted min share: min over threads of hold / weight, over the
    mean of hold / weight (1 = every thread got its weight's part),
  - the plain hold min share (hold / mean hold)."""
import json, statistics, sys
from collections import defaultdict

rows = [json.loads(l) for l in open(sys.argv[1] if len(sys.argv) > 1 else "raw.jsonl")]
glibc = {(r["round"], r["result"]["threads"]): r["result"]["throughput"]
         for r in rows if r["config"] == "glibc"}
acc = defaultdict(lambda: defaultdict(list))
for r in rows:
    o = r["result"]
    n, h, nice = o["threads"], o["per_thread_hold"], o["per_thread_nice"]
    low = min(nice)
    w = [1.25 ** -(k - low) for k in nice]
    per_w = [x / y for x, y in zip(h, w)]
    a = [x for x, k in zip(h, nice) if k == low]
    b = [x for x, k in zip(h, nice) if k != low]
    key = acc[(n, r["config"])]
    key["tput"].append(o["throughput"] / glibc[(r["round"], n)])
    key["ratio"].append(statistics.mean(b) / statistics.mean(a))
    key["wmin"].append(min(per_w) / statistics.mean(per_w))
    key["hmin"].append(min(h) / statistics.mean(h))
print("| threads | config | throughput / glibc | niced / others, hold | weighted min share | hold min share |")
print("|---|---|---|---|---|---|")
for (n, cfg), k in sorted(acc.items()):
    med = {m: statistics.median(v) for m, v in k.items()}
    print("| %d | %s | %.2f | %.3f | %.2f | %.2f |" % (n, cfg, med["tput"], med["ratio"], med["wmin"], med["hmin"]))
