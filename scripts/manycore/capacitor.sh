#!/bin/bash
# capacitor.sh OUT - issue 38 part 3 on a many-core machine: capacitor:tts
# against tts at 16 threads (and 15, 32, 8) in three separate interleaved
# sweeps, every run watched by the thread-state sampler (scripts/manycore/
# threadstates.py), so that a run that collapses below 0.5x tts has what
# each of its threads was doing on record.  Then one round at threads =
# CPUs with one extra busy process (a preempted ticket holder stalls its
# platoon: docs/seeds.md K5), and a round of a build whose waiters spin
# through 200 us stalls instead of 20 (OUT/stall200/).  Writes OUT/sweeps/README.md (the table with
# the target, every run, the collapsed runs' per-thread states),
# OUT/hog/README.md, runs.json and states/*.{md,json} under each,
# OUT/claims.md (K3, K11: capacitor_claims.c), OUT/wakelat.jsonl (futex
# wake-up latency, wakelat.c) and OUT/machine.txt.
# Run from the repository root after `make`; at most
# about 2.5 minutes (the sweeps start no run after 85 s; each later part is skipped
# once its share of the time is spent).
# LS_MANYCORE_QUICK=1: 2 threads, 0.1 s (a smoke test).
#
# Reading the futex addresses: [heap]@X is mutexbench's mutex, where
# capacitor:INNER keeps its word (the ticket semaphore sleeps on X itself)
# and the inner lock at X+8 (tts runs: the tts word at X);
# liblockswap.so:ls_twa_table is the TWA semaphore's waiting array, where
# capacitor waiters park by ticket.
set -euo pipefail
if [ $# -ne 1 ]; then
	echo "usage: bash scripts/manycore/capacitor.sh OUTDIR" >&2
	exit 2
fi
out=$1
mkdir -p "$out"
here=$(dirname "$0")
start=$SECONDS
n=$(nproc)
threads="16,15,32,8"
if [ "${LS_MANYCORE_QUICK:-}" = 1 ]; then
	threads=2
	n=2
fi
{
	echo "# $(date -u +%FT%TZ) $(uname -n), $n CPUs"
	grep -m1 "model name" /proc/cpuinfo || true
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "uptime before: $(uptime)"
} > "$out/machine.txt"
# A build of the library whose capacitor waiters keep spinning through
# stalls of up to 200 us instead of 20 (LS_CAP_STALL_NS, core/wrap/
# capacitor.c), built before the sweeps so that nothing compiles while they
# run: if wake-ups slower than 20 us keep a run collapsed, this one holds.
variant=$out/stall200-build
mkdir -p "$variant"
if cp -r Makefile preload.map include mk core backends native interpose stats "$variant/" \
	2> "$variant/build.txt" &&
	timeout 40 make -s -C "$variant" -j"$(nproc)" liblockswap.so \
		CFLAGS="-O2 -g -DLS_CAP_STALL_NS=200000" >> "$variant/build.txt" 2>&1; then
	stall_lib=$variant/liblockswap.so
else
	echo "the stall200 build failed (see $variant/build.txt)" >&2
	stall_lib=
fi
timeout 110 python3 "$here/capacitor_sweep.py" "$out/sweeps" --threads "$threads" --budget 85 ||
	echo "capacitor_sweep.py failed or ran out of time (rc $?)" >&2
echo "uptime after the sweeps: $(uptime)" >> "$out/machine.txt"
if [ -n "$stall_lib" ] && [ $((SECONDS - start)) -lt 100 ]; then
	timeout 25 python3 "$here/capacitor_sweep.py" "$out/stall200" --threads "${threads%%,*}" \
		--sweeps 1 --budget 12 --timeout 8 \
		--backends "tts;capacitor:tts;capacitor:tts,LIB=$stall_lib" ||
		echo "the stall200 sweep failed (rc $?)" >&2
fi
mkdir -p "$out/stall200"
cp "$variant/build.txt" "$out/stall200/build.txt" 2> /dev/null || true
rm -rf "$variant"
if [ $((SECONDS - start)) -lt 115 ]; then
	sh -c 'while :; do :; done' &
	hog=$!
	timeout 20 python3 "$here/capacitor_sweep.py" "$out/hog" --threads "$n" --sweeps 1 \
		--rounds 1 --budget 8 --timeout 8 ||
		echo "hog round failed (rc $?)" >&2
	kill "$hog"
	echo "hog round: one busy process beside $n threads on $n CPUs" >> "$out/machine.txt"
fi
# K3 / K11 (docs/seeds.md): overtakes and closed-platoon arrivals, counted
# on the capacitor driven directly (0.5 s a run, then its analysis).
claims=(16:4 16:10 32:4 "$n":4 2:4 3:4)
wakes=2000
claim_s=0.5
[ "${LS_MANYCORE_QUICK:-}" = 1 ] && claims=(2:4 4:2) && wakes=100 && claim_s=0.05
if cc -O2 -std=c11 -D_GNU_SOURCE -o "$out/capacitor_claims" "$here/capacitor_claims.c" \
	liblockswap-core.a -lpthread 2> "$out/claims.build.txt"; then
	: > "$out/claims.jsonl"
	for inner in tts futex; do
		for tb in "${claims[@]}"; do
			[ $((SECONDS - start)) -lt 130 ] || { echo "claims $inner $tb: no time left" >&2; continue; }
			timeout 5 "$out/capacitor_claims" "$inner" "${tb%:*}" "${tb#*:}" 10 10 "$claim_s" \
				>> "$out/claims.jsonl" || echo "claims $inner $tb failed" >&2
		done
	done
	python3 "$here/claims_table.py" "$out/claims.jsonl" > "$out/claims.md"
	rm -f "$out/capacitor_claims"
else
	echo "capacitor_claims.c did not build (see $out/claims.build.txt)" >&2
fi
# The wake-up latency against the capacitor's 20 us stall bound (wakelat.c).
if cc -O2 -std=c11 -D_GNU_SOURCE -o "$out/wakelat" "$here/wakelat.c" -lpthread \
	2> "$out/wakelat.build.txt"; then
	for gap in 200 0; do
		[ $((SECONDS - start)) -lt 138 ] || { echo "wakelat $gap: no time left" >&2; continue; }
		timeout 5 "$out/wakelat" "$wakes" "$gap" >> "$out/wakelat.jsonl" || echo "wakelat failed" >&2
	done
	rm -f "$out/wakelat"
fi
echo "uptime after: $(uptime)" >> "$out/machine.txt"
