#!/usr/bin/env bash
# Preload group: programs built against stock pthreads, run under
# LD_PRELOAD=liblockswap.so for every backend the library lists.
#   - each program's own ok/FAIL checks count, a crash or hang fails it;
#   - the same programs with LOCKSWAP_STATS=summary;
#   - the same programs under a preloaded jemalloc (both orders, statistics
#     off and on);
#   - LD_DEBUG=bindings: every reference to the interposed names, from the
#     executable, a linked library, a dlopen()ed one, libstdc++ and
#     libleveldb, binds to liblockswap.so;
#   - bad configuration: one line on stderr, the program's stdout unchanged,
#     run on glibc's own locks.
set -u
. "$(dirname "$0")/../lib.sh"
P=$B/preload
JEMALLOC=$(ls /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 2>/dev/null)

programs=(errors kinds condvar cancel forkt special cxx dlprog single errno_kept)
# FORKS: forkt's forks (its default 100 in the first loop; the statistics
# loop needs the fork handlers, not the count).
args_for() {
	case $1 in
	dlprog | single) echo "$P/libplugin.so" ;;
	forkt) echo "${FORKS:-100}" ;;
	esac
}

# run_prog LABEL PRELOAD PROG [env...]: counts the program's checks.
run_prog() {
	local label=$1 preload=$2 prog=$3
	shift 3
	local log=$LOGS/preload-${label//[:\/ ]/_}-$prog.log
	env "$@" LD_PRELOAD="$preload" timeout 180 "$P/$prog" $(args_for "$prog") >"$log" 2>&1
	local rc=$?
	local p f
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^FAIL - ' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
		echo "FAIL - $label $prog exited $rc$([ $rc -eq 124 ] && echo ' (timeout: hang)') (see $log)"
	elif [ "$f" -ne 0 ]; then
		echo "FAIL - $label $prog: $f check(s) failed (see $log)"
		grep '^FAIL' "$log" | head -5 | sed 's/^/    /'
	else
		echo "ok - $label $prog ($p checks)"
	fi
	# The program must have been served by the backend we asked for.
	if ! grep -q "backend ${label##*+}\b" "$log"; then
		fail "$label $prog: not served by backend ${label##*+}: $(grep -m1 '^# ' "$log")"
	fi
}

for b in $(list_backends); do
	for prog in "${programs[@]}"; do
		run_prog "$b" "$LIB" "$prog" LOCKSWAP_BACKEND="$b"
	done
done
# errno under every rwlock backend too (the loop above uses the default).
for rw in $(list_rw_backends); do
	run_prog "rwlock-$rw+futex" "$LIB" errno_kept LOCKSWAP_BACKEND=futex LOCKSWAP_RWLOCK="$rw"
done

# The same programs with statistics on: the hooks must not change how any
# call is served (the stats group runs them with "full" and checks what
# the hooks record).
for mode in summary; do
	for b in $(list_backends); do
		for prog in errors kinds condvar cancel forkt special single errno_kept; do
			FORKS=30 run_prog "stats-$mode+$b" "$LIB" "$prog" LOCKSWAP_BACKEND="$b" \
				LOCKSWAP_STATS=$mode LOCKSWAP_STATS_TOP=0
		done
	done
done

if [ -n "$JEMALLOC" ]; then
	for prog in kinds condvar cxx single; do
		run_prog "jemalloc+futex" "$LIB $JEMALLOC" "$prog" LOCKSWAP_BACKEND=futex
		run_prog "jemalloc-first+futex" "$JEMALLOC $LIB" "$prog" LOCKSWAP_BACKEND=futex
		run_prog "jemalloc+stats+futex" "$LIB $JEMALLOC" "$prog" LOCKSWAP_BACKEND=futex \
			LOCKSWAP_STATS=summary LOCKSWAP_STATS_TOP=0
		run_prog "jemalloc-first+stats+futex" "$JEMALLOC $LIB" "$prog" LOCKSWAP_BACKEND=futex \
			LOCKSWAP_STATS=full LOCKSWAP_STATS_TOP=0
	done
else
	fail "libjemalloc2 is not installed (scripts/install-deps.sh installs it)"
fi

# Bindings: every interposed name referenced by any object binds to us.
names='pthread_(mutex_(init|destroy|lock|trylock|timedlock|clocklock|unlock)|cond_(init|destroy|wait|timedwait|clockwait|signal|broadcast))'
check_bindings() {
	local what=$1
	shift
	local log=$LOGS/bindings-$what.log
	LD_DEBUG=bindings LD_DEBUG_OUTPUT=$log.raw LD_PRELOAD=$LIB "$@" >/dev/null 2>&1
	cat "$log".raw.* >"$log" 2>/dev/null
	rm -f "$log".raw.*
	local ours theirs
	# liblockswap.so's own dlvsym look-ups of glibc's functions are meant
	# to reach libc: only other objects' references count.
	grep -E "normal symbol \`$names'" "$log" | grep -v "binding file $LIB " >"$log.refs"
	ours=$(grep -c "to $LIB" "$log.refs")
	theirs=$(grep -v "to $LIB" "$log.refs" | sed -E 's/.*binding file ([^ ]*).* to ([^ ]*).*`([a-z_]*).*/\1 -> \2: \3/' | sort -u)
	if [ -z "$theirs" ] && [ "$ours" -gt 0 ]; then
		ok "bindings: $what: all $ours references to pthread mutex/cond names bind to liblockswap.so"
	else
		fail "bindings: $what: $ours bound to us; these did not: $(echo "$theirs" | head -5 | tr '\n' ';')"
	fi
	local objs
	objs=$(sed -E 's/.*binding file ([^ ]*) .*/\1/' "$log.refs" | xargs -n1 basename 2>/dev/null | sort -u | tr '\n' ' ')
	echo "    (referencing objects: $objs)"
}
check_bindings dlprog "$P/dlprog" "$P/libplugin.so"
check_bindings cxx "$P/cxx"
[ -x "$B/bench/leveldb_bench" ] && check_bindings leveldb "$B/bench/leveldb_bench" --benchmarks readrandom --num 2000 --threads 2

# Bad configuration: one line naming the problem, program unchanged, glibc.
bad_config() {
	local what=$1 expect=$2
	shift 2
	local out err
	out=$(env "$@" LD_PRELOAD=$LIB "$P/kinds" 2>"$LOGS/badcfg.err")
	local rc=$?
	err=$(cat "$LOGS/badcfg.err")
	if [ $rc -eq 0 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q -- "$expect" &&
	   echo "$out" | grep -q "backend glibc" && ! echo "$out" | grep -q lockswap:; then
		ok "bad config: $what -> '$err'"
	else
		fail "bad config: $what: rc=$rc stderr='$err' stdout-first-line='$(echo "$out" | head -1)'"
	fi
}
bad_config "unknown backend" "LOCKSWAP_BACKEND='nosuch': unknown backend (accepted: glibc, futex" LOCKSWAP_BACKEND=nosuch
bad_config "non-number spin" "LOCKSWAP_SPIN='12x': must be a whole number" LOCKSWAP_SPIN=12x
bad_config "spin out of range" "LOCKSWAP_SPIN='99999999': must be a whole number between 0 and 1000000" LOCKSWAP_SPIN=99999999
bad_config "bypass 0" "LOCKSWAP_BYPASS='0': must be a whole number between 1 and 16384" LOCKSWAP_BYPASS=0
bad_config "bad boolean" "LOCKSWAP_VERBOSE='maybe': not a boolean" LOCKSWAP_VERBOSE=maybe
bad_config "misspelt variable" "LOCKSWAP_BACKNED: unknown variable; did you mean LOCKSWAP_BACKEND?" LOCKSWAP_BACKNED=futex
bad_config "far from every name" "LOCKSWAP_XYZZY: unknown variable (known: LOCKSWAP_BACKEND" LOCKSWAP_XYZZY=1
bad_config "a typo discards every setting, and says so" "did you mean LOCKSWAP_BYPASS?.*no LOCKSWAP_\* setting applied, running on glibc's own locks" LOCKSWAP_BYPAS=8 LOCKSWAP_STATS=summary
bad_config "uncatchable stats signal" "LOCKSWAP_STATS_SIGNAL='KILL': signal 9 (KILL) cannot be caught" LOCKSWAP_STATS_SIGNAL=KILL LOCKSWAP_STATS=summary
bad_config "unknown stats signal" "LOCKSWAP_STATS_SIGNAL='FOO': not a signal name or number" LOCKSWAP_STATS_SIGNAL=FOO
bad_config "wrapper on a non-wrapper" "does not wrap another lock" LOCKSWAP_BACKEND=futex:glibc
# glibc's rseq registration on (this file's lib.sh turns it off for every
# run): ces refuses, since a delegated section would use the waiter's area.
bad_config "ces with rseq areas registered" "backend 'ces' cannot run here: glibc registered an rseq area.*GLIBC_TUNABLES=glibc.pthread.rseq=0" \
	GLIBC_TUNABLES= LOCKSWAP_BACKEND=ces

# What a delegated section sees (docs/delegation.md): under ces, and under
# futex as the control whose sections never move.
for b in ces futex; do
	run_prog "$b" "$LIB" delegated LOCKSWAP_BACKEND="$b"
	run_prog "stats-summary+$b" "$LIB" delegated LOCKSWAP_BACKEND="$b" LOCKSWAP_STATS=summary \
		LOCKSWAP_STATS_TOP=0
done

# Verbose: the configuration goes to stderr, stdout is the program's own.
# Without LOCKSWAP_BACKEND: the library's default, every INNER of its
# description named.
default_backend=$(option_default LOCKSWAP_BACKEND)
out=$(LOCKSWAP_VERBOSE=on LD_PRELOAD=$LIB "$P/kinds" 2>"$LOGS/verbose.err")
if grep -q "^lockswap .*backend=$default_backend " "$LOGS/verbose.err" &&
	! grep -q 'INNER' "$LOGS/verbose.err" && ! echo "$out" | grep -q '^lockswap'; then
	ok "verbose: configuration on stderr: $(head -1 "$LOGS/verbose.err")"
else
	fail "verbose: stderr='$(cat "$LOGS/verbose.err")'"
fi
finish preload
