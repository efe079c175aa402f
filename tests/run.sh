#!/usr/bin/env bash
# tests/run.sh - `make check`: every test group, then one total line.
#   groups: tests/unit (cmocka, directly linked) first, then every other
#   tests/*/run.sh.  With SAN set, only the unit group runs (the sanitizers
#   apply to the directly linked tests).  Each group's full log is in
#   build/test-logs/; the console shows ok/FAIL lines and group totals.
#
#   LSTEST_JOBS=N runs up to N groups at once (default 2).  Most groups
#   spend much of their time waiting (timeouts, fork, exec, Python start-up)
#   and none asserts a speed, so two at a time on 2 cores keeps the CPUs
#   busy; a group's output is printed whole when it ends, in the order the
#   groups end.  LSTEST_JOBS=1 runs them one after another.
set -u
cd "$(dirname "$0")/.."
export B=${B:-build} SANDIR=${SANDIR:-build} SAN=${SAN:-}
. tests/rseq_off.sh
jobs=${LSTEST_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0)
	echo "tests/run.sh: LSTEST_JOBS='$jobs' is not a positive number" >&2
	exit 2
	;;
esac

groups=(tests/unit/run.sh)
if [ -z "$SAN" ]; then
	# Longest first (seconds on a 2-vCPU machine, measured serially), so
	# that the last group to start is a short one.  Groups not listed run
	# after these, in name order.
	for name in stats leave preload cli bench docs statsoff deadlock ces manycore stress; do
		[ -f "tests/$name/run.sh" ] && groups+=("tests/$name/run.sh")
	done
	for g in tests/*/run.sh; do
		[[ " ${groups[*]} " == *" $g "* ]] || groups+=("$g")
	done
	# What the groups build on their own, built once here: two groups
	# running make on the same missing target at once would race.
	[ "$jobs" -gt 1 ] && make -s all "liblockswap-native.a" >/dev/null
fi

total_p=0 total_f=0 broken=0
start=$(date +%s)
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT

run_group() { # NAME SCRIPT: writes the group's output and its exit status
	local gstart=$(date +%s)
	bash "$2" >"$out_dir/$1.out" 2>&1
	echo $? >"$out_dir/$1.rc"
	echo $(( $(date +%s) - gstart )) >"$out_dir/$1.took"
}

tally() { # NAME: prints a finished group and adds it to the totals
	local name=$1 rc line p f
	echo "== $name"
	cat "$out_dir/$name.out"
	echo "== $name took $(cat "$out_dir/$name.took")s"
	rc=$(cat "$out_dir/$name.rc")
	line=$(grep -E "^[a-z]+: [0-9]+ passed, [0-9]+ failed" "$out_dir/$name.out" | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL - group $name printed no summary (exit $rc)"
		broken=$((broken + 1))
		return
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && broken=$((broken + 1)) && echo "FAIL - group $name exited $rc"
}

declare -A running=() # pid -> group name
for g in "${groups[@]}"; do
	name=$(basename "$(dirname "$g")")
	while [ ${#running[@]} -ge "$jobs" ]; do
		wait -n -p done_pid "${!running[@]}"
		tally "${running[$done_pid]}"
		unset "running[$done_pid]"
	done
	run_group "$name" "$g" &
	running[$!]=$name
done
while [ ${#running[@]} -gt 0 ]; do
	wait -n -p done_pid "${!running[@]}"
	tally "${running[$done_pid]}"
	unset "running[$done_pid]"
done

total_f=$((total_f + broken))
echo "== all groups in $(( $(date +%s) - start ))s${SAN:+ (SAN=$SAN)}"
echo "total: $total_p passed, $total_f failed"
[ "$total_f" -eq 0 ] && [ "$total_p" -gt 0 ]
