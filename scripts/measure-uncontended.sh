#!/usr/bin/env bash
# measure-uncontended.sh - the cost of an uncontended lock+unlock pair for
# each backend, both ways: in a single-threaded process, and with a second
# (idle) thread alive, since glibc and lockswap both take a shortcut while
# a process has one thread.  First instructions per pair from callgrind
# (deterministic), then timed interleaved A/Bs of the same program (medians
# and ratios to glibc without preload).
#
#   scripts/measure-uncontended.sh [BACKEND ...]     (default: every backend)
#   RUNS=N     rounds of each timed A/B (default 7)
#   ONLY=instructions|time    one half only
#
# "none" is the program without lockswap at all (glibc directly).
# Instructions per pair = (Ir(N2) - Ir(N1)) / (N2 - N1): the program's
# start-up and the library's initialisation cancel out.
set -eu
cd "$(dirname "$0")/.."
# Without glibc's rseq areas, as the tests and docs/hacking.md's table run:
# ces refuses to start with them, and its row would measure glibc's locks.
. tests/rseq_off.sh
make -s liblockswap.so build/bench/uncontended >/dev/null
LIB=$PWD/liblockswap.so
PROG=$PWD/build/bench/uncontended
N1=100000 N2=300000
if [ $# -gt 0 ]; then backends=("$@"); else mapfile -t backends < <(/usr/bin/python3 scripts/lockswap list --names); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ir() { # backend pairs [--idle-thread] -> total instructions; backend "none" = no preload
	local pre=$LIB
	[ "$1" = none ] && pre=
	# valgrind passes LD_PRELOAD on to the program (after its own preloads).
	LOCKSWAP_BACKEND=${1/none/glibc} LD_PRELOAD="$pre" valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/cg" "$PROG" "$2" ${3:-} >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	callgrind_annotate "$tmp/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'
}

if [ "${ONLY:-}" != time ]; then
	echo "instructions per lock+unlock pair (callgrind)"
	printf '%-18s %16s %16s\n' backend single-threaded "idle 2nd thread"
	for b in none "${backends[@]}"; do
		row=()
		for mode in "" --idle-thread; do
			a=$(ir "$b" $N1 $mode)
			c=$(ir "$b" $N2 $mode)
			row+=("$(( (c - a) / (N2 - N1) ))")
		done
		printf '%-18s %16s %16s\n' "$b" "${row[0]}" "${row[1]}"
	done
	echo
fi
[ "${ONLY:-}" = instructions ] && exit 0
# Timed: interleaved rounds, each running every configuration once in a
# fresh random order; "none" runs without LD_PRELOAD (lockswap ab always
# preloads, so the rounds are run here).  Medians, and their ratio to none.
for mode in "" --idle-thread; do
	echo "== timed, ${mode:-single-threaded process}: ns per lock+unlock pair, ${RUNS:-7} interleaved rounds of 5000000 pairs"
	LIB=$LIB PROG=$PROG RUNS=${RUNS:-7} /usr/bin/python3 - "$mode" none "${backends[@]}" <<'PY'
import json, os, random, statistics, subprocess, sys
mode, configs = sys.argv[1], sys.argv[2:]
res = {c: [] for c in configs}
for r in range(int(os.environ["RUNS"]) + 1):   # round 0 is a discarded warm-up
    order = configs[:]
    random.shuffle(order)
    for c in order:
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        if c != "none":
            env.update(LD_PRELOAD=os.environ["LIB"], LOCKSWAP_BACKEND=c)
        out = subprocess.run([os.environ["PROG"], "5000000", "--json"] + ([mode] if mode else []),
                             env=env, capture_output=True, text=True, check=True).stdout
        if r:
            res[c].append(json.loads(out.strip().splitlines()[-1])["ns_per_pair"])
base = statistics.median(res["none"])
print(f"{'config':<18} {'median':>8} {'min':>8} {'max':>8} {'ratio':>7}")
for c in configs:
    v = res[c]
    m = statistics.median(v)
    print(f"{c:<18} {m:8.2f} {min(v):8.2f} {max(v):8.2f} {m / base:7.3f}")
PY
done
