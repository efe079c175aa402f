#!/usr/bin/env bash
# Leave group (issue 10): waiters that leave a lock's queue without
# finishing, and the misuse glibc survives, for every backend and for
# glibc itself (the reference: the test is wrong if glibc fails it).
#   cases: each way to leave x a waiter at the head, middle and tail of a
#   queue of seven (build/leave/leave WAY POSITION ITERATIONS), plus
#   issue 10's lone self-deadlock and the two tolerated misuses;
#   every run is oversubscribed (4 busy threads per core) and bounded:
#   the program reports a hang itself after a few seconds, and `timeout`
#   catches anything else.  A line per failing case names it.
# LSTEST_BACKENDS narrows the backends, LSTEST_LEAVE_CASES the cases
# (a regular expression on "way position").
set -u
. "$(dirname "$0")/../lib.sh"
PROG=$B/leave/leave
BUSY=$((4 * $(nproc)))

# way, positions, iterations.  Races need repetition; timeouts cost their
# deadline per iteration, so they get fewer.
cases=(
	"timedlock head middle tail 2"
	"clocklock head middle tail 2"
	"condtimed head middle tail 2"
	"condcancel head middle tail 5"
	"asynclock head middle tail 5"
	"asynctimed head middle tail 5"
	"asynccond head middle tail 5"
	"selfdead head middle tail 10"
	"selfdead alone 60"
	"exit head middle tail 5"
	"fork head middle tail 10"
	"unlocked none 5"
	"nonowner none 5"
)

backends=$(list_backends)
echo "$backends" | grep -qx glibc || backends="glibc $backends"

start=$(date +%s)
runs=0
for b in $backends; do
	for c in "${cases[@]}"; do
		set -- $c
		way=$1
		iters=${!#}
		for pos in "${@:2:$#-2}"; do
			[[ "$way $pos" =~ ${LSTEST_LEAVE_CASES:-.} ]] || continue
			runs=$((runs + 1))
			log=$LOGS/leave-${b//[:\/]/_}-$way-$pos.log
			LOCKSWAP_BACKEND=$b LD_PRELOAD=$LIB timeout 20 "$PROG" -o "$BUSY" "$way" "$pos" "$iters" >"$log" 2>&1
			rc=$?
			p=$(grep -c '^ok - ' "$log")
			f=$(grep -c '^FAIL - ' "$log")
			passed=$((passed + p))
			failed=$((failed + f))
			if ! grep -q "^# .*backend $b\$" "$log"; then
				fail "leave $way/$pos under $b: not served by backend $b: $(head -1 "$log")"
			elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
				failed=$((failed + 1))
				echo "FAIL - leave $way/$pos under $b: exited $rc$([ $rc -eq 124 ] && echo ' (timeout: hang)') (see $log)"
			elif [ "$f" -ne 0 ]; then
				grep '^FAIL - ' "$log" | head -3 | sed "s/\$/ [$b]/"
			else
				echo "ok - leave $way/$pos under $b ($p checks)"
			fi
		done
	done
done
echo "# $runs runs in $(($(date +%s) - start))s, $BUSY busy threads each"
finish leave
