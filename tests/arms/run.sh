#!/bin/bash
# Test group "arms": LOCKSWAP_ARMS / LOCKSWAP_ARM_KEY (which arm a process
# runs) and the Prometheus export (LOCKSWAP_STATS_PROM); see
# tests/arms/run_arms.py and docs/arms.md.  Last line:
# `arms: N passed, M failed`.
set -u
cd "$(dirname "$0")/../.." || exit 1
B="${B:-build}"
if ! make -s liblockswap.so preload-bins >/dev/null; then
	echo "FAIL - build"
	echo "arms: 0 passed, 1 failed"
	exit 1
fi
if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	echo "FAIL - python3-prometheus-client is not installed (scripts/install-deps.sh installs it)"
	echo "arms: 0 passed, 1 failed"
	exit 1
fi
export PYTHONDONTWRITEBYTECODE=1
B="$B" exec /usr/bin/python3 tests/arms/run_arms.py
