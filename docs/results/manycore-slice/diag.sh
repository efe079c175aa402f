#!/bin/bash
# Issue 16, 16 cores: why slice's min share is 0.82-0.89 there; the capacitor's B.
# Run on the lent machine from the repository root: bash diag.sh OUTDIR.
# .devlib/dbg.so is liblockswap.so built with traced() in core/wrap/slice.c
# counting every event in an atomic array and printing the counts ("DBG ...")
# to stderr at exit; not in the repository (a measurement build).
MB=build/bench/mutexbench
O=$1; mkdir -p $O
export LD_PRELOAD=$PWD/liblockswap.so
# A: each CPU's speed, one thread pinned, glibc's own mutex (pass-through)
for pass in 1 2; do for c in $(seq 0 15); do
  echo "cpu $c pass $pass $(LOCKSWAP_BACKEND=glibc taskset -c $c $MB --threads 1 --seconds 0.2 --warmup 0.05 --json)"
done; done > $O/percpu.txt
# B: per-thread shares, counted and timed holds, slice event counts
for rep in 1 2 3; do for t in 4 16 64; do
  for cfg in "glibc --time-holds" "slice:futex --time-holds" "slice:futex"; do
    set -- $cfg
    if [ $1 = glibc ]; then lib=$PWD/liblockswap.so; else lib=$PWD/.devlib/dbg.so; fi
    r=$(LD_PRELOAD=$lib LOCKSWAP_BACKEND=$1 $MB --threads $t --seconds 1 $2 --json 2>$O/err)
    echo "rep $rep threads $t cfg $1 $2 :: $r :: $(grep DBG $O/err)"
  done
done; done > $O/shares.txt
unset LD_PRELOAD
# C: the capacitor's platoon size at 8/16/32 threads
python3 scripts/lockswap sweep -b tts -b capacitor:tts -b capacitor:tts,BYPASS=10 -b capacitor:tts,BYPASS=32 \
  -b capacitor:tts,CAPACITOR_MODE=contended --threads 8,16,32 --runs 5 --json-key throughput \
  --fairness-key min_share --timeout 60 -q --out $O/capacitor-b -- $MB --threads {threads} --seconds 0.5 --json
