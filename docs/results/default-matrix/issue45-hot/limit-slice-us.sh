#!/bin/bash
# MutexBench --limit under the default at LOCKSWAP_SLICE_US in $US (e.g. US="250 500 1000"), ROUNDS rounds, interleaved;
# prints "round section-threads us limit_ratio min_share". results.md section 21.
# limit.sh ROUNDS SLICE_US... : limit ratio + min share, shorter & short at 8 and 32 threads
R=$1; shift
cd /work/main
for r in $(seq $R); do
 for sec in "4 20" "10 10"; do set -- $sec; cs=$1; ncs=$2
  for t in 8 32; do
   for us in $US; do
    out=$(LOCKSWAP_SLICE_US=$us LD_PRELOAD=$PWD/liblockswap.so build/bench/mutexbench --json --limit --seconds 1 --threads $t --cs-work $cs --ncs-work $ncs 2>/dev/null)
    echo "$r cs$cs-t$t us$us $(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(round(d["limit_ratio"],3), round(d["min_share"],3))')"
   done
  done
 done
done
