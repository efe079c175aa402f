#!/bin/bash
# hog.sh OUT: capacitor:tts against tts at threads = CPUs, without and then
# with one extra busy process competing for the CPUs (a stand-in for any
# other load: a preempted thread holding a ticket stalls its platoon).
# Run from the repository root after make; wrap in flock /work/bench.lock.
set -euo pipefail
out=$1
n=$(nproc)
python3 scripts/manycore/capacitor_sweep.py "$out/quiet" --threads "$n" --seconds 1 --rounds 3 \
	--sweeps 1 --interval-ms 5 >/dev/null
sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog' EXIT
python3 scripts/manycore/capacitor_sweep.py "$out/hog" --threads "$n" --seconds 1 --rounds 3 \
	--sweeps 1 --interval-ms 5 >/dev/null
