#!/bin/bash
# instructions.sh LIB BACKEND [STATS] - exact instructions per uncontended
# lock+unlock pair (callgrind, build/bench/uncontended, 612,000 - 100,000
# pairs, rseq off), single-threaded and with an idle second thread.
cd "$(dirname "$0")/../../.."; . tests/rseq_off.sh
LIB=$1; B=$2; ST=$3; tmp=$(mktemp)
for mode in "" --idle-thread; do
	r=()
	for n in 100000 612000; do
		env ${ST:+LOCKSWAP_STATS=$ST} LOCKSWAP_BACKEND=$B LD_PRELOAD=$LIB valgrind --tool=callgrind \
			--callgrind-out-file="$tmp" build/bench/uncontended $n $mode >/dev/null 2>&1
		r+=($(callgrind_annotate "$tmp" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'))
	done
	python3 -c "print('%-12s %-8s %-14s %.2f' % ('$B', '${ST:-off}', '${mode:-single}', (${r[1]} - ${r[0]}) / 512000))"
done
rm -f "$tmp"
