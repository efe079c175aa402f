#!/usr/bin/env bash
# scripts/manycore/wake.sh OUTDIR - issue 45: does waking the head before
# the hand-over (LOCKSWAP_SLICE_WAKE_US, core/wrap/slice.c call_head) pay
# where threads <= cores, the regime in which a hand-over to a parked thread
# (~7 us) decides a lock-bound run?  On the project's 2-vCPU VM it was within
# the noise (docs/results.md section 23), so it is off by default.
#
# Run from the repository root with liblockswap.so and build/bench/mutexbench
# built.  Writes into OUTDIR ab-CS-T.md/.json: the default against the default
# with LOCKSWAP_SLICE_WAKE_US=100, MutexBench's short (10/10) and shorter
# (4/20) sections at T threads, interleaved rounds (scripts/lockswap ab), and
# wake.md, the paired ratios in one table.
# Budget: under 90 s on 16 cores (2 sections x 3 thread counts x 2 arms x
# 6 rounds x ~0.6 s with start-up).
# LS_MANYCORE_QUICK=1: threads 2, 0.1 s, 2 rounds (to check that it runs).
set -eu
out=${1:?usage: bash scripts/manycore/wake.sh OUTDIR}
. "$(dirname "$0")/setup.sh"
manycore_setup wake.sh "$out" "4 8 16" 0.4 5
{
	echo "# Waking the head before the hand-over (LOCKSWAP_SLICE_WAKE_US=100 over the default)"
	echo
	echo "| section | threads | paired ratio [95% CI] | verdict |"
	echo "|---|---|---|---|"
} >"$out/wake.md"
for cs in "short 10 10" "shorter 4 20"; do
	set -- $cs
	for t in $threads; do
		"$py" scripts/lockswap ab -q --lib "$lib" -b slice:futex -b "slice:futex,SLICE_WAKE_US=100" \
			--runs "$runs" --warmup 1 --json-key throughput --out "$out/ab-$1-$t" -- \
			"$bench" --threads "$t" --cs-work "$2" --ncs-work "$3" --seconds "$secs" --json \
			>/dev/null
		"$py" - "$out/ab-$1-$t.json" "$1" "$t" >>"$out/wake.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [p for p in d.get("paired", []) if p.get("backend") != "slice:futex"]
for p in rows:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {p['ratio']:.3f} [{p['ci_low']:.3f}, {p['ci_high']:.3f}] | {p['verdict']} |")
if not rows:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | no paired result | |")
PY
	done
done
cat "$out/wake.md"
