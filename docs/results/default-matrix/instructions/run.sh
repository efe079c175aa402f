#!/usr/bin/env bash
# run.sh - instructions per uncontended rwlock read pair and write pair
# (callgrind), without lockswap, through glibc's pass-through, under the
# slice rwlock and under the futex rwlock, for each library given: the
# numbers of docs/results.md section 17 ("The slice rwlock's uncontended
# calls ..."), in rwlock.txt.  The program is docs/tools/uncontended_rw.c
# and the count docs/hacking.md's per(): the difference of two callgrind
# runs (200,000 and 100,000 pairs) over 100,000, rounded.
#
#   bash docs/results/default-matrix/instructions/run.sh LABEL=LIB.so ...
#
# Deterministic: callgrind counts instructions, so no interleaving and no
# bench lock are needed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/uncontended_rw" "$root/docs/tools/uncontended_rw.c" -lpthread
cg() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | grep -oP 'Collected : \K[0-9]+'; }
per() { # preload rwlock rd|wr [--idle-thread]
	local a b
	a=$(LD_PRELOAD="$1" LOCKSWAP_RWLOCK=$2 cg "$tmp/uncontended_rw" 100000 "$3" ${4:-})
	b=$(LD_PRELOAD="$1" LOCKSWAP_RWLOCK=$2 cg "$tmp/uncontended_rw" 200000 "$3" ${4:-})
	echo $(( (b - a + 50000) / 100000 ))
}
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "$(valgrind --version); gcc $(gcc -dumpversion); $(ldd --version | head -1)"
printf '%-32s %-6s %8s %12s %8s %12s\n' library rwlock read "read, idle" write "write, idle"
row() { # label preload rwlock
	printf '%-32s %-6s %8s %12s %8s %12s\n' "$1" "$3" "$(per "$2" "$3" rd)" \
		"$(per "$2" "$3" rd --idle-thread)" "$(per "$2" "$3" wr)" "$(per "$2" "$3" wr --idle-thread)"
}
row "none (glibc without lockswap)" "" glibc
for arg in "$@"; do
	label=${arg%%=*} lib=${arg#*=}
	for rw in glibc slice futex; do
		row "$label" "$lib" "$rw"
	done
done
