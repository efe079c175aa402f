#!/usr/bin/env bash
# Group "ces": a program cannot tell a delegated critical section apart
# (docs/delegation.md, its table row by row).  Every program runs under
# futex (the control) and under ces, and must pass the same checks under
# both; under ces each scenario also checks that its sections did run
# delegated.  Then:
#   - a process whose threads all wait ends on SIGTERM / SIGINT, or runs
#     its handler, under both;
#   - under ces with the statistics on, every reason a section goes home
#     for is counted (reasons.c);
#   - the go-home table (interpose/away/calls.def), the library's exports
#     and docs/delegation.md's list agree;
#   - the differential test (difftest.py): randomized programs doing many
#     things in critical sections print the same under futex and ces.
set -u
. "$(dirname "$0")/../lib.sh"
P=$B/ces
start=$(date +%s)

programs=(signals state locks tls_dtor selfdead reasons gc)
# (hang.c runs apart, below: under ces it must hang.)

# run_prog BACKEND PROG [env...]: counts the program's checks; gc prints
# none and must exit 0.
run_prog() {
	local b=$1 prog=$2
	shift 2
	local log=$LOGS/ces-$b-$prog.log
	env "$@" LOCKSWAP_BACKEND="$b" LD_PRELOAD="$LIB" timeout 120 "$P/$prog" >"$log" 2>&1
	local rc=$?
	local p f
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^FAIL - ' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "$prog under $b exited $rc$([ $rc -eq 124 ] && echo ' (timeout: hang)'): $(tail -2 "$log" | tr '\n' ' ')"
	elif [ "$f" -ne 0 ]; then
		echo "FAIL - $prog under $b: $f check(s) failed (see $log)"
		grep '^FAIL' "$log" | head -5 | sed 's/^/    /'
	elif [ "$p" -eq 0 ]; then
		ok "$prog under $b ran to its end: $(tail -1 "$log")"
	else
		echo "ok - $prog under $b ($p checks)"
	fi
	# gc reports no backend: the statistics' summary line says it.
	if [ "$prog" != gc ] && ! grep -q "(backend $b)\$" "$log"; then
		fail "$prog: not served by backend $b: $(grep -m1 '^# ' "$log")"
	fi
}

for b in futex ces; do
	for prog in "${programs[@]}"; do
		[ -x "$P/$prog" ] || { fail "$P/$prog is not built (make all)"; continue; }
		run_prog "$b" "$prog"
	done
done

# ---- a process whose threads all wait --------------------------------
# allwait: a deadlock of two threads and the main thread; the signal must
# end it (default action) or run its handler (exit 7).  10 s is the hang
# limit, not a speed target.
allwait() {
	local b=$1 mode=$2 sig=$3 want=$4
	local out=$LOGS/ces-allwait-$b-$mode-$sig.out
	LOCKSWAP_BACKEND=$b LD_PRELOAD=$LIB "$P/allwait" "$mode" >"$out" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
	sleep 0.2
	kill "-$sig" "$pid" 2>/dev/null
	(sleep 10; kill -KILL "$pid" 2>/dev/null) &
	local guard=$!
	wait "$pid"
	local rc=$?
	kill "$guard" 2>/dev/null
	wait "$guard" 2>/dev/null
	if [ "$rc" -eq "$want" ]; then
		ok "all threads waiting under $b: SIG$sig ($mode) ends the process (status $rc)"
	else
		fail "all threads waiting under $b: SIG$sig ($mode) gave status $rc, want $want$([ $rc -eq 137 ] && echo ' (it ignored the signal: killed after 10 s)')"
	fi
}
for b in futex ces; do
	allwait "$b" default TERM 143
	allwait "$b" default INT 130
	allwait "$b" handler TERM 7
	allwait "$b" handler INT 7
done

# ---- the one hang delegation keeps, and its report ----------------------
# hang.c: a section waits on a raw futex for its releaser's later progress.
# Under futex it ends; under ces it hangs, and the watchdog (on at 1000 ms
# under ces) must report it once, naming the lock, the waiter and the
# holder's site, before the 4 s limit ends the program.
out=$LOGS/ces-hang-futex.out
LOCKSWAP_BACKEND=futex LD_PRELOAD=$LIB timeout 20 "$P/hang" >"$out" 2>&1 &&
	grep -q '^hang: ended' "$out" &&
	ok "hang: under futex the section waits on its own thread and the program ends" ||
	fail "hang under futex: $(tail -2 "$out" | tr '\n' ' ')"
err=$LOGS/ces-hang-ces.err
LOCKSWAP_BACKEND=ces LD_PRELOAD=$LIB timeout 4 "$P/hang" >/dev/null 2>"$err"
n=$(grep -c '^lockswap: long wait: .* for mutex hot at queued_behind .* held by thread .*, which took it at waits_for_flag' "$err")
if [ "$n" -eq 1 ]; then
	ok "hang: under ces the watchdog names the lock, the waiter and the holder's site, once"
else
	fail "hang under ces: $n watchdog reports, want 1: $(head -c 400 "$err")"
fi

# ---- every reason a section goes home for is counted -------------------
json=$LOGS/ces-reasons.json
LOCKSWAP_BACKEND=ces LOCKSWAP_STATS=summary LOCKSWAP_STATS_FILE=$json LD_PRELOAD=$LIB \
	timeout 120 "$P/reasons" >/dev/null 2>&1
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) fail "${line#FAIL - }" ;;
	esac
done < <(/usr/bin/python3 - "$json" "$ROOT/core/runtime/home.h" <<'PY'
import json, re, sys
reasons = [r.lower() for r in re.findall(r"^\s*LS_BACK_(\w+)\s*[=,]", open(sys.argv[2]).read(), re.M)
           if r != "REASONS"]
try:
    d = json.load(open(sys.argv[1]))["delegation"]
except Exception as e:
    print(f"FAIL - reasons: no delegation section in the statistics ({e})")
    sys.exit()
for r in reasons:
    n = d["handbacks"].get(r, 0)
    print(("ok - " if n >= 1 else "FAIL - ") + f"reasons: a section that must go home for '{r}' did ({n})")
PY
)

# ---- one table: calls.def, the exports, the docs -----------------------
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) fail "${line#FAIL - }" ;;
	esac
done < <(/usr/bin/python3 "$ROOT/tests/ces/table.py" "$ROOT" "$LIB")

# ---- the differential test (small here; docs/delegation.md: longer) ------
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"FAIL - "*) fail "${line#FAIL - }" ;;
	*) echo "$line" ;;
	esac
done < <(/usr/bin/python3 "$ROOT/tests/ces/difftest.py" --lib "$LIB" --bin "$P/difftest" \
	--seeds "${LSTEST_DIFF_SEEDS:-12}" --logs "$LOGS")

# ---- the measurement script, tiny ---------------------------------------
tmp=$(mktemp -d)
if RUNS=2 DUR=0.05 THREADS=2 bash "$ROOT/scripts/ces-signals.sh" "$tmp/cs" >"$LOGS/ces-signals.log" 2>&1 &&
	grep -qE '^ces +[0-9]+ ' "$tmp/cs/mutexbench-2.txt" &&
	grep -q 'paired ratio' "$tmp/cs/mutexbench-2.txt" &&
	grep -q 'arch_prctl' "$tmp/cs/ces_costs.txt"; then
	ok "scripts/ces-signals.sh runs end to end (ces against futex, the costs)"
else
	fail "scripts/ces-signals.sh: $(tail -3 "$LOGS/ces-signals.log" | tr '\n' ' ')"
fi
rm -rf "$tmp"

echo "# ces group in $(($(date +%s) - start))s"
finish ces
