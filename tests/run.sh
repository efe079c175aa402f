#!/usr/bin/env bash
# tests/run.sh - `make check`: every test group, then one total line.
#   groups: tests/unit (cmocka, directly linked) first, then every other
#   tests/*/run.sh.  With SAN set, only the unit group runs (the sanitizers
#   apply to the directly linked tests).  Each group's full log is in
#   build/test-logs/; the console shows ok/FAIL lines and group totals.
set -u
cd "$(dirname "$0")/.."
export B=${B:-build} SANDIR=${SANDIR:-build} SAN=${SAN:-}
. tests/rseq_off.sh
groups=(tests/unit/run.sh)
if [ -z "$SAN" ]; then
	for g in tests/*/run.sh; do
		[ "$g" = tests/unit/run.sh ] || groups+=("$g")
	done
fi
total_p=0 total_f=0 broken=0
start=$(date +%s)
for g in "${groups[@]}"; do
	name=$(basename "$(dirname "$g")")
	echo "== $name"
	gstart=$(date +%s)
	out=$(bash "$g" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	echo "== $name took $(( $(date +%s) - gstart ))s"
	line=$(printf '%s\n' "$out" | grep -E "^[a-z]+: [0-9]+ passed, [0-9]+ failed" | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL - group $name printed no summary (exit $rc)"
		broken=$((broken + 1))
		continue
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && broken=$((broken + 1)) && echo "FAIL - group $name exited $rc"
done
total_f=$((total_f + broken))
echo "== all groups in $(( $(date +%s) - start ))s${SAN:+ (SAN=$SAN)}"
echo "total: $total_p passed, $total_f failed"
[ "$total_f" -eq 0 ] && [ "$total_p" -gt 0 ]
