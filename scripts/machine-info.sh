#!/usr/bin/env bash
# machine-info.sh - what a result file says about where it was measured:
# date, host and CPUs, glibc, the lockswap commit, and the load average
# (its label the first argument, default "load"), one "name: value" a line.
#
#   bash scripts/machine-info.sh ["load before"] > OUT/machine.txt
cd "$(dirname "$0")/.." || exit 1
echo "date: $(date -u +%FT%TZ)"
echo "host: $(uname -n) $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "glibc: $(ldd --version | head -1)"
echo "lockswap: $(git describe --always --dirty 2>/dev/null || echo unknown)"
echo "${1:-load}: $(cut -d' ' -f1-3 /proc/loadavg)"
