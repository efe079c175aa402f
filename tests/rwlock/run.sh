#!/usr/bin/env bash
# rwlock group: pthread_rwlock_* and C11 mtx_*/cnd_* programs built against
# stock pthreads (tests/rwlock/*.c, *.cc), run
#   - without lockswap ("none"): the expectations are glibc's own answers;
#   - under every rwlock backend the library lists (LOCKSWAP_RWLOCK), C11
#     under the glibc, futex and queued mutex backends;
#   - LD_DEBUG=bindings: every rwlock/mtx/cnd reference binds to us;
#   - a bad LOCKSWAP_RWLOCK, or any bad option: one stderr line, and
#     rwlocks too run on glibc's own functions.
set -u
. "$(dirname "$0")/../lib.sh"
P=$B/rwlock

# run_prog LABEL WANT_RWLOCK PROG [env...]: counts the program's checks
# and confirms which rwlock backend served it.
run_prog() {
	local label=$1 want=$2 prog=$3
	shift 3
	local log=$LOGS/rwlock-$label-$prog.log
	if [ "$label" = none ]; then
		env "$@" timeout 120 "$P/$prog" >"$log" 2>&1
	else
		env "$@" LD_PRELOAD="$LIB" timeout 120 "$P/$prog" >"$log" 2>&1
	fi
	local rc=$? p f
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^FAIL - ' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "$label $prog exited $rc$([ $rc -eq 124 ] && echo ' (timeout: hang)') (see $log)"
	elif [ "$f" -ne 0 ]; then
		echo "FAIL - $label $prog: $f check(s) failed (see $log)"
		grep '^FAIL' "$log" | head -5 | sed 's/^/    /'
	else
		echo "ok - $label $prog ($p checks)"
	fi
	grep -q "^# rwlock $want\$" "$log" || fail "$label $prog: not served by rwlock backend $want: $(grep -m1 '^# rwlock' "$log")"
}

for prog in errors forkps shared_mutex readers_meet c11; do
	run_prog none none "$prog"
done
for rw in $(list_rw_backends); do
	for prog in errors forkps shared_mutex readers_meet; do
		run_prog "$rw" "$rw" "$prog" LOCKSWAP_RWLOCK="$rw"
	done
done
# C11 objects under a chosen mutex backend get the default rwlock backend.
default_rw=$(option_default LOCKSWAP_RWLOCK)
for mb in glibc futex queued; do
	run_prog "mutex-$mb" "$default_rw" c11 LOCKSWAP_BACKEND="$mb"
done

# Bindings: every reference to the new names binds to liblockswap.so.
names='pthread_rwlock_[a-z]*|mtx_[a-z]*|cnd_[a-z]*'
check_bindings() {
	local prog=$1 log=$LOGS/rwlock-bindings-$1.log
	LD_DEBUG=bindings LD_DEBUG_OUTPUT=$log.raw LD_PRELOAD=$LIB "$P/$prog" >/dev/null 2>&1
	cat "$log".raw.* >"$log" 2>/dev/null
	rm -f "$log".raw.*
	grep -E "normal symbol \`($names)'" "$log" | grep -v "binding file $LIB " >"$log.refs"
	local ours theirs
	ours=$(grep -c "to $LIB" "$log.refs")
	theirs=$(grep -v "to $LIB" "$log.refs" | sed -E 's/.*`([a-z_]*).*/\1/' | sort -u | tr '\n' ' ')
	if [ -z "$theirs" ] && [ "$ours" -gt 0 ]; then
		ok "bindings: $prog: all $ours references to rwlock/mtx/cnd names bind to liblockswap.so"
	else
		fail "bindings: $prog: $ours bound to us; these did not: $theirs"
	fi
}
check_bindings shared_mutex
check_bindings c11
check_bindings errors

# Bad configuration: one stderr line; rwlocks run on glibc's own functions.
bad_config() {
	local what=$1 expect=$2
	shift 2
	local out err rc
	out=$(env "$@" LD_PRELOAD="$LIB" "$P/errors" 2>"$LOGS/rwlock-badcfg.err")
	rc=$?
	err=$(cat "$LOGS/rwlock-badcfg.err")
	if [ $rc -eq 0 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q -- "$expect" &&
	   echo "$out" | grep -q '^# rwlock glibc$'; then
		ok "bad config: $what -> '$err'"
	else
		fail "bad config: $what: rc=$rc stderr='$err' rwlock='$(echo "$out" | grep '^# rwlock')'"
	fi
}
bad_config "unknown rwlock backend" "LOCKSWAP_RWLOCK='nosuch': not one of the accepted values (accepted: futex,bravo,slice,glibc)" LOCKSWAP_RWLOCK=nosuch
bad_config "another option bad" "LOCKSWAP_SPIN='x'" LOCKSWAP_RWLOCK=bravo LOCKSWAP_SPIN=x

err=$(LOCKSWAP_VERBOSE=on LOCKSWAP_RWLOCK=bravo LD_PRELOAD=$LIB "$P/errors" 2>&1 >/dev/null)
echo "$err" | grep -q ' RWLOCK=bravo' && ok "verbose: shows RWLOCK=bravo" || fail "verbose: '$err'"
finish rwlock
