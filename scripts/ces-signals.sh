#!/usr/bin/env bash
# ces-signals.sh - issue 44's 2-core measurements: ces against futex after
# the signal routing and the go-home table (MutexBench's short section at
# 2, 8 and 32 threads, RUNS interleaved rounds, paired by round; a third arm
# runs ces with the hang watchdog off, LOCKSWAP_HANG_MS=0, to show what the
# watchdog that ces turns on by default costs), what a context switch and
# the signal work cost per call (build/bench/ces_costs), and how many
# sections ran delegated (the statistics' summary).
#
#   bash scripts/ces-signals.sh [OUT]        default OUT: out/ces-signals
#   RUNS=9 DUR=1 THREADS="2 8 32"
#
# Raw files in OUT: machine.txt, mutexbench-T.{txt,json,csv} (lockswap ab),
# ces_costs.txt, delegation-T.txt.  docs/results.md section 18 quotes them.
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-out/ces-signals}
RUNS=${RUNS:-9}
DUR=${DUR:-1}
read -r -a THREADS <<<"${THREADS:-2 8 32}"
PY=${PY:-/usr/bin/python3}
make -s liblockswap.so build/bench/mutexbench build/bench/ces_costs >/dev/null
mkdir -p "$OUT"
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.pthread.rseq=0"
bash scripts/machine-info.sh "load before" >"$OUT/machine.txt"
for t in "${THREADS[@]}"; do
	"$PY" scripts/lockswap ab -b futex -b ces -b ces,HANG_MS=0 --runs "$RUNS" --warmup 1 --json-key throughput \
		--extra-key min_share --out "$OUT/mutexbench-$t" -- \
		build/bench/mutexbench --threads "$t" --seconds "$DUR" --cs-work 10 --ncs-work 10 --json \
		>"$OUT/mutexbench-$t.txt" 2>&1
	LOCKSWAP_BACKEND=ces LOCKSWAP_STATS=summary LD_PRELOAD=$PWD/liblockswap.so \
		build/bench/mutexbench --threads "$t" --seconds "$DUR" --cs-work 10 --ncs-work 10 \
		2>&1 >/dev/null | grep -E 'delegation:' >"$OUT/delegation-$t.txt" || true
done
build/bench/ces_costs >"$OUT/ces_costs.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
echo "wrote $OUT"
