#!/bin/bash
# Test group "stats": contention and fairness statistics (LOCKSWAP_STATS)
# under every backend; see tests/stats/run_stats.py.  Last line:
# `stats: N passed, M failed`.
set -u
cd "$(dirname "$0")/../.." || exit 1
B="${B:-build}"
if ! make -s liblockswap.so preload-bins stats-bins $B/rwlock/errors $B/rwlock/forkps $B/rwlock/shared_mutex >/dev/null; then
	echo "FAIL - build"
	echo "stats: 0 passed, 1 failed"
	exit 1
fi
export PYTHONDONTWRITEBYTECODE=1
. tests/rseq_off.sh
B="$B" exec /usr/bin/python3 tests/stats/run_stats.py
