#!/bin/bash
# How much MutexBench's throughput depends on its critical section's length,
# next to what statistics in summary mode cost it: in each round, in a
# shuffled order, futex with statistics off at --cs-work 10 (the default),
# 11 and 12, and with LOCKSWAP_STATS=summary at 10.  One line per run:
# "round config ops_per_sec".  Summarise with cs-steps-summary.py.
#
#   THREADS=8 ROUNDS=25 bash docs/results/issue17-thirteenth/cs-steps.sh > t8.txt
set -euo pipefail
cd "$(dirname "$0")/../../.."
THREADS=${THREADS:-8} ROUNDS=${ROUNDS:-25} SECONDS_PER_RUN=${SECONDS_PER_RUN:-0.4}
for r in $(seq 1 "$ROUNDS"); do
	for c in $(printf 'off10\noff11\noff12\nsummary10\n' | shuf); do
		env=(LD_PRELOAD="$PWD/liblockswap.so" LOCKSWAP_BACKEND=futex)
		case $c in summary*) env+=(LOCKSWAP_STATS=summary LOCKSWAP_STATS_TOP=0) ;; esac
		tp=$(env "${env[@]}" build/bench/mutexbench --threads "$THREADS" --seconds "$SECONDS_PER_RUN" \
			--cs-work "${c//[a-z]/}" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["throughput"])')
		echo "$r $c $tp"
	done
done
