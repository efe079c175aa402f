#!/usr/bin/env python3
"""Run-to-run spread of tts, mcs, futex and their capacitors in two sweeps
already in the repository (the Capacitors text: the capacitor "acts to
reduce performance variance").  Reads each sweep's runs table; prints, per
thread count and backend, the number of runs, the coefficient of variation
(population stdev / mean) and max/min of throughput.
Usage: python3 docs/results/seeds/variance.py  (from the repository root)"""
import re
import statistics as st

SWEEPS = ["docs/results/readme-2core-0.3.0-quiet2.md", "docs/results/manycore/mutex-short.md"]
KEEP = ("tts", "capacitor:tts", "mcs", "capacitor:mcs", "futex", "capacitor:futex")
ROW = re.compile(r"\| (\d+) \| (\d+) \| (\d+) \| (\S+) \| ([\d,]+) \| ([\d.]+) \| ok")

for path in SWEEPS:
    runs = {}
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if m and m[4] in KEEP:
                runs.setdefault((int(m[1]), m[4]), []).append(int(m[5].replace(",", "")))
    print(path)
    print("threads backend runs cv max/min")
    for (threads, backend), v in sorted(runs.items()):
        print(threads, backend, len(v), "%.3f" % (st.pstdev(v) / st.mean(v)), "%.2f" % (max(v) / min(v)))
