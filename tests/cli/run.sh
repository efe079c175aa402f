#!/bin/bash
# Test group "cli": the lockswap command (scripts/lockswap, scripts/lockswap_cli/).
# Runs the unittest tests of tests/cli with Debian's python3 (numpy,
# matplotlib); the last line is `cli: N passed, M failed`.
set -u
cd "$(dirname "$0")/../.." || exit 1
if [ ! -f liblockswap.so ]; then
	make -s liblockswap.so || { echo "cli: 0 passed, 1 failed"; exit 1; }
fi
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 tests/cli/runner.py
