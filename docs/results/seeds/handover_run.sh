#!/usr/bin/env bash
# docs/results/seeds/handover_run.sh - docs/seeds.md rows Q5 and Q6: why the
# queued mutex is slower than the 3-state futex lock and no fairer, counted
# rather than timed.  MutexBench short CS under LOCKSWAP_BACKEND glibc, futex
# and queued, ROUNDS interleaved rounds (the backends' order rotated each
# round); each round runs every backend twice per thread count:
#   plain: throughput, min share, voluntary context switches in the window
#          (getrusage, whole process) per 1000 acquisitions;
#   stats: the same run under LOCKSWAP_STATS=summary, for the exact counts of
#          the lock's contended acquisitions and owner changes (hand-overs
#          from one thread to another) per 1000 acquisitions (its timing is
#          not used: statistics cost time).
# Writes OUT.jsonl and prints handover_summary.py's table.
#   bash docs/results/seeds/handover_run.sh OUT   (env: ROUNDS=5 THREADS="8 32" DUR=0.5)
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${1:?usage: handover_run.sh OUT}
ROUNDS=${ROUNDS:-5} THREADS=${THREADS:-"8 32"} DUR=${DUR:-0.5}
MB=$ROOT/build/bench/mutexbench LIB=$ROOT/liblockswap.so
if [ ! -x "$MB" ] || [ ! -f "$LIB" ]; then echo "handover_run.sh: build first (make -j2 all)" >&2; exit 1; fi
BACKENDS=(glibc futex queued)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: >"$OUT.jsonl"
for ((r = 0; r < ROUNDS; r++)); do
	for t in $THREADS; do
		for ((k = 0; k < ${#BACKENDS[@]}; k++)); do
			b=${BACKENDS[$(((k + r) % ${#BACKENDS[@]}))]}
			args=(--threads "$t" --seconds "$DUR" --cs-work 10 --ncs-work 10 --json)
			plain=$(env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND="$b" "$MB" "${args[@]}")
			env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND="$b" LOCKSWAP_STATS=summary \
				LOCKSWAP_STATS_FILE="$TMP/stats.json" "$MB" "${args[@]}" >/dev/null 2>&1
			counts=$(/usr/bin/python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
m = max((l for l in o["locks"] if l["type"] == "mutex"), key=lambda l: l["acquisitions"])
print(json.dumps({k: m[k] for k in ("acquisitions", "contended", "owner_changes")}))' "$TMP/stats.json")
			printf '{"round": %d, "backend": "%s", "threads": %d, "plain": %s, "stats": %s}\n' \
				"$r" "$b" "$t" "$plain" "$counts" >>"$OUT.jsonl"
		done
	done
done
/usr/bin/python3 "$ROOT/docs/results/seeds/handover_summary.py" "$OUT.jsonl"
