#!/bin/bash
# Test group "prom": the Prometheus export (LOCKSWAP_STATS_PROM) read
# through Debian's prometheus-node-exporter (textfile collector), the
# collector people run in production; see tests/prom/run_prom.py.
# Without the package the group says so on one line and passes nothing.
# Last line: `prom: N passed, M failed`.
set -u
cd "$(dirname "$0")/../.." || exit 1
B="${B:-build}"
if ! make -s liblockswap.so preload-bins >/dev/null; then
	echo "FAIL - build"
	echo "prom: 0 passed, 1 failed"
	exit 1
fi
if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	echo "FAIL - python3-prometheus-client is not installed (scripts/install-deps.sh installs it)"
	echo "prom: 0 passed, 1 failed"
	exit 1
fi
export PYTHONDONTWRITEBYTECODE=1
B="$B" exec /usr/bin/python3 tests/prom/run_prom.py
