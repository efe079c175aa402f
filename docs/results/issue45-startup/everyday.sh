#!/usr/bin/env bash
# What loading lockswap costs everyday programs, against running them without it
# (-b none), before and after the start-up cuts (results.md section 25):
#   OLD=/tmp/head45.so NEW=/tmp/new45.so bash docs/results/issue45-startup/everyday.sh OUT
# OLD: the library before (a0492f9), NEW: after; both copied out of the tree so a
# rebuild cannot change them mid-run.  Each program: 9 interleaved rounds + 1 warm-up.
set -eu
cd "$(dirname "$0")/../../.."
OUT=${1:?OUT}
mkdir -p "$OUT"
for p in ${EVERYDAY:-make pigz zstd xz lbzip2 sort node python java}; do
	flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q --lib "$NEW" \
		-b none -b "slice:futex,LIB=$OLD" -b slice:futex -b glibc \
		--runs "${RUNS:-9}" --warmup 1 --metric 'seconds: ([0-9.]+)' --lower-is-better \
		--out "$OUT/$p" -- bash bench/apps/everyday.sh "$p" 8 >"$OUT/$p.txt" 2>&1 ||
		echo "$p failed (see $OUT/$p.txt)" >&2
done
