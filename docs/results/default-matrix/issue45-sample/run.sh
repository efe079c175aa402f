#!/bin/bash
# How the files beside this one were made (docs/results.md section 23): the
# library at LS_SLICE_SAMPLE_EVERY 16 (ls-base.so) against the same source
# built with 64 (ls-se64.so; first/: also 32), interleaved rounds on the
# 2-vCPU AMD EPYC VM.  To redo it, build the two libraries from one commit,
# changing only LS_SLICE_SAMPLE_EVERY in core/wrap/slice.h, and name them:
#   BASE=/path/16.so NEW=/path/64.so bash docs/results/default-matrix/issue45-sample/run.sh [OUT]
cd "$(dirname "$0")/../../../.."
O=${1:-/tmp/issue45-sample}; mkdir -p "$O"
for cfg in "8 4 20" "32 4 20" "8 10 10" "32 10 10"; do
	set -- $cfg
	/usr/bin/python3 scripts/lockswap ab -q -b "slice:futex,LIB=$BASE" -b "slice:futex,LIB=$NEW" \
		--runs 15 --warmup 1 --json-key throughput --out "$O/mb-$1-$2" -- \
		build/bench/mutexbench --threads $1 --cs-work $2 --ncs-work $3 --seconds 1 --json
done
