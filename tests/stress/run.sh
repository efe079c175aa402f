#!/usr/bin/env bash
# Stress group: the stress harness under every backend, oversubscribed
# (32 threads on the machine's cores), lost updates or items fail it.
set -u
. "$(dirname "$0")/../lib.sh"
for b in $(list_backends); do
	log=$LOGS/stress-${b//[:\/]/_}.log
	LOCKSWAP_BACKEND=$b LD_PRELOAD=$LIB timeout 120 "$B/stress/stress" 32 1 >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^ok - ' "$log"; then
		ok "stress under $b: $(sed -n 's/^ok - //p' "$log")"
	else
		fail "stress under $b exited $rc: $(grep -m2 FAIL "$log" | tr '\n' ' ')(see $log)"
	fi
done
# slice's groups are opt-in (LOCKSWAP_SLICE_SEATS): the same stress with them.
log=$LOGS/stress-slice-groups.log
LOCKSWAP_BACKEND=slice:futex LOCKSWAP_SLICE_SEATS=auto LD_PRELOAD=$LIB timeout 120 "$B/stress/stress" 32 1 >"$log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^ok - ' "$log"; then
	ok "stress under slice:futex with SLICE_SEATS=auto: $(sed -n 's/^ok - //p' "$log")"
else
	fail "stress under slice:futex with SLICE_SEATS=auto exited $rc: $(grep -m2 FAIL "$log" | tr '\n' ' ')(see $log)"
fi
finish stress
