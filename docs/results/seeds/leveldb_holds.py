#!/usr/bin/env python3
"""Hold times of LevelDB readrandom's mutexes from a LOCKSWAP_STATS=full JSON
(every hold timed): the share of holds under 1 us (log2 buckets below 2^10 ns)
and the bucket holding the median, summed over every mutex of the process.
The Combine-and-Exchange text: 95% of LevelDB's critical sections are shorter
than 1 us, the median below 350 ns.
Usage: python3 docs/results/seeds/leveldb_holds.py FILE.json"""
import json
import sys

stats = json.load(open(sys.argv[1]))
total = [0] * stats["histogram"]["buckets"]
mutexes = 0
for lock in stats["locks"]:
    if lock["type"] != "mutex" or not lock["hold"]["samples"]:
        continue
    mutexes += 1
    for b, n in enumerate(lock["hold"]["hist"]):
        total[b] += n
holds = sum(total)
under_1us = sum(total[:10])  # buckets 0..9 cover [0, 1024) ns
print("mutexes with holds: %d, holds: %d" % (mutexes, holds))
print("holds under 1024 ns: %d (%.2f%%)" % (under_1us, 100.0 * under_1us / holds))
seen = 0
for b, n in enumerate(total):
    seen += n
    if seen * 2 >= holds:
        print("median hold in bucket [%d, %d) ns" % (0 if b == 0 else 2 ** b, 2 ** (b + 1)))
        break
