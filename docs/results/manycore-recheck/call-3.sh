#!/bin/bash
# 16 cores, session 7, third call: why capacitor:tts collapsed to 20-50 k ops/s
# at 16 threads in the second call (1.5 M in the first): the own-CPU spin's
# stall bound (20 us now; 100 / 200 us builds), the policy's spin (SPIN=20000),
# and the build before the time-based back-off (old.so, 16 pauses).
set -u
O=$1; mkdir -p "$O"
MB=build/bench/mutexbench
LS=(python3 scripts/lockswap)
D=$PWD/.devlib
{ nproc; uptime; } > "$O/machine.txt"
for c in $(seq 0 15); do
  echo "cpu $c $(LD_PRELOAD=$PWD/liblockswap.so LOCKSWAP_BACKEND=glibc taskset -c $c $MB --threads 1 --seconds 0.2 --warmup 0.05 --json)"
done > "$O/percpu.txt"
"${LS[@]}" sweep -b tts -b capacitor:tts -b "capacitor:tts,LIB=$D/stall100.so" -b "capacitor:tts,LIB=$D/stall200.so" \
  -b "capacitor:tts,LIB=$D/old.so" -b capacitor:tts,SPIN=20000 -b futex -b capacitor:futex \
  -b "capacitor:futex,LIB=$D/stall200.so" \
  --threads 8,16 --runs 7 --json-key throughput --fairness-key min_share --timeout 60 -q --out "$O/capc" -- \
  $MB --threads {threads} --seconds 0.5 --json > "$O/capc.txt" 2>&1
uptime >> "$O/machine.txt"
