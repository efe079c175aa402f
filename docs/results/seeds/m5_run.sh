#!/usr/bin/env bash
# docs/results/seeds/m5_run.sh - docs/seeds.md row M5: the combining lock
# (lockswap_with over LOCKSWAP_COMBINING, build/bench/nativebench) with its
# waiting as it is (spin while the policy allows, then futex park), with
# every waiter parking at once (--spin 0), and with long polling before the
# park (--spin 1000000 polls: close to spinning only), interleaved: ROUNDS
# rounds, each running every variant once per thread count, the order
# rotated by one each round.  Each run is under /usr/bin/time for the
# process's voluntary context switches.  Writes OUT.jsonl (one line per run)
# and prints summary lines via m5_summary.py.
#   bash docs/results/seeds/m5_run.sh OUT   (env: ROUNDS=9 THREADS="2 8" DUR=0.5 WARMUP=0.2)
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${1:?usage: m5_run.sh OUT}
ROUNDS=${ROUNDS:-9} THREADS=${THREADS:-"2 8"} DUR=${DUR:-0.5} WARMUP=${WARMUP:-0.2}
NB=$ROOT/build/bench/nativebench
[ -x "$NB" ] || { echo "m5_run.sh: build first (make -j2 all)" >&2; exit 1; }
VARIANTS=(adaptive 0 1000000)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: >"$OUT.jsonl"
for ((r = 0; r < ROUNDS; r++)); do
	for t in $THREADS; do
		for ((k = 0; k < ${#VARIANTS[@]}; k++)); do
			v=${VARIANTS[$(((k + r) % ${#VARIANTS[@]}))]}
			line=$(/usr/bin/time -f '%w %c' -o "$TMP/time" "$NB" --lock combining --spin "$v" \
				--threads "$t" --seconds "$DUR" --warmup "$WARMUP" --json)
			read -r vol invol <"$TMP/time"
			printf '{"round": %d, "spin": "%s", "vol": %d, "invol": %d, "result": %s}\n' \
				"$r" "$v" "$vol" "$invol" "$line" >>"$OUT.jsonl"
		done
	done
done
/usr/bin/python3 "$ROOT/docs/results/seeds/m5_summary.py" "$OUT.jsonl"
