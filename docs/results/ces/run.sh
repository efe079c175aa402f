#!/usr/bin/env bash
# docs/results/ces/run.sh - issue 37's 2-core rows: ces against futex (the
# baseline of every ratio) and glibc, interleaved by `lockswap ab`, paired
# by round.  Every arm runs with glibc.pthread.rseq=0 (the CLI sets it for a
# comparison that includes ces).  Then one LOCKSWAP_STATS=summary run of ces
# per case for the delegated share, batch sizes and hand-backs.
#   RUNS=9 SECS=0.3 bash docs/results/ces/run.sh [OUT]   (about 8 minutes)
set -u
cd "$(dirname "$0")/../../.."
OUT=${1:-docs/results/ces}
RUNS=${RUNS:-9}
SECS=${SECS:-0.3}
LS=(/usr/bin/python3 scripts/lockswap)
MB=build/bench/mutexbench
LDB=build/bench/leveldb_bench
B=(-b futex -b ces -b glibc)
mkdir -p "$OUT"
{ date -u; uname -r; nproc; uptime; } >"$OUT/machine.txt"

ab() { # name, ab args...
	local name=$1
	shift
	"${LS[@]}" ab "${B[@]}" --runs "$RUNS" --warmup 1 --timeout 120 --seed 37 --out "$OUT/$name" "$@" \
		>"$OUT/$name.txt" 2>&1 || echo "ab $name failed (see $OUT/$name.txt)" >&2
	uptime >>"$OUT/$name.txt"
}

profile() { # name, command...
	local name=$1
	shift
	GLIBC_TUNABLES=glibc.pthread.rseq=0 LOCKSWAP_BACKEND=ces LOCKSWAP_STATS=summary \
		LOCKSWAP_STATS_TOP=0 LOCKSWAP_STATS_FILE="$OUT/$name.stats.json" \
		LD_PRELOAD=$PWD/liblockswap.so "$@" >/dev/null 2>&1
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get("delegation", {}); print(sys.argv[2], json.dumps(d))' \
		"$OUT/$name.stats.json" "$name" >>"$OUT/delegation.txt"
}

: >"$OUT/delegation.txt"
for t in 2 8 32; do
	ab "short-${t}t" --json-key throughput --extra-key min_share --extra-key fair_10ms_min_share \
		--extra-key longest_stretch_max_us -- $MB --threads "$t" --seconds "$SECS" --json
	profile "short-${t}t" $MB --threads "$t" --seconds "$SECS"
	ab "moderate-${t}t" --json-key throughput --extra-key min_share -- \
		$MB --threads "$t" --cs-work 50 --ncs-work 400 --seconds "$SECS" --json
	profile "moderate-${t}t" $MB --threads "$t" --cs-work 50 --ncs-work 400 --seconds "$SECS"
done
ab condvar-8t --json-key throughput -- $MB --mode condvar --threads 8 --seconds "$SECS" --json
profile condvar-8t $MB --mode condvar --threads 8 --seconds "$SECS"
for t in 8 32; do
	ab "request-${t}t" --json-key request_p999_ns --lower-is-better --extra-key request_max_ns \
		--extra-key request_worst_thread_p99_ns -- \
		$MB --mode request --threads "$t" --cs-work 60 --ncs-work 18 --seconds "$SECS" --json
done
if [ -x $LDB ]; then
	for t in 8 32; do
		ab "leveldb-readrandom-${t}t" --json-key ops_per_sec --extra-key min_share -- \
			$LDB --benchmarks readrandom --threads "$t" --num 50000 --seconds "$SECS" --json
		profile "leveldb-readrandom-${t}t" $LDB --benchmarks readrandom --threads "$t" \
			--num 50000 --seconds "$SECS" --json
	done
fi
echo "done: $OUT"
