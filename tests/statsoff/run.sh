#!/usr/bin/env bash
# Group "statsoff": with LOCKSWAP_STATS=off no statistics code runs.
#
# The preload programs (mutex kinds including glibc-served ones, condvars,
# the single-threaded shortcut with fork and a dlopen()ed library) and the
# rwlock program that calls every rwlock verb (process-shared ones too)
# under each rwlock backend run under
# callgrind, fork children included, and every function that executed is
# listed.  No instruction may come from a file under stats/.  The
# statistics' state is written only by that code (stats/hooks.h: the
# options are handed to it, it keeps its own variables), so none of it is
# touched either.  Positive controls with LOCKSWAP_STATS=summary show the
# check would see the hooks run, from mutexes and from rwlocks.
set -u
. "$(dirname "$0")/../lib.sh"
P=$B/preload
command -v valgrind >/dev/null || { fail "valgrind is not installed (scripts/install-deps.sh installs it)"; finish statsoff; exit; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stats_files MODE BACKEND PROG [ARGS]: the files under stats/ that ran
# (PROG: a preload program, or a path under $B such as rwlock/errors;
# LOCKSWAP_RWLOCK passes through from the caller).
# --fair-sched: valgrind runs one thread at a time; without a fair hand-off
# a thread polling trylock (kinds.c) can starve the holder for seconds on a
# loaded machine, and a 10 s timedlock then fails the program.
prog_path() {
	case $1 in
	*/*) echo "$B/$1" ;;
	*) echo "$P/$1" ;;
	esac
}

stats_files() {
	local mode=$1 backend=$2 prog=$3
	shift 3
	rm -f "$tmp"/cg.*
	LOCKSWAP_STATS=$mode LOCKSWAP_BACKEND=$backend LD_PRELOAD=$LIB \
		timeout 600 valgrind --tool=callgrind --fair-sched=try --trace-children=yes \
		--callgrind-out-file="$tmp/cg.%p" "$(prog_path "$prog")" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	# A failed run is reported with its last words (the program's or valgrind's).
	[ $rc -eq 0 ] || { echo "rc=$rc: $(tail -3 "$tmp/out" "$tmp/err" 2>/dev/null | tr '\n' ' ' | cut -c1-400)"; return; }
	# fl= (file), fi=/fe= (inlined file), cfl=/cfi= (called): the files that ran.
	cat "$tmp"/cg.* | grep -E '^c?f[lie]=\([0-9]+\) ' | sed -E 's/^c?f.=\([0-9]+\) //' |
		grep -E '(^|/)stats/' | sort -u | tr '\n' ' '
}

for backend in futex glibc mcs; do
	for prog in kinds condvar single; do
		args=()
		[ $prog = single ] && args=("$P/libplugin.so")
		ran=$(stats_files off "$backend" "$prog" "${args[@]}")
		if [ -z "$ran" ]; then
			ok "$backend $prog: no statistics code ran with LOCKSWAP_STATS=off"
		else
			fail "$backend $prog: statistics code ran with LOCKSWAP_STATS=off: $ran"
		fi
	done
done

for rwlock in $(list_rw_backends); do
	ran=$(LOCKSWAP_RWLOCK=$rwlock stats_files off futex rwlock/errors)
	if [ -z "$ran" ]; then
		ok "rwlock $rwlock errors: no statistics code ran with LOCKSWAP_STATS=off"
	else
		fail "rwlock $rwlock errors: statistics code ran with LOCKSWAP_STATS=off: $ran"
	fi
done

ran=$(stats_files summary futex condvar)
case "$ran" in
*stats/record.c*) ok "control: with LOCKSWAP_STATS=summary the check sees the hooks run" ;;
*) fail "control: with LOCKSWAP_STATS=summary no statistics code was seen ($ran)" ;;
esac
# rwlock/errors takes no mutex: what runs is the rwlock path's.
ran=$(LOCKSWAP_RWLOCK=futex stats_files summary futex rwlock/errors)
case "$ran" in
*stats/record.c*) ok "control: with LOCKSWAP_STATS=summary the check sees the rwlock hooks run" ;;
*) fail "control: with LOCKSWAP_STATS=summary no statistics code was seen from rwlocks ($ran)" ;;
esac
finish statsoff
