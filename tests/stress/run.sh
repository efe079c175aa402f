#!/usr/bin/env bash
# Stress group: the stress harness under every backend, and the rwlock
# harness under every rwlock backend, oversubscribed (32 threads on the
# machine's cores); lost updates or items, or overlapping holders, fail it.
set -u
. "$(dirname "$0")/../lib.sh"

# harness LABEL PROG [VAR=VALUE...]: one 1 s run of PROG with 32 threads.
harness() {
	local label=$1 prog=$2
	shift 2
	local name=${label#*under }
	local log=$LOGS/$prog-${name//[:\/ =]/_}.log
	env "$@" LD_PRELOAD="$LIB" timeout 120 "$B/stress/$prog" 32 1 >"$log" 2>&1
	local rc=$?
	if [ $rc -eq 0 ] && grep -q '^ok - ' "$log"; then
		ok "$label: $(sed -n 's/^ok - //p' "$log")"
	else
		fail "$label exited $rc: $(grep -m2 FAIL "$log" | tr '\n' ' ')(see $log)"
	fi
}

for b in $(list_backends); do
	harness "stress under $b" stress LOCKSWAP_BACKEND="$b"
done
# slice's groups are opt-in (LOCKSWAP_SLICE_SEATS): the same stress with them.
harness "stress under slice:futex with SLICE_SEATS=auto" stress \
	LOCKSWAP_BACKEND=slice:futex LOCKSWAP_SLICE_SEATS=auto

# rwlocks (the mutex backend at its default), glibc's own as the reference.
for rw in $(list_rw_backends); do
	harness "rwlock stress under $rw" rwstress LOCKSWAP_RWLOCK="$rw"
done
harness "rwlock stress under slice with SLICE_SEATS=auto" rwstress \
	LOCKSWAP_RWLOCK=slice LOCKSWAP_SLICE_SEATS=auto
finish stress
