#!/usr/bin/env bash
# tests/bench/run.sh - behaviour checks for bench/mutexbench and
# bench/leveldb_bench: output shape and value ranges (tests/bench/
# check_output.py, with its own tests), the exclusion checker, argument
# errors.  Never timing: the machine is shared and noisy.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
MB=$B/bench/mutexbench
LB=$B/bench/leveldb_bench
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0 failed=0
ok()  { echo "ok - $1"; pass=$((pass + 1)); }
bad() { echo "FAIL - $1: $2"; failed=$((failed + 1)); }
finish() {
	echo "bench: $pass passed, $failed failed"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

# run CMD...: stdout in $TMP/out, stderr in $TMP/err, exit status in $rc.
# The timeout turns a hang (say, a lost condvar wakeup) into a failure.
run() { timeout 60 "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

# check_json ARGS...: the first problem of the output in $TMP/out, checked by
# tests/bench/check_output.py ARGS (mutex ..., leveldb ..., native ...), or
# nothing.  A crash of the checker (a missing key, say) is a problem too,
# never a pass: its traceback is the problem.
check_json() { "$PY" "$ROOT/tests/bench/check_output.py" "$@" <"$TMP/out" 2>&1; }

# expect_json NAME CHECKARGS... -- CMD...
expect_json() {
	local name=$1; shift
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	run "$@"
	if [ "$rc" -ne 0 ]; then bad "$name" "exit $rc: $(head -c 200 "$TMP/err")"; return; fi
	local why; why=$(check_json "${args[@]}")
	if [ -n "$why" ]; then bad "$name" "$why"; else ok "$name"; fi
}

# expect_usage_error NAME PROG ARGS...: exit 2, exactly one stderr line.
expect_usage_error() {
	local name=$1 prog=$2; shift 2
	run "$prog" "$@"
	local lines; lines=$(wc -l <"$TMP/err")
	local base; base=$(basename "$prog")
	if [ "$rc" -ne 2 ]; then bad "$name" "exit $rc, expected 2"
	elif [ "$lines" -ne 1 ] || ! grep -q "^$base: " "$TMP/err"; then
		bad "$name" "stderr is not one '$base: ...' line: $(head -c 200 "$TMP/err")"
	else ok "$name"; fi
}

# The checker itself (tests/bench/test_check_output.py): it accepts real
# outputs and rejects each broken copy of them.
if out=$(PYTHONDONTWRITEBYTECODE=1 "$PY" -m unittest discover -s "$ROOT/tests/bench" \
	-p 'test_*.py' 2>&1); then ok "check_output.py accepts good outputs and rejects bad ones"
else bad "check_output.py accepts good outputs and rejects bad ones" "$(echo "$out" | grep -E '^(FAIL|ERROR)' | head -3)"; fi

if [ -x "$MB" ] && [ -x "$LB" ]; then ok "binaries built"
else bad "binaries built" "missing $MB or $LB (make build/bench/mutexbench build/bench/leveldb_bench)"; finish; fi

# ---- mutexbench ----
S=0.3
run "$MB" --help
if [ "$rc" -eq 0 ] && grep -q -- --threads "$TMP/out" && ! grep -q -e break -e late "$TMP/out"
then ok "mutexbench --help"; else bad "mutexbench --help" "exit $rc or wrong text"; fi

run "$MB" --seconds $S --threads 3
re='^mutexbench mode=mutex threads=3 locks=1 secs=[0-9.]+ ops=[0-9]+ throughput=[0-9]+ ops/s min_share=[0-9.]+ max_share=[0-9.]+ jain=[0-9.]+ wait_p50_ns=[0-9]+ wait_p99_ns=[0-9]+ wait_p999_ns=[0-9]+ hold_min_share=[0-9.]+ hold_jain=[0-9.]+ cpu_min_share=[0-9.]+ switches=[0-9]+\+[0-9]+ window=[0-9.]+-[0-9.]+s\((warmup|all_acquired|timeout)\) fair_1ms_min_share=([0-9.]+|-) fair_10ms_min_share=([0-9.]+|-) longest_stretch_us=[0-9.]+$'
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -Eq "$re" "$TMP/out"
then ok "mutexbench human line"; else bad "mutexbench human line" "exit $rc: $(head -c 300 "$TMP/out")"; fi

run "$MB" --seconds $S --threads 2 --mode request
re='^mutexbench mode=request threads=2 locks=1 secs=[0-9.]+ ops=[0-9]+ throughput=[0-9]+ ops/s min_share=[0-9.]+ max_share=[0-9.]+ jain=[0-9.]+ hold_min_share=[0-9.]+ hold_jain=[0-9.]+ cpu_min_share=[0-9.]+ switches=[0-9]+\+[0-9]+ window=[0-9.]+-[0-9.]+s\((warmup|all_acquired|timeout)\) fair_1ms_min_share=([0-9.]+|-) fair_10ms_min_share=([0-9.]+|-) longest_stretch_us=[0-9.]+ request_p50_ns=[0-9]+ request_p99_ns=[0-9]+ request_p999_ns=[0-9]+ request_max_ns=[0-9]+ request_worst_thread_p99_ns=[0-9]+$'
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -Eq "$re" "$TMP/out"
then ok "mutexbench request mode human line"; else bad "mutexbench request mode human line" "exit $rc: $(head -c 400 "$TMP/out")"; fi

expect_json "mutexbench mutex json" mutex mutex 4 -- "$MB" --json --seconds $S
expect_json "mutexbench trylock json" mutex trylock 3 -- "$MB" --json --seconds $S --mode trylock --threads 3
expect_json "mutexbench condvar produced == consumed" mutex condvar 5 -- \
	"$MB" --json --seconds $S --mode condvar --threads 5 --locks 2
expect_json "mutexbench mixed, 3 locks, 4 cs-lines" mutex mixed 4 -- \
	"$MB" --json --seconds $S --mode mixed --locks 3 --cs-lines 4 --seed 7

# The steady window, hold shares and thread classes.  Class checks take
# "excl CS_LINES CLASS_CS..." after the thread count.
expect_json "mutexbench hold units: one class is --cs-work" mutex mutex 3 excl 2 25 -- \
	"$MB" --json --seconds $S --threads 3 --cs-work 25 --cs-lines 2
expect_json "mutexbench --mixed 10: two classes, half each" mutex mutex 4 excl 0 10 100 -- \
	"$MB" --json --seconds $S --threads 4 --mixed 10
expect_json "mutexbench --mixed with --cs-work given after it" mutex mutex 5 excl 0 7 21 -- \
	"$MB" --json --seconds $S --threads 5 --mixed 3 --cs-work 7
expect_json "mutexbench --classes 5,0,20 over 5 threads" mutex mutex 5 excl 1 5 0 20 -- \
	"$MB" --json --seconds $S --threads 5 --classes 5,0,20 --cs-lines 1
expect_json "mutexbench --classes in rwlock mode" mutex rwlock 4 excl 0 3 30 -- \
	"$MB" --json --seconds $S --threads 4 --classes 3,30 --mode rwlock --read-pct 50
WANT_NICE=0,3 expect_json "mutexbench --nice 0,3: per-thread nice values" mutex mutex 4 -- \
	"$MB" --json --seconds $S --threads 4 --nice 0,3
expect_json "mutexbench --time-holds" mutex mutex 4 excl 0 10 100 -- \
	"$MB" --json --seconds $S --threads 4 --mixed 10 --time-holds
WANT_LIMIT=1 expect_json "mutexbench --limit: one thread alone first, and the ratio" mutex mutex 3 -- \
	"$MB" --json --seconds $S --threads 3 --cs-work 4 --ncs-work 20 --limit
WANT_LIMIT=1 expect_json "mutexbench --limit in rwlock mode" mutex rwlock 2 -- \
	"$MB" --json --seconds $S --threads 2 --mode rwlock --limit
expect_json "mutexbench --warmup 0" mutex mutex 2 -- "$MB" --json --seconds $S --threads 2 --warmup 0
expect_json "mutexbench --warmup 0.05, 1 thread" mutex mutex 1 -- \
	"$MB" --json --seconds $S --threads 1 --warmup 0.05

# A thread sleeping 1 s before its first op holds the window back
# ("all_acquired"); sleeping past the 2 s cap, the window opens without it
# ("timeout").  Both sleeps dwarf the 0.05 s warm-up, so a busy machine
# would have to stall the main thread for a second to change the rule.
WANT_RULE=all_acquired WANT_LATE=1 expect_json "mutexbench window waits for a late thread" \
	mutex mutex 3 -- "$MB" --json --seconds 0.1 --threads 3 --warmup 0.05 --late-thread 1
WANT_RULE=timeout expect_json "mutexbench window opens after the cap without a starved thread" \
	mutex mutex 3 -- "$MB" --json --seconds 0.1 --threads 3 --warmup 0 --late-thread 3.2

# Request mode: every request timed (percentiles ordered, the worst
# thread's p99 between the p99 and the max); with one thread its p99 is
# the p99 of all requests, and every short window's share is 1.
expect_json "mutexbench request mode" mutex request 4 -- \
	"$MB" --json --seconds $S --mode request --cs-work 60 --ncs-work 20
expect_json "mutexbench request mode, 1 thread" mutex request 1 -- \
	"$MB" --json --seconds $S --mode request --threads 1
expect_json "mutexbench request mode, 3 locks" mutex request 3 -- \
	"$MB" --json --seconds $S --mode request --threads 3 --locks 3

# An unfair setting by construction: thread 1's critical section is 10^7
# dependent PRNG steps, at least 5 ms on any CPU (2 G steps/s would take
# one step per cycle at 5 GHz; a slow or loaded machine only lengthens it).
# Thread 0 cannot acquire while thread 1 holds the lock, and thread 1's
# own acquisitions lie a section apart, so some thread goes at least 5 ms
# without one (unless thread 1 starves the whole window: longer still).
WANT_STRETCH_US=5000 expect_json "mutexbench a 10^7-step section shows a 5 ms stretch" \
	mutex mutex 2 excl 0 0 10000000 -- "$MB" --json --seconds $S --threads 2 --classes 0,10000000

expect_json "mutexbench rwlock, 2 locks" mutex rwlock 4 -- \
	"$MB" --json --seconds $S --mode rwlock --locks 2 --read-pct 90
expect_json "mutexbench rwlock, readers only" mutex rwlock 3 -- \
	"$MB" --json --seconds $S --mode rwlock --threads 3 --read-pct 100 --cs-lines 2

# The checker must catch a thread that skips the lock.
for m in mutex mixed rwlock request; do
	name="mutexbench --break-exclusion ($m) is detected"
	run "$MB" --json --seconds $S --threads 2 --mode $m --break-exclusion
	why=$(check_json mutex $m 2 broken)
	if [ "$rc" -ne 1 ]; then bad "$name" "exit $rc, expected 1"
	elif ! grep -q '^mutexbench: mutual exclusion violated: ' "$TMP/err"; then bad "$name" "no violation message"
	elif [ -n "$why" ]; then bad "$name" "$why"
	else ok "$name"; fi
done

expect_usage_error "mutexbench unknown flag" "$MB" --bogus
expect_usage_error "mutexbench non-number" "$MB" --threads abc
expect_usage_error "mutexbench threads < 1" "$MB" --threads 0
expect_usage_error "mutexbench unknown mode" "$MB" --mode spin
expect_usage_error "mutexbench missing argument" "$MB" --seconds
expect_usage_error "mutexbench bad seconds" "$MB" --seconds 1x
expect_usage_error "mutexbench read-pct > 100" "$MB" --mode rwlock --read-pct 101
expect_usage_error "mutexbench condvar needs 2 threads" "$MB" --mode condvar --threads 1
expect_usage_error "mutexbench bad --classes" "$MB" --classes 10,x
expect_usage_error "mutexbench empty class" "$MB" --classes 10,,20
expect_usage_error "mutexbench negative class" "$MB" --classes -1,2
expect_usage_error "mutexbench more classes than threads" "$MB" --threads 2 --classes 1,2,3
expect_usage_error "mutexbench --mixed and --classes" "$MB" --mixed 10 --classes 1,2
expect_usage_error "mutexbench --mixed 0" "$MB" --mixed 0
expect_usage_error "mutexbench negative --warmup" "$MB" --warmup -0.1
expect_usage_error "mutexbench bad --nice" "$MB" --nice 0,x
expect_usage_error "mutexbench --limit in condvar mode" "$MB" --limit --mode condvar
expect_usage_error "mutexbench --limit with classes" "$MB" --limit --threads 2 --mixed 10
expect_usage_error "mutexbench negative --nice" "$MB" --nice -1
expect_usage_error "mutexbench --nice over 19" "$MB" --nice 20

# ---- leveldb_bench ----
if ldd "$LB" | grep -q 'libleveldb\.so'; then ok "leveldb_bench links the shared libleveldb"
else bad "leveldb_bench links the shared libleveldb" "not in ldd output"; fi

expect_json "leveldb all four workloads" leveldb 2 fillseq fillrandom readrandom readwhilewriting -- \
	"$LB" --json --num 20000 --threads 2
expect_json "leveldb read first fills silently" leveldb 2 readrandom=all -- \
	"$LB" --json --num 5000 --threads 2 --benchmarks readrandom
expect_json "leveldb --seconds caps reads by time" leveldb 3 readwhilewriting=all -- \
	"$LB" --json --num 5000 --threads 3 --seconds 0.2 --benchmarks readwhilewriting

run "$LB" --num 5000 --threads 2 --benchmarks fillseq,readrandom
re1='^fillseq +: +[0-9.]+ micros/op; +[0-9]+ ops/s \(1 thread\)$'
re2='^readrandom +: +[0-9.]+ micros/op; +[0-9]+ ops/s \(2 threads, 5000 of 5000 found\)$'
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && head -1 "$TMP/out" | grep -Eq "$re1" &&
   tail -1 "$TMP/out" | grep -Eq "$re2"
then ok "leveldb human lines"; else bad "leveldb human lines" "exit $rc: $(head -c 300 "$TMP/out")"; fi

run "$LB" --db "$TMP/db" --num 1000 --benchmarks fillseq --value-size 10 --cache-mb 1
if [ "$rc" -eq 0 ] && [ -f "$TMP/db/CURRENT" ]; then ok "leveldb --db DIR is used and kept"
else bad "leveldb --db DIR is used and kept" "exit $rc, CURRENT missing"; fi

run "$LB" --db /proc/no-such-dir/db --num 10
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^leveldb_bench: ' "$TMP/err"
then ok "leveldb runtime error exits 1"; else bad "leveldb runtime error exits 1" "exit $rc: $(head -c 200 "$TMP/err")"; fi

expect_usage_error "leveldb unknown flag" "$LB" --bogus
expect_usage_error "leveldb unknown benchmark" "$LB" --benchmarks fillseq,nosuch
expect_usage_error "leveldb non-number" "$LB" --num 10k
expect_usage_error "leveldb threads < 1" "$LB" --threads 0

# ---- bench/nativebench: the native API (lockswap_with) against a pthread mutex ----
NB=$B/bench/nativebench
# check_native NAME LOCK THREADS: $TMP/out holds one JSON line with every key,
# the exclusion check held (the counter is the calls that returned), and the
# shares match per_thread_ops.
check_native() {
	local problem
	problem=$(check_json native "$2" "$3")
	if [ "$rc" -ne 0 ]; then bad "$1" "exit $rc: $(head -c 300 "$TMP/err")"
	elif [ -n "$problem" ]; then bad "$1" "$problem"
	else ok "$1"; fi
}
for lk in pthread bcs bcs-wf combining; do
	run "$NB" --json --lock $lk --threads 4 --seconds 0.1 --warmup 0.05 --cs-work 10 --ncs-work 10
	check_native "nativebench --lock $lk: JSON, exclusion held" $lk 4
done
if [ -f "$ROOT/liblockswap.so" ]; then
	run env LD_PRELOAD="$ROOT/liblockswap.so" LOCKSWAP_BACKEND=futex \
		"$NB" --json --lock pthread --threads 3 --seconds 0.1 --warmup 0.05
	check_native "nativebench --lock pthread under LD_PRELOAD futex" pthread 3
fi
# The checker itself: with no lock, 4 threads doing 200-step read-work-write
# sections for 0.1 s lose updates, and the run must say so and exit 1.
run "$NB" --json --lock none --threads 4 --seconds 0.1 --warmup 0 --cs-work 200
if [ "$rc" -eq 1 ] && grep -q '"exclusive": false' "$TMP/out" && grep -q 'exclusion failed' "$TMP/err"
then ok "nativebench --lock none: lost updates detected, exit 1"
else bad "nativebench --lock none: lost updates detected, exit 1" "exit $rc: $(head -c 200 "$TMP/out")"; fi
expect_usage_error "nativebench unknown lock" "$NB" --lock nosuch
expect_usage_error "nativebench threads < 1" "$NB" --threads 0
expect_usage_error "nativebench seconds not a number" "$NB" --seconds 1x
# --spin: every waiter parks at once (0) and the sections stay exclusive;
# out of range or not a number is a usage error.
run "$NB" --json --lock combining --threads 4 --seconds 0.1 --warmup 0.05 --spin 0
SPIN=0 check_native "nativebench --lock combining --spin 0: JSON, exclusion held" combining 4
expect_usage_error "nativebench spin < 0" "$NB" --spin -1
expect_usage_error "nativebench spin > 1000000" "$NB" --spin 1000001
expect_usage_error "nativebench spin not a number" "$NB" --spin lots

# ---- under the interposer, when it has been built ----
LIB=$ROOT/liblockswap.so
if [ -f "$LIB" ]; then
	expect_json "preloaded mutexbench mixed" mutex mixed 4 -- \
		env LD_PRELOAD="$LIB" "$MB" --json --seconds $S --mode mixed --locks 2
	expect_json "preloaded mutexbench condvar" mutex condvar 4 -- \
		env LD_PRELOAD="$LIB" "$MB" --json --seconds $S --mode condvar
	for rw in futex bravo slice; do
		expect_json "preloaded mutexbench rwlock ($rw)" mutex rwlock 4 -- \
			env LD_PRELOAD="$LIB" LOCKSWAP_RWLOCK=$rw "$MB" --json --seconds $S --mode rwlock --read-pct 95
	done
	expect_json "preloaded leveldb readwhilewriting" leveldb 2 readwhilewriting=all -- \
		env LD_PRELOAD="$LIB" "$LB" --json --num 5000 --threads 2 --benchmarks readwhilewriting
	# scripts/manycore-delegation.sh end to end, tiny: a backend this build
	# lacks is left out with a line, the user's tunables are kept beside
	# rseq=0, and the summary has a row per thread count and backend.
	name="manycore-delegation.sh runs end to end"
	run env BACKENDS="glibc futex nosuch" THREADS=2 LDB_THREADS=2 RUNS=2 DUR=0.05 NO_BUILD=1 \
		GLIBC_TUNABLES=glibc.malloc.check=0 bash "$ROOT/scripts/manycore-delegation.sh" "$TMP/mcd"
	sum=$TMP/mcd/summary.md
	if [ "$rc" -ne 0 ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif ! grep -q "backend 'nosuch' is not in this build's list" "$TMP/err" ||
	     ! grep -q '^left out (not in this build): nosuch$' "$sum"; then bad "$name" "nosuch not reported"
	elif ! grep -q '^GLIBC_TUNABLES: glibc.malloc.check=0:glibc.pthread.rseq=0$' "$sum"; then
		bad "$name" "tunables: $(grep GLIBC_TUNABLES "$sum")"
	elif [ "$(grep -cE '^\| 2 \| (glibc|futex) \| [0-9]' "$sum")" -ne 6 ] ||
	     grep -q '^Not run' "$sum" || ! grep -q '^Failed runs: 0 ' "$sum"; then
		bad "$name" "summary: $(head -c 400 "$sum")"
	else ok "$name"; fi
	# scripts/manycore/seeds.sh, its native step only (the CAS build of its
	# Q1 step takes too long here): both tables have every variant, the
	# exclusion held; a step that does not fit the budget is named as
	# skipped; an unknown step is refused with one line.
	name="manycore/seeds.sh m2 runs end to end"
	run env STEPS=m2 LS_MANYCORE_QUICK=1 ROUNDS=1 DUR=0.05 bash "$ROOT/scripts/manycore/seeds.sh" "$TMP/seeds"
	sum=$TMP/seeds/summary.md
	if [ "$rc" -ne 0 ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif [ "$(grep -cE '^\| (futex|tts|glibc|combining|combining-spin0|bcs) \| [0-9]' "$sum")" -ne 12 ] ||
	     ! grep -q "^every run's exclusion check held: True$" "$sum"; then
		bad "$name" "summary: $(head -c 400 "$sum")"
	else ok "$name"; fi
	run env STEPS=q5 BUDGET=0 bash "$ROOT/scripts/manycore/seeds.sh" "$TMP/seeds1"
	if [ "$rc" -eq 0 ] && grep -q '^skipped: ' "$TMP/seeds1/summary.md" && [ ! -e "$TMP/seeds1/handover.jsonl" ]
	then ok "manycore/seeds.sh skips a step that does not fit the budget"
	else bad "manycore/seeds.sh skips a step that does not fit the budget" "exit $rc: $(head -c 300 "$TMP/seeds1/summary.md")"; fi
	run env STEPS="m2 m3" bash "$ROOT/scripts/manycore/seeds.sh" "$TMP/seeds2"
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "unknown step 'm3'" "$TMP/err"
	then ok "manycore/seeds.sh refuses an unknown step"
	else bad "manycore/seeds.sh refuses an unknown step" "exit $rc: $(head -c 200 "$TMP/err")"; fi
	# bcs with no spinning at 2 threads: exclusion holds under the rules for
	# threads <= CPUs (a parked FIFO head is woken to compete), and
	# LOCKSWAP_BCS_COUNTS prints its one line of counters at exit.
	for b in bcs bcs-wf; do
		name="preloaded mutexbench under $b, SPIN=0, BCS_COUNTS"
		run env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND=$b LOCKSWAP_SPIN=0 LOCKSWAP_BCS_COUNTS=on \
			"$MB" --json --seconds $S --threads 2
		if [ "$rc" -ne 0 ] || ! grep -q '"exclusion_ok":true' "$TMP/out"; then
			bad "$name" "exit $rc: $(head -c 300 "$TMP/out")"
		elif ! grep -qE '^lockswap: bcs counts: slow_locks=[0-9]+ parks=[0-9]+ lost_races=[0-9]+ grants=[0-9]+ grants_parked=[0-9]+ retries=[0-9]+ retries_parked=[0-9]+ parked_skips=[0-9]+ own_cpu_waits=[0-9]+$' "$TMP/err"; then
			bad "$name" "no counters line: $(head -c 300 "$TMP/err")"
		else ok "$name"; fi
	done
	# scripts/manycore-issue38.sh, its default part: the matrix of
	# scripts/default-matrix.sh, tiny (4 rows, 3 arms, 2 rounds of 0.05 s):
	# every row has a cell for every arm, and the report judges each arm.
	name="manycore-issue38.sh default part (the default matrix) runs end to end"
	run env LS_MANYCORE_QUICK=1 PARTS=default bash "$ROOT/scripts/manycore-issue38.sh" "$TMP/m38"
	mx=$TMP/m38/default/matrix.md
	if [ "$rc" -ne 0 ] || [ ! -f "$mx" ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif [ "$(grep -cE '^\| (short-1|short-2|rw99-2|p999-short-2) \| (micro|latency) \| .*\*\*[0-9.]+\*\* .*\*\*[0-9.]+\*\*' "$mx")" -ne 4 ] ||
	     [ "$(grep -cE '^\| `(futex|slice:futex),RWLOCK=(futex|slice)` \| .*(meets them|misses)' "$mx")" -ne 2 ] ||
	     ! grep -q '^Finished in ' "$TMP/m38/summary.md"; then
		bad "$name" "matrix: $(head -c 600 "$mx")"
	else ok "$name"; fi
	# scripts/default-matrix.sh with limit rows alone (no paired rows): the
	# report still comes, with the limit table (a row per arm).
	name="default-matrix.sh with limit rows alone writes its report"
	run env ARMS="glibc slice:futex" RUNS=2 WARMUP=0 LIMIT_THREADS=2 LIMIT_SECONDS=0.05 ROWS="limit-short-2" \
		bash "$ROOT/scripts/default-matrix.sh" "$TMP/dml"
	mx=$TMP/dml/matrix.md
	if [ "$rc" -ne 0 ] || [ ! -f "$mx" ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif [ "$(grep -cE '^\| limit-short-2-(glibc|slice_futex) \| .* \*\*[0-9.]+\*\* \[' "$mx")" -ne 2 ]; then
		bad "$name" "report: $(head -c 600 "$mx")"
	else ok "$name"; fi
	# scripts/manycore/bcs.sh end to end, tiny: every arm has a row in the
	# A/B table, the counters table and the native table.
	name="manycore/bcs.sh runs end to end"
	run env LS_MANYCORE_QUICK=1 bash "$ROOT/scripts/manycore/bcs.sh" "$TMP/mcb"
	md=$TMP/mcb/bcs.md
	if [ "$rc" -ne 0 ] || [ ! -f "$md" ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif [ "$(sed -n '/^## Throughput/,/^## Hand/p' "$md" |
	          grep -cE '^\| 2 \| (futex|glibc|bcs|bcs-wf|bcs,BCS_OWN_CPU=off) \| [0-9]')" -ne 5 ] ||
	     [ "$(grep -cE '^\| (futex|bcs|bcs-wf|bcs-own-cpu-off) \| 2 \| [0-9]' "$md")" -ne 4 ] ||
	     [ "$(sed -n '/^## The native API/,$p' "$md" |
	          grep -cE '^\| 2 \| (futex|glibc|bcs|bcs-wf|combining) \| [0-9]')" -ne 5 ]; then
		bad "$name" "tables: $(head -c 600 "$md")"
	else ok "$name"; fi
	# scripts/manycore/wake.sh end to end, tiny: a paired row for each
	# section at 2 threads.
	name="manycore/wake.sh runs end to end"
	run env LS_MANYCORE_QUICK=1 bash "$ROOT/scripts/manycore/wake.sh" "$TMP/mcw"
	md=$TMP/mcw/wake.md
	if [ "$rc" -ne 0 ] || [ ! -f "$md" ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif [ "$(grep -cE '^\| (short|shorter) \| 2 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|' "$md")" -ne 2 ]; then
		bad "$name" "table: $(head -c 600 "$md")"
	else ok "$name"; fi
	# manycore-issue38.sh part slices, tiny: every slice:* backend's
	# ratio to glibc, and bench/startup.py's row for the library (its
	# added time over no preload, with an interval).
	name="manycore-issue38.sh slices part runs end to end"
	run env LS_MANYCORE_QUICK=1 PARTS=slices bash "$ROOT/scripts/manycore-issue38.sh" "$TMP/m38s"
	md=$TMP/m38s/slices/slices.md
	if [ "$rc" -ne 0 ] || [ ! -f "$md" ]; then bad "$name" "exit $rc: $(tail -c 300 "$TMP/err")"
	elif [ "$(grep -cE '^\| 2 \| ([0-9.]+ \[[0-9.]+, [0-9.]+\] [a-z ]+\| ?){5}$' "$md")" -lt 1 ] ||
	     ! grep -qE '^lockswap +[0-9.]+ +[-+][0-9.]+ \[[-+][0-9.]+, [-+][0-9.]+\]$' \
	          "$TMP/m38s/slices/startup.txt"; then
		bad "$name" "slices.md: $(head -c 400 "$md"); startup: $(cat "$TMP/m38s/slices/startup.txt" 2>/dev/null)"
	else ok "$name"; fi
else
	echo "ok - preloaded runs # SKIP $LIB not built"
	pass=$((pass + 1))
fi

finish
