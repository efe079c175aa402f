#!/usr/bin/env bash
# Group "deadlock": lock-order checking and the hang report (issue 46,
# docs/deadlock.md), on the small programs of tests/deadlock/ (order.c,
# cxx.cc at -O0 and -O2).
#   - under futex, the default backend, glibc and ces: each case of the
#     order program and the C++ one, with LOCKSWAP_DEADLOCK=report and
#     LOCKSWAP_HANG_MS=250: the inversions (2 and 3 locks, rwlock with
#     mutex, C11, timed, std::lock_guard) are reported once, naming their
#     locks and functions; the cases that cannot deadlock (a consistent
#     order, try and back-off, std::scoped_lock, a destroyed mutex's memory
#     reused, a recursive mutex locked again, a lock held across fork, a
#     cycle under one gate lock, a condvar wait) are not; a real deadlock
#     of two threads (run under `timeout`), a thread that locks its own
#     mutex again, and a holder asleep are reported while they hang;
#   - abort mode; the bound of the graph; the statistics' JSON (its
#     lock_order section against docs/stats-schema.json), `lockswap
#     report`, the Prometheus counters, a LOCKSWAP_STATS_SIGNAL dump that
#     lists holders and waiters; `lockswap run --deadlock`;
#   - every backend of the leave matrix with LOCKSWAP_DEADLOCK=report: an
#     inversion reported, a consistent order under contention not, and the
#     leave program's asynchronous cancellation of queued waiters.
# ces needs WRFSBASE; where it cannot run, its cases are skipped with a
# line that says so (they would run on glibc's locks).
set -u
. "$(dirname "$0")/../lib.sh"
P=$B/deadlock
CLI=$ROOT/scripts/lockswap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
HANG=250

# go BACKEND LIMIT PROG ARGS...: run with the watch on; stdout in $tmp/out,
# stderr in $tmp/err, exit status in $rc.
go() {
	local backend=$1 limit=$2
	shift 2
	env LOCKSWAP_BACKEND="$backend" LOCKSWAP_DEADLOCK="${MODE:-report}" LOCKSWAP_HANG_MS=$HANG \
		LD_PRELOAD=$LIB timeout "$limit" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

count() { grep -c -- "$1" "$tmp/err"; }

# reported WHAT PATTERN...: exactly one potential-deadlock report, which
# names each PATTERN, and the program passed its own checks.
reported() {
	local what=$1 miss=""
	shift
	for p in "$@"; do grep -q -- "$p" "$tmp/err" || miss+=" '$p'"; done
	local n
	n=$(count "lockswap: potential deadlock")
	if [ $rc -eq 0 ] && [ "$n" -eq 1 ] && [ -z "$miss" ] && ! grep -q "^FAIL" "$tmp/out"; then
		ok "$what: reported once, naming $*"
	else
		fail "$what: rc=$rc, $n reports, missing:${miss:- none}: $(head -c 600 "$tmp/err")"
	fi
}

# quiet WHAT: no report of any kind, and the program passed.
quiet() {
	local n
	n=$(grep -c "^lockswap: " "$tmp/err")
	if [ $rc -eq 0 ] && [ "$n" -eq 0 ] && ! grep -q "^FAIL" "$tmp/out" && grep -q "^ok" "$tmp/out"; then
		ok "$1: no report"
	else
		fail "$1: rc=$rc, $n lockswap lines: $(head -c 600 "$tmp/err") $(grep ^FAIL "$tmp/out" | head -2)"
	fi
}

# hang WHAT KIND PATTERN...: a report whose first line has KIND, naming each PATTERN.
hang() {
	local what=$1 kind=$2 miss=""
	shift 2
	for p in "$@"; do grep -q -- "$p" "$tmp/err" || miss+=" '$p'"; done
	if [ "$(count "^lockswap: $kind")" -ge 1 ] && [ -z "$miss" ]; then
		ok "$what: '$kind' reported while it hung, naming $*"
	else
		fail "$what: no '$kind' report naming$miss (rc=$rc): $(head -c 600 "$tmp/err")"
	fi
}

served_by() { grep -q "(backend $1)" "$tmp/out"; }

matrix() {
	local b=$1 w="[$1]"
	go "$b" 10 "$P/order" two
	if ! served_by "$b"; then
		echo "# $b cannot run on this machine ($(grep -o "cannot run here: [^;]*" "$tmp/err" | head -1)): its cases are skipped"
		return
	fi
	reported "two locks $w" "mutex two_a" "mutex two_b" "at two_ab" "at two_ba"
	go "$b" 10 "$P/order" three
	reported "three locks $w" "a cycle of 3 locks" three_a three_b three_c "nest < three_ab" "nest < three_bc" "nest < three_ca"
	go "$b" 10 "$P/order" rwlock
	reported "rwlock and mutex $w" "rwlock rw_r" "mutex rw_m" rw_write_then_lock rw_lock_then_read
	go "$b" 10 "$P/order" c11
	reported "C11 mtx_t $w" "mutex c11_a" "mutex c11_b" "at c11_ab" "at c11_ba"
	go "$b" 10 "$P/order" timed
	reported "timed locks $w" "timed_a" "timed_b" "a timed lock"
	go "$b" 10 "$P/order" gate_broken
	reported "a gate some thread skips $w" "mutex gate_a" "mutex gate_b" ungated_ba
	for o in O0 O2; do
		go "$b" 10 "$P/cxx_$o" guard
		reported "std::lock_guard nesting, -$o $w" "mutex guard_a" "mutex guard_b" "at guard_ab()" "at guard_ba()"
		grep -q "gthread\|std::mutex::lock\|lock_guard<" "$tmp/err" &&
			fail "std::lock_guard nesting, -$o $w: a wrapper named as the site: $(head -c 400 "$tmp/err")"
		go "$b" 10 "$P/cxx_$o" shared
		reported "std::shared_mutex and std::mutex, -$o $w" shared_s shared_m shared_read_then_lock shared_lock_then_write
		go "$b" 20 "$P/cxx_$o" scoped
		quiet "std::scoped_lock in both orders, -$o $w"
	done
	for c in consistent backoff reuse recursive fork gate condwait; do
		go "$b" 20 "$P/order" $c
		quiet "$c $w"
	done
	go "$b" 10 "$P/order" deadlock 1200
	hang "a real deadlock of two threads $w" "deadlock: 2 threads wait for each other" \
		"waits for mutex dl_b at dead_ab" "waits for mutex dl_a at dead_ba" "which took it at dead_ab" "which took it at dead_ba"
	go "$b" 10 "$P/order" self 1200
	hang "a thread that locks its own mutex again $w" "deadlock: a thread waits for a lock it holds itself" "mutex self_m at self_relock"
	go "$b" 10 "$P/order" sleeper
	hang "a holder asleep $w" "long wait" "for mutex sl_m at sleep_waiter" "which took it at sleep_holder"
	[ "$(count "^lockswap: long wait")" -eq 1 ] || fail "a holder asleep $w: the wait was reported $(count "^lockswap: long wait") times, not once"
}

for b in futex "$(option_default LOCKSWAP_BACKEND)" glibc ces; do
	matrix "$b"
done

# ces's own default: the watchdog on at 1000 ms with LOCKSWAP_DEADLOCK off.
LOCKSWAP_BACKEND=ces LD_PRELOAD=$LIB timeout 10 "$P/order" sleeper 1700 >"$tmp/out" 2>"$tmp/err"
rc=$?
if served_by ces; then
	hang "ces: the watchdog is on by default" "long wait" "LOCKSWAP_HANG_MS=1000" "sleep_waiter" "sleep_holder"
fi
LOCKSWAP_BACKEND=futex LD_PRELOAD=$LIB timeout 10 "$P/order" sleeper 400 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$(count "^lockswap:")" -eq 0 ] && ok "futex: no watchdog by default" ||
	fail "futex: a report with LOCKSWAP_DEADLOCK and LOCKSWAP_HANG_MS unset: $(head -c 300 "$tmp/err")"

# abort: the report, then SIGABRT, before the second lock is taken.
{ MODE=abort go futex 10 "$P/order" two; } 2>/dev/null # the shell's own "Aborted"
[ $rc -eq 134 ] && [ "$(count "lockswap: potential deadlock")" -eq 1 ] && grep -q "at two_ba" "$tmp/err" &&
	ok "abort: the report, then abort()" || fail "abort: rc=$rc: $(head -c 400 "$tmp/err")"

# The bound: more locks nested under one than the graph keeps.
go futex 60 "$P/order" bound 66000
[ $rc -eq 0 ] && [ "$(count "lock-order graph is full")" -eq 1 ] && grep -q "^ok - bound" "$tmp/out" &&
	ok "bound: one line when the graph is full, the program unharmed" ||
	fail "bound: rc=$rc, $(count "lock-order graph is full") lines: $(head -c 300 "$tmp/err")"

# The statistics' outputs: JSON (its schema), lockswap report, Prometheus.
json=$tmp/s.json prom=$tmp/s.prom
LOCKSWAP_STATS=summary LOCKSWAP_STATS_FILE=$json LOCKSWAP_STATS_PROM=$prom LOCKSWAP_STATS_TOP=3 \
	go futex 10 "$P/order" gate_broken
/usr/bin/python3 - "$json" "$ROOT" >"$tmp/py" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2] + "/tests/stats")
import schema_lite
doc = json.load(open(sys.argv[1]))
errs = schema_lite.errors(doc, json.load(open(sys.argv[2] + "/docs/stats-schema.json")))
lo = doc["lock_order"]
cyc = [c for c in lo["cycles"] if not c["gated"]]
gated = [c for c in lo["cycles"] if c["gated"]]
names = {e["from"]["name"] for c in cyc for e in c["edges"]}
stack = [f.get("symbol") for e in cyc[0]["edges"] for f in e["request_stack"]] if cyc else []
print("schema", "ok" if not errs else errs[:3])
print("cycles", len(cyc), lo["cycles_found"], "gated", len(gated), lo["gated_cycles"])
print("names", sorted(names), "gate", gated[0]["gate"]["name"] if gated else None)
print("stack", "nest" in stack, "ungated_ba" in stack)
PY
grep -q "^schema ok" "$tmp/py" && ok "JSON: the lock_order section matches docs/stats-schema.json" ||
	fail "JSON schema: $(head -3 "$tmp/py")"
grep -q "^cycles 1 1 gated 1 1" "$tmp/py" && grep -q "names \['gate_a', 'gate_b'\] gate gate_g" "$tmp/py" &&
	grep -q "^stack True True" "$tmp/py" &&
	ok "JSON: the reported cycle, and the gated one with its gate, with their request stacks" ||
	fail "JSON: lock_order: $(cat "$tmp/py" | head -5)"
/usr/bin/python3 "$CLI" report "$json" >"$tmp/rep" 2>&1
grep -q "potential deadlock" "$tmp/rep" && grep -q "order.c:[0-9]" "$tmp/rep" && grep -q "gated" "$tmp/rep" &&
	ok "lockswap report: the cycles with file:line" || fail "lockswap report: $(head -c 600 "$tmp/rep")"
grep -q '^lockswap_lock_order_cycles_total{.*gated="false"} 1$' "$prom" &&
	grep -q '^lockswap_lock_order_cycles_total{.*gated="true"} 1$' "$prom" &&
	grep -q '^lockswap_hangs_total{.*kind="long_wait"} 0$' "$prom" &&
	ok "Prometheus: the cycle counters" || fail "Prometheus: $(grep lock_order "$prom" | head -3)"

# A signal dump lists who holds and who waits (the holder signals itself
# while the waiter waits).
LOCKSWAP_STATS=summary LOCKSWAP_STATS_SIGNAL=USR2 LOCKSWAP_STATS_TOP=3 go futex 10 "$P/order" signal
grep -q "now: thread [0-9]* holds mutex sl_m (taken at signal_holder)" "$tmp/err" &&
	grep -q "now: thread [0-9]* waits for mutex sl_m at sleep_waiter" "$tmp/err" &&
	ok "LOCKSWAP_STATS_SIGNAL: the dump lists the holder and the waiter" ||
	fail "signal dump: $(grep -A3 "stats (signal)" "$tmp/err" | head -c 600)"

# The CLI.
env -u LOCKSWAP_DEADLOCK /usr/bin/python3 "$CLI" run -b futex --deadlock report -- "$P/order" two \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
reported "lockswap run --deadlock report" two_ab two_ba
/usr/bin/python3 "$CLI" run -b futex --deadlock sometimes -- "$P/order" two >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -qe "--deadlock sometimes (LOCKSWAP_DEADLOCK)" "$tmp/err" &&
	ok "lockswap run --deadlock: a bad mode is a usage error" || fail "bad --deadlock: $(head -c 300 "$tmp/err")"

# Every backend of the leave matrix with the watch on.
for b in $(list_backends); do
	go "$b" 10 "$P/order" two
	served_by "$b" || { echo "# $b cannot run on this machine: skipped"; continue; }
	reported "two locks [$b]" two_ab two_ba
	go "$b" 20 "$P/order" consistent
	quiet "a consistent order under contention [$b]"
	go "$b" 20 "$B/leave/leave" -o 4 asynclock middle 2
	# Long waits are real here: the program runs 4 busy threads a core.
	if [ $rc -eq 0 ] && grep -q "^ok" "$tmp/out" && ! grep -q "^FAIL" "$tmp/out" &&
		! grep -q "^lockswap: .*deadlock" "$tmp/err"; then
		ok "leave asynclock/middle with the watch on [$b]"
	else
		fail "leave asynclock/middle with the watch on [$b]: rc=$rc $(grep ^FAIL "$tmp/out" | head -2) $(head -c 300 "$tmp/err")"
	fi
done
finish deadlock
