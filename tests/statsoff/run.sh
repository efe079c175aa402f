#!/usr/bin/env bash
# Group "statsoff": with LOCKSWAP_STATS=off no statistics code runs.
#
# The preload programs (mutex kinds including glibc-served ones, condvars,
# the single-threaded shortcut with fork and a dlopen()ed library) run under
# callgrind, fork children included, and every function that executed is
# listed.  No instruction may come from a file under stats/.  The
# statistics' state is written only by that code (stats/hooks.h: the
# options are handed to it, it keeps its own variables), so none of it is
# touched either.  A positive control with LOCKSWAP_STATS=summary shows the
# check would see the hooks run.
set -u
. "$(dirname "$0")/../lib.sh"
P=$B/preload
command -v valgrind >/dev/null || { fail "valgrind is not installed (scripts/install-deps.sh installs it)"; finish statsoff; exit; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stats_files MODE BACKEND PROG [ARGS]: the files under stats/ that ran.
# --fair-sched: valgrind runs one thread at a time; without a fair hand-off
# a thread polling trylock (kinds.c) can starve the holder for seconds on a
# loaded machine, and a 10 s timedlock then fails the program.
stats_files() {
	local mode=$1 backend=$2 prog=$3
	shift 3
	rm -f "$tmp"/cg.*
	LOCKSWAP_STATS=$mode LOCKSWAP_BACKEND=$backend LD_PRELOAD=$LIB \
		timeout 600 valgrind --tool=callgrind --fair-sched=try --trace-children=yes \
		--callgrind-out-file="$tmp/cg.%p" "$P/$prog" "$@" >"$tmp/out" 2>"$tmp/err"
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

ran=$(stats_files summary futex condvar)
case "$ran" in
*stats/record.c*) ok "control: with LOCKSWAP_STATS=summary the check sees the hooks run" ;;
*) fail "control: with LOCKSWAP_STATS=summary no statistics code was seen ($ran)" ;;
esac
finish statsoff
