#!/bin/bash
# Interleaved rounds: glibc, futex, slice (equal), slice (nice); MutexBench short CS with
# --nice 0,3 (half the threads niced 3 steps: CFS weight 1/1.953) by default;
# MB_ARGS replaces those arguments (they must include a --nice).
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/results/slice-shares/raw.jsonl}
MB_ARGS=${MB_ARGS:---nice 0,3}
: > $OUT
for r in $(seq 1 7); do
 for T in 8 32; do
  for cfg in glibc futex slice slice,SLICE_SHARES=nice; do
   b=${cfg%%,*}; extra=""; [ "$cfg" != "$b" ] && extra="LOCKSWAP_${cfg#*,}"
   line=$(env LD_PRELOAD=$PWD/liblockswap.so LOCKSWAP_BACKEND=$b $extra build/bench/mutexbench --json --seconds 1 --threads $T $MB_ARGS)
   echo "{\"round\":$r,\"config\":\"$cfg\",\"result\":$line}" >> $OUT
  done
 done
done
