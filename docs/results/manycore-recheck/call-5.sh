#!/bin/bash
# Session 7, call 5: catch a collapsed capacitor run at 16 threads and its context switches.
LD_PRELOAD=$PWD/liblockswap.so LOCKSWAP_RWLOCK=slice build/bench/mutexbench --mode rwlock --read-pct 50 --threads 64 --seconds 12 --json >/dev/null
python3 .devlib/csw2.py 16 0.5 tts:16 capacitor:tts:16 capacitor:futex:16
