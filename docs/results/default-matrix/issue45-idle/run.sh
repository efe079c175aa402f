#!/bin/bash
# How the files beside this one were made (docs/results.md section 23): the
# library with LS_SLICE_IDLE_FACTOR 8 (ls-idle8.so) against the same source
# built with 16 (ls-idle16.so), interleaved rounds on the 2-vCPU AMD EPYC VM.
# To redo it, build the two from one commit, changing only
# LS_SLICE_IDLE_FACTOR in core/wrap/slice.h, and name them:
#   OLD=/path/8.so NEW=/path/16.so bash docs/results/default-matrix/issue45-idle/run.sh [OUT]
cd "$(dirname "$0")/../../../.."
O=${1:-/tmp/issue45-idle}; mkdir -p "$O"
A=(-b "slice:futex,LIB=$OLD" -b "slice:futex,LIB=$NEW")
for th in 8 32; do
	/usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs 11 --warmup 1 --json-key throughput \
		--out "$O/mb-$th-4" -- build/bench/mutexbench --threads $th --cs-work 4 --ncs-work 20 --seconds 1 --json
done
for n in 11 21; do
	/usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $n --warmup 1 --json-key ops_per_sec \
		--out "$O/leveldb-read$([ $n = 21 ] && echo -21)" -- \
		build/bench/leveldb_bench --benchmarks readrandom --threads 8 --num 100000 --seconds 1 --json
done
/usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs 11 --warmup 1 --metric 'seconds: ([0-9.]+)' \
	--lower-is-better --out "$O/node" -- bash bench/apps/everyday.sh node 8
