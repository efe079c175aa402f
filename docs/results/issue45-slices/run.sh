#!/bin/bash
# Fairness at speed for every slice:* backend: issue 45's start (218b225) against now, glibc as baseline.
set -e
cd /work/main
arms=(-b glibc)
for inner in futex tts ticket mcs queued; do
  arms+=(-b "slice:$inner,LIB=/tmp/base45.so" -b "slice:$inner,LIB=/tmp/head45.so")
done
exec flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap sweep "${arms[@]}" \
  --threads 8,32 --runs 7 --warmup 1 --json-key throughput --extra-key min_share \
  --out /tmp/slices45/short -- build/bench/mutexbench --threads {threads} --cs-work 10 --ncs-work 10 --seconds 1 --json
