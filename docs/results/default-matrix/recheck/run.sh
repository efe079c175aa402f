#!/usr/bin/env bash
# run.sh - two measurements of docs/results.md section 17 whose first runs
# kept no raw file, run again with their files kept (issue 47):
#   condvar-{8,32}t.*  the slice condvar fix: glibc, slice:futex built
#                      before the fix (OLD_LIB, commit 358d15b) and as now,
#                      in the same interleaved rounds
#   leveldb-split.*    what slices cost LevelDB readrandom: glibc, futex,
#                      slice:futex, slices made never to pay
#                      (SLICE_BUSY=off,SLICE_GAP_NS=0) and SLICE_BUSY=off
#
#   OLD_LIB=/path/liblockswap.so bash docs/results/default-matrix/recheck/run.sh
# from the built repository root, under the bench lock.
set -eu
out=$(cd "$(dirname "$0")" && pwd)
: "${OLD_LIB:?set OLD_LIB to liblockswap.so built at 358d15b}"
L=(/usr/bin/python3 scripts/lockswap)
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	uname -r
	nproc
	grep -m1 'model name' /proc/cpuinfo
	git log -1 --format='lockswap: %h'
	uptime
} >"$out/machine.txt"
for t in 8 32; do
	"${L[@]}" ab -b glibc -b "slice:futex,LIB=$OLD_LIB" -b slice:futex --runs 7 --warmup 1 \
		--timeout 120 --json-key throughput --extra-key min_share -q --out "$out/condvar-${t}t" -- \
		build/bench/mutexbench --mode condvar --threads "$t" --seconds 0.5 --json \
		>"$out/condvar-${t}t.txt"
	uptime >>"$out/condvar-${t}t.txt"
done
"${L[@]}" ab -b glibc -b futex -b slice:futex -b slice:futex,SLICE_BUSY=off,SLICE_GAP_NS=0 \
	-b slice:futex,SLICE_BUSY=off --runs 7 --warmup 1 --timeout 120 --json-key ops_per_sec \
	--extra-key min_share -q --out "$out/leveldb-split" -- \
	build/bench/leveldb_bench --benchmarks readrandom --threads 8 --num 100000 --seconds 1 --json \
	>"$out/leveldb-split.txt"
uptime >>"$out/leveldb-split.txt"
