#!/usr/bin/env bash
# rocksdb.sh - RocksDB's own db_bench (Debian's rocksdb-tools), readwhilewriting
# on a fresh database in a temporary folder that is removed afterwards.
# Prints db_bench's lines; the number to take is readwhilewriting's ops/sec.
#
#   bash bench/apps/rocksdb.sh [THREADS] [SECONDS]      defaults 8 and 1
set -eu
command -v db_bench >/dev/null || { echo "rocksdb.sh: no db_bench (apt-get install rocksdb-tools)" >&2; exit 2; }
base=/dev/shm; [ -w "$base" ] || base=${TMPDIR:-/tmp}
db=$(mktemp -d "$base/lockswap-rocksdb.XXXXXX")
trap 'rm -rf "$db"' EXIT
db_bench --benchmarks=fillrandom,readwhilewriting --threads="${1:-8}" --num=50000 \
	--duration="${2:-1}" --db="$db" --use_existing_db=0 2>&1 | grep -E '^(fillrandom|readwhilewriting) '
