#!/bin/bash
# How the files beside this one were made (docs/results.md section 23): the
# default with LOCKSWAP_SLICE_WAKE_US=0 against 100, interleaved rounds, on
# the 2-vCPU AMD EPYC VM.  They were made while the library's default was
# still 100, so there the arm named plain `slice:futex` is SLICE_WAKE_US=100;
# today's default is 0, and this script names both values.
#   bash docs/results/default-matrix/issue45-wake/run.sh [OUT]
cd "$(dirname "$0")/../../../.."
O=${1:-/tmp/issue45-wake}; mkdir -p "$O"
A=(-b "slice:futex,SLICE_WAKE_US=0" -b "slice:futex,SLICE_WAKE_US=100")
for th in 2 8 32; do
	/usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs 11 --warmup 1 --json-key throughput \
		--out "$O/mb-$th-4" -- build/bench/mutexbench --threads $th --cs-work 4 --ncs-work 20 --seconds 1 --json
done
/usr/bin/python3 scripts/lockswap ab -q -b glibc "${A[@]}" --runs 11 --warmup 1 \
	--metric 'total number of events: *([0-9]+)' --out "$O/sysbench" -- sysbench threads --threads=8 --time=1 run
