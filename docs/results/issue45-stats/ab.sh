#!/bin/bash
# ab.sh - MutexBench at 1 thread, the default and summary, before
# (/tmp/before.so: 06d2c99's liblockswap.so) and after (/tmp/after.so: this
# change's), interleaved; paired.py then takes each library's summary over
# its own default, round by round.  RUNS, SECS, OUT as used in docs/results.md 22.
cd "$(dirname "$0")/../../.."
uptime
flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q \
  -b "slice:futex,LIB=/tmp/before.so" -b "slice:futex,STATS=summary,LIB=/tmp/before.so" \
  -b "slice:futex,LIB=/tmp/after.so" -b "slice:futex,STATS=summary,LIB=/tmp/after.so" \
  --runs ${RUNS:-11} --warmup 1 --json-key throughput --out ${OUT:-/tmp/stats-ab} -- \
  build/bench/mutexbench --threads 1 --seconds ${SECS:-1} --json
uptime
