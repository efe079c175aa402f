#!/bin/bash
# Benchmark, not a test: the cost of LOCKSWAP_STATS on LevelDB readrandom
# and mutexbench at 8 threads (docs/stats.md has the results).  Runs the
# arms interleaved (A B C A B C ...) ROUNDS times and prints each arm's
# median throughput and its ratio to statistics off.
#   tests/stats/bench.sh [ROUNDS] [BACKEND...]      (default 7, futex glibc)
set -u
cd "$(dirname "$0")/../.." || exit 1
ROUNDS=${1:-7}
shift || true
BACKENDS=${*:-futex glibc}
LIB=$PWD/liblockswap.so
make -s liblockswap.so bench-bins >/dev/null || exit 1

run_arm() { # backend mode key cmd...
	local backend=$1 mode=$2 key=$3
	shift 3
	env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND="$backend" LOCKSWAP_STATS="$mode" \
	    LOCKSWAP_STATS_TOP=0 "$@" 2>/dev/null |
		/usr/bin/python3 -c "import json,sys; print(json.loads(sys.stdin.read().splitlines()[-1])['$key'])"
}

bench() { # name key cmd...
	local name=$1 key=$2
	shift 2
	for backend in $BACKENDS; do
		declare -A vals=()
		for r in $(seq "$ROUNDS"); do
			for mode in off summary full; do
				vals[$mode]+="$(run_arm "$backend" "$mode" "$key" "$@") "
			done
		done
		/usr/bin/python3 - "$name" "$backend" "${vals[off]}" "${vals[summary]}" "${vals[full]}" <<'PY'
import statistics, sys
name, backend, *arms = sys.argv[1:]
vals = [list(map(float, a.split())) for a in arms]
base = statistics.median(vals[0])
for mode, v in zip(("off", "summary", "full"), vals):
    m = statistics.median(v)
    print(f"{name:10} {backend:8} {mode:8} median {m:14.1f}  ratio {m / base:.3f}  "
          f"min {min(v):.1f} max {max(v):.1f} n={len(v)}")
PY
	done
}

bench leveldb ops_per_sec build/bench/leveldb_bench --benchmarks readrandom --threads 8 --seconds 1 --json
bench mutexbench throughput build/bench/mutexbench --threads 8 --seconds 1 --json
