#!/bin/bash
# Does a burst of busy CPUs leave the capacitor slow after it ends (the
# suspected mechanism of the 16-core collapses, docs/results.md section 11)?
# tts and capacitor:tts at 2 threads on 2 CPUs; with hog=1 two busy loops run
# for the first 0.4 s of the run only, and MutexBench's window opens at 0.6 s,
# after them. One line per run: "round backend hog=0|1 M-ops/s".
set -eu
cd "$(dirname "$0")/../../.."
for r in 1 2 3 4 5; do
	for b in tts capacitor:tts; do
		for hog in 0 1; do
			if [ "$hog" = 1 ]; then
				timeout 0.4 sh -c 'while :; do :; done' &
				timeout 0.4 sh -c 'while :; do :; done' &
			fi
			tp=$(LD_PRELOAD="$PWD/liblockswap.so" LOCKSWAP_BACKEND=$b build/bench/mutexbench \
				--threads 2 --warmup 0.6 --seconds 1 --json |
				python3 -c 'import json,sys; print(round(json.load(sys.stdin)["throughput"] / 1e6, 2))')
			echo "$r $b hog=$hog $tp"
			wait
			sleep 0.5
		done
	done
done
