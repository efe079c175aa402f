#!/bin/bash
# 16 cores, 2026-11-27 session 7: the capacitor's time-based poll back-off
# (150 / 400 (the build) / 1000 / 2500 ns) against tts, and the slice
# rwlock's slice length at 64 threads.
set -u
O=$1; mkdir -p "$O"
MB=build/bench/mutexbench
LS=(python3 scripts/lockswap)
D=$PWD/.devlib
{ nproc; lscpu | head -20; uname -a; uptime; } > "$O/machine.txt"
echo "== cap" >&2
"${LS[@]}" sweep -b tts -b capacitor:tts -b "capacitor:tts,LIB=$D/cap150.so" \
  -b "capacitor:tts,LIB=$D/cap1000.so" -b "capacitor:tts,LIB=$D/cap2500.so" \
  -b futex -b capacitor:futex --threads 4,8,16 --runs 7 --json-key throughput \
  --fairness-key min_share --timeout 60 -q --out "$O/cap" -- \
  $MB --threads {threads} --seconds 0.5 --json > "$O/cap.txt" 2>&1
echo "== rws" >&2
"${LS[@]}" sweep -r glibc -r slice -r slice,SLICE_US=1000 -r slice,SLICE_US=4000 \
  -r slice,SLICE_SEATS=auto --threads 16,64 --runs 5 --json-key throughput \
  --fairness-key min_share --extra-key jain --timeout 60 -q --out "$O/rws" -- \
  $MB --mode rwlock --read-pct 50 --threads {threads} --seconds 1 --json > "$O/rws.txt" 2>&1
echo "== short" >&2
"${LS[@]}" sweep -b glibc -b slice:futex -b slice:futex,SLICE_US=1000 --threads 16,64 --runs 3 \
  --json-key throughput --fairness-key min_share --extra-key hold_min_share --timeout 60 -q \
  --out "$O/short" -- $MB --threads {threads} --seconds 1 --json > "$O/short.txt" 2>&1
uptime >> "$O/machine.txt"
