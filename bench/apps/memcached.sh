#!/usr/bin/env bash
# memcached.sh - memcached under the caller's LD_PRELOAD and LOCKSWAP_*
# settings, driven by memcslap without them; prints "seconds: T", the
# client's wall time for SETS sets and GETS gets over CONC connections.
#
# Only the server runs under lockswap: the environment `lockswap ab` sets
# is taken from this script's own (so this bash and the client run
# without the library), and handed to memcached alone.
#
#   bash bench/apps/memcached.sh [THREADS]      memcached -t THREADS (default 4)
set -eu
THREADS=${1:-4}
CONC=${MC_CONC:-16}
N=${MC_N:-4000}
preload=${LD_PRELOAD:-}
unset LD_PRELOAD
for t in memcached memcslap; do
	command -v "$t" >/dev/null || { echo "memcached.sh: no $t (apt-get install memcached libmemcached-tools)" >&2; exit 2; }
done
# A free port: ask the kernel for one, then give it back to memcached.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
LD_PRELOAD=$preload memcached -u "$(id -un)" -t "$THREADS" -p "$port" -U 0 -l 127.0.0.1 -m 64 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	memcstat --servers="127.0.0.1:$port" >/dev/null 2>&1 && break
	sleep 0.05
done
start=$(date +%s.%N)
memcslap --servers="127.0.0.1:$port" --concurrency="$CONC" --execute-number="$N" --test=set >/dev/null
memcslap --servers="127.0.0.1:$port" --concurrency="$CONC" --execute-number="$N" --test=get >/dev/null
end=$(date +%s.%N)
python3 -c "print('seconds: %.4f' % ($end - $start))"
