#!/bin/bash
# 16 cores, 2026-11-27 session 7, second call: each CPU's speed; hold-time
# shares (clock) of the slice rwlock and the slice mutex at 16 / 64 threads;
# the capacitor against tts at 8 / 16 threads with more rounds.
set -u
O=$1; mkdir -p "$O"
MB=build/bench/mutexbench
LS=(python3 scripts/lockswap)
D=$PWD/.devlib
{ nproc; uptime; } > "$O/machine.txt"
for pass in 1 2; do for c in $(seq 0 15); do
  echo "cpu $c pass $pass $(LD_PRELOAD=$PWD/liblockswap.so LOCKSWAP_BACKEND=glibc taskset -c $c $MB --threads 1 --seconds 0.2 --warmup 0.05 --json)"
done; done > "$O/percpu.txt"
echo "== rwt" >&2
"${LS[@]}" sweep -r glibc -r slice --threads 16,64 --runs 7 --json-key throughput \
  --fairness-key min_share --extra-key hold_min_share --extra-key jain --timeout 60 -q --out "$O/rwt" -- \
  $MB --mode rwlock --read-pct 50 --threads {threads} --seconds 1 --time-holds --json > "$O/rwt.txt" 2>&1
echo "== mxt" >&2
"${LS[@]}" sweep -b glibc -b slice:futex --threads 16,64 --runs 5 --json-key throughput \
  --fairness-key min_share --extra-key hold_min_share --extra-key jain --timeout 60 -q --out "$O/mxt" -- \
  $MB --threads {threads} --seconds 1 --time-holds --json > "$O/mxt.txt" 2>&1
echo "== cap" >&2
"${LS[@]}" sweep -b tts -b capacitor:tts -b "capacitor:tts,LIB=$D/cap1000.so" -b futex -b capacitor:futex \
  --threads 8,16 --runs 11 --json-key throughput --fairness-key min_share --timeout 60 -q --out "$O/cap" -- \
  $MB --threads {threads} --seconds 0.5 --json > "$O/cap.txt" 2>&1
uptime >> "$O/machine.txt"
