#!/usr/bin/env bash
# docs/results/native/run.sh - the native API under contention (issue 38):
# bench/nativebench with --lock pthread under LD_PRELOAD futex (the baseline)
# and bare (glibc), and lockswap_with over bcs, bcs-wf and combining, at each
# thread count, ROUNDS interleaved rounds (the variants' order rotates each
# round), then summary.py: medians and paired per-round ratios to the baseline.
#   bash docs/results/native/run.sh [OUTDIR]    (env: ROUNDS, THREADS, DUR, WARMUP, CS, NCS)
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${1:-$ROOT/docs/results/native}
ROUNDS=${ROUNDS:-9} THREADS=${THREADS:-"2 8 32"} DUR=${DUR:-0.5}
WARMUP=${WARMUP:-0.2} CS=${CS:-10} NCS=${NCS:-10}
NB=$ROOT/build/bench/nativebench LIB=$ROOT/liblockswap.so
if [ ! -x "$NB" ] || [ ! -f "$LIB" ]; then echo "run.sh: build first (make -j2 all)" >&2; exit 1; fi
VARIANTS=(futex glibc bcs bcs-wf combining)
mkdir -p "$OUT"
RAW=$OUT/raw.jsonl
: >"$RAW"
{ date -u; uptime; } >"$OUT/uptime.txt"
for ((r = 0; r < ROUNDS; r++)); do
	for t in $THREADS; do
		for ((k = 0; k < ${#VARIANTS[@]}; k++)); do
			v=${VARIANTS[$(((k + r) % ${#VARIANTS[@]}))]}
			args=(--json --threads "$t" --seconds "$DUR" --warmup "$WARMUP" --cs-work "$CS" --ncs-work "$NCS")
			case $v in
			futex) line=$(env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND=futex "$NB" --lock pthread "${args[@]}") ;;
			glibc) line=$("$NB" --lock pthread "${args[@]}") ;;
			*) line=$("$NB" --lock "$v" "${args[@]}") ;;
			esac
			printf '{"round": %d, "variant": "%s", "result": %s}\n' "$r" "$v" "$line" >>"$RAW"
		done
	done
done
{ date -u; uptime; } >>"$OUT/uptime.txt"
/usr/bin/python3 "$ROOT/docs/results/native/summary.py" "$RAW" >"$OUT/summary.md"
cat "$OUT/summary.md"
