#!/bin/bash
# capacitor.sh OUT - issue 38 part 3 on a many-core machine: capacitor:tts
# against tts at 16 threads (and 8, 32) in three separate interleaved sweeps,
# every run watched by the thread-state sampler (scripts/manycore/
# threadstates.py), so that a run that collapses below 0.5x tts has what
# each of its threads was doing on record.  Writes OUT/README.md (the table
# with the target, every run, the collapsed runs' per-thread states),
# OUT/runs.json and OUT/states/*.{md,json}.
# Run from the repository root after `make`; about 60-80 s on 16 cores
# (54 runs of 0.5 s).  LS_MANYCORE_QUICK=1: 2 threads, 0.1 s (a smoke test).
set -euo pipefail
if [ $# -ne 1 ]; then
	echo "usage: bash scripts/manycore/capacitor.sh OUTDIR" >&2
	exit 2
fi
out=$1
mkdir -p "$out"
here=$(dirname "$0")
{
	echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) CPUs"
	grep -m1 "model name" /proc/cpuinfo || true
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "uptime before: $(uptime)"
} > "$out/machine.txt"
timeout 145 python3 "$here/capacitor_sweep.py" "$out" --budget 115 || echo "capacitor_sweep.py failed or ran out of time (rc $?)" >&2
echo "uptime after: $(uptime)" >> "$out/machine.txt"
