#!/bin/bash
# fairness-demo.sh - glibc's unfairness next to lock slices' fairness, at
# the same or better speed, on the built-in MutexBench, in about a minute:
#
#   make fairness-demo        (or: bash scripts/fairness-demo.sh after make)
#
# Two interleaved sweeps (`lockswap sweep`, medians of FAIRNESS_RUNS rounds
# of 1 s steady windows each) of glibc, futex (lockswap's default) and
# slice:futex at 8 and 32 threads on this machine:
#   short   a short critical section (MutexBench's defaults): the lock is
#           the bottleneck; min share = the fewest acquisitions of one
#           thread over the mean, beside cpu_min_share, the same for the
#           CPU time the kernel gave each thread (where the two part, the
#           lock, not the scheduler, made the difference)
#   mixed   half the threads hold the lock 10x longer (u-SCL's "scheduler
#           subversion" case); fairness = the hold-time share of the class
#           that gets the least, over its equal share
# Each writes a table (.md), the numbers (.csv, .json) and plots under
# FAIRNESS_OUT (default out/fairness): -throughput.png, -fairness.png and
# -frontier.png (fairness against speed, one point per backend).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

OUT=${FAIRNESS_OUT:-out/fairness}
RUNS=${FAIRNESS_RUNS:-3}
LOCKSWAP=(/usr/bin/python3 scripts/lockswap)
BACKENDS=(-b glibc -b futex -b slice:futex)

die() { printf 'fairness-demo: %s\n' "$*" >&2; exit 1; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "FAIRNESS_RUNS=$RUNS: expected a whole number >= 1"
if [ ! -f liblockswap.so ] || [ ! -x build/bench/mutexbench ]; then
	printf '== building (make)\n'
	make -s all || die "make failed; on a fresh Debian machine run bash scripts/install-deps.sh first"
fi
mkdir -p "$OUT" || die "cannot create $OUT"

status=0
printf '\n== short critical section: throughput and min share (acquisitions)\n'
"${LOCKSWAP[@]}" sweep "${BACKENDS[@]}" --threads 8,32 --runs "$RUNS" --seed 16 \
	--json-key throughput --fairness-key min_share --extra-key cpu_min_share \
	--out "$OUT/short" -q -- \
	build/bench/mutexbench --threads {threads} --seconds 1 --json || status=1
printf '\n== half the threads hold 10x longer: throughput and the least class hold share\n'
"${LOCKSWAP[@]}" sweep "${BACKENDS[@]}" --threads 8,32 --runs "$RUNS" --seed 16 \
	--json-key throughput --fairness-key class_hold_min_vs_equal --out "$OUT/mixed" -q -- \
	build/bench/mutexbench --threads {threads} --mixed 10 --seconds 1 --json || status=1
printf '\nplots: %s\n' "$(ls "$OUT"/*.png 2>/dev/null | tr '\n' ' ')"
exit $status
