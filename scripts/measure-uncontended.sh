#!/usr/bin/env bash
# measure-uncontended.sh - instructions per uncontended lock+unlock pair for
# each backend, from callgrind (deterministic), then a timed interleaved A/B
# of the same program (medians and ratios to glibc).
#
#   scripts/measure-uncontended.sh [BACKEND ...]     (default: every backend)
#
# "none" is the program without lockswap at all (glibc directly).
# Instructions per pair = (Ir(N2) - Ir(N1)) / (N2 - N1): the program's
# start-up and the library's initialisation cancel out.
set -eu
cd "$(dirname "$0")/.."
make -s liblockswap.so build/bench/uncontended >/dev/null
LIB=$PWD/liblockswap.so
PROG=$PWD/build/bench/uncontended
N1=100000 N2=300000
if [ $# -gt 0 ]; then backends=("$@"); else mapfile -t backends < <(/usr/bin/python3 scripts/lockswap list --names); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ir() { # backend pairs -> total instructions; backend "none" = no preload
	local pre=$LIB
	[ "$1" = none ] && pre=
	# valgrind passes LD_PRELOAD on to the program (after its own preloads).
	LOCKSWAP_BACKEND=${1/none/glibc} LD_PRELOAD="$pre" valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/cg" "$PROG" "$2" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	callgrind_annotate "$tmp/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'
}

printf '%-18s %s\n' backend "instructions per lock+unlock pair (callgrind)"
for b in none "${backends[@]}"; do
	a=$(ir "$b" $N1)
	c=$(ir "$b" $N2)
	printf '%-18s %s\n' "$b" "$(( (c - a) / (N2 - N1) ))"
done
echo
bargs=()
for b in "${backends[@]}"; do bargs+=(-b "$b"); done
/usr/bin/python3 scripts/lockswap ab "${bargs[@]}" --runs "${RUNS:-7}" --json-key ns_per_pair \
	--lower-is-better -- "$PROG" 5000000 --json
