#!/bin/bash
# demo.sh - build lockswap, then A/B-test its lock backends on real programs:
# MutexBench at 2, 8 and 32 threads, LevelDB's readrandom, a contention
# profile of LevelDB, and a small thread-count sweep with plots.
# Everything lands in out/demo/; summary.md opens with the fastest backend,
# the fairest fast one and what the profile found.
#
#   bash scripts/demo.sh            (from a fresh clone; as root it installs
#                                    the Debian packages it needs)
#
# Settings (plain variables: a LOCKSWAP_* name would be rejected by the
# library as an unknown option):
#   DEMO_BACKENDS="glibc futex X"   backends to compare, the first is the
#                                   baseline (default: glibc, futex and up to
#                                   DEMO_MAX_OTHERS more, slice:futex first;
#                                   see PREFERRED below)
#   DEMO_MAX_OTHERS=5               how many more, by default
#   DEMO_RUNS=5                     measured rounds per comparison (+1 warm-up)
#   DEMO_SECONDS=0.5                length of one benchmark run
#   DEMO_OUT=out/demo               where the results go
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

MAX_OTHERS=${DEMO_MAX_OTHERS:-5}
RUNS=${DEMO_RUNS:-5}
SECS=${DEMO_SECONDS:-0.5}
OUT=${DEMO_OUT:-out/demo}
LOCKSWAP=(/usr/bin/python3 scripts/lockswap)

say() { printf '\n== %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

install_missing() {
	# One list of Debian packages for the whole project.
	bash scripts/install-deps.sh || die "could not install the Debian packages lockswap needs"
}

# What a first run should see, in this order after glibc (the baseline) and
# futex (the 0.3 default): lock slices (the default since 0.4, fair at
# glibc's speed or better, the README's headline), a FIFO lock (fair, slow with more threads than CPUs), bounded
# bypass, a spin-then-park lock, a delegation lock.  Names the library does
# not list are skipped.
PREFERRED="slice:futex mcs capacitor:futex tts bcs"

# glibc and futex, then PREFERRED, then the others: plain backends (a
# variant NAME-X of a backend NAME after the rest) and one WRAPPER:INNER per
# wrapper (INNER=futex if there is one), taken in turn; at most MAX_OTHERS
# after glibc and futex.  Reads the names, one a line; sets CHOSEN and
# LEFT_OUT.
choose_backends() {
	local all=() plain=() variants=() by_futex=() by_other=() wrapped=() wrappers=" " b
	local order=() seen=" "
	CHOSEN=() LEFT_OUT=()
	mapfile -t all
	for b in "${all[@]}"; do
		case "$b" in
		glibc | futex) CHOSEN+=("$b") ;;
		*:futex) by_futex+=("$b") ;;
		*:*) by_other+=("$b") ;;
		*-*) if printf '%s\n' "${all[@]}" | grep -qxF "${b%%-*}"; then
			     variants+=("$b")
		     else
			     plain+=("$b")
		     fi ;;
		*) plain+=("$b") ;;
		esac
	done
	plain+=("${variants[@]}")
	for b in "${by_futex[@]}" "${by_other[@]}"; do
		if [[ $wrappers == *" ${b%%:*} "* ]]; then
			LEFT_OUT+=("$b")
		else
			wrappers+="${b%%:*} "
			wrapped+=("$b")
		fi
	done
	for b in $PREFERRED; do
		if printf '%s\n' "${all[@]}" | grep -qxF "$b"; then
			order+=("$b")
			seen+="$b "
		fi
	done
	local i n=0
	for ((i = 0; i < ${#plain[@]} || i < ${#wrapped[@]}; i++)); do
		for b in "${plain[@]:i:1}" "${wrapped[@]:i:1}"; do
			[[ $seen == *" $b "* ]] || order+=("$b")
		done
	done
	for b in "${order[@]}"; do
		if [ $n -lt "$MAX_OTHERS" ]; then
			CHOSEN+=("$b")
			n=$((n + 1))
		else
			LEFT_OUT+=("$b")
		fi
	done
}

install_missing
say "building (make -j2)"
if ! make -j2; then
	echo "demo: the full build failed; building only what the demo runs" >&2
	make -j2 liblockswap.so bench-bins || die "make failed"
fi
for prog in build/bench/mutexbench build/bench/leveldb_bench; do
	[ -x "$prog" ] || die "$prog was not built (does bench/bench.mk exist yet?)"
done

if [ -n "${DEMO_BACKENDS:-}" ]; then
	read -r -a CHOSEN <<<"$DEMO_BACKENDS"
	LEFT_OUT=()
else
	names=$("${LOCKSWAP[@]}" list --names) || die "lockswap list failed"
	choose_backends <<<"$names"
fi
[ ${#CHOSEN[@]} -ge 2 ] || die "need two backends at least, have: ${CHOSEN[*]}"
B=()
for b in "${CHOSEN[@]}"; do B+=(-b "$b"); done

say "lockswap list"
"${LOCKSWAP[@]}" list
say "comparing: ${CHOSEN[*]} (baseline: ${CHOSEN[0]})"
if [ ${#LEFT_OUT[@]} -gt 0 ]; then
	echo "left out: ${LEFT_OUT[*]}"
	echo "(choose with DEMO_BACKENDS=\"glibc futex ...\" or DEMO_MAX_OTHERS=N)"
fi
k=${#CHOSEN[@]}
est=$(awk -v k="$k" -v r="$RUNS" -v s="$SECS" \
	'BEGIN { printf "%d", k * (r + 1) * (3 * (s + 0.05) + s + 0.5) + 4 * k * 3 * (s / 2 + 0.05) + s + 2 }')
echo "about $est s of runs on an idle machine; more on a busy one"

mkdir -p "$OUT" || die "cannot create $OUT"
AB=("${LOCKSWAP[@]}" ab "${B[@]}" --runs "$RUNS" --warmup 1 --timeout 60)
STATUS=0
for t in 2 8 32; do
	say "MutexBench, $t threads: throughput (ops/s)"
	"${AB[@]}" --json-key throughput --extra-key min_share --extra-key wait_p99_ns \
		--out "$OUT/mutexbench-${t}t" -- \
		build/bench/mutexbench --threads "$t" --seconds "$SECS" --json || STATUS=1
done

say "LevelDB readrandom, 8 threads: ops/s"
"${AB[@]}" --json-key ops_per_sec --extra-key min_share --out "$OUT/leveldb-readrandom" -- \
	build/bench/leveldb_bench --benchmarks readrandom --threads 8 --num 50000 \
	--seconds "$SECS" --json || STATUS=1

# Statistics alone: the program runs under the library's default backends
# (the headline names the backend from the profile's own "backend" field).
say "LevelDB readrandom, 8 threads: which locks are contended, and from where (LOCKSWAP_STATS=summary, default backends)"
PROFILE="$OUT/leveldb-profile"
if LOCKSWAP_STATS=summary LOCKSWAP_STATS_TOP=0 LOCKSWAP_STATS_FILE="$PROFILE.json" \
	LD_PRELOAD="$PWD/liblockswap.so" build/bench/leveldb_bench --benchmarks readrandom \
	--threads 8 --num 50000 --seconds "$SECS" >/dev/null; then
	"${LOCKSWAP[@]}" report "$PROFILE.json" --top 3 | tee "$PROFILE.txt" &&
		"${LOCKSWAP[@]}" report "$PROFILE.json" --by site --top 5 | tee -a "$PROFILE.txt" &&
		"${LOCKSWAP[@]}" report "$PROFILE.json" --pprof "$PROFILE.pb.gz" >/dev/null &&
		echo "pprof: go tool pprof -top $PROFILE.pb.gz" || STATUS=1
else
	echo "demo: the profiled LevelDB run failed" >&2
	STATUS=1
fi

say "sweep: MutexBench over 1, 2, 4, 8 threads"
"${LOCKSWAP[@]}" sweep "${B[@]}" --threads 1,2,4,8 --runs 3 --timeout 60 \
	--json-key throughput --out "$OUT/sweep" -- \
	build/bench/mutexbench --threads '{threads}' \
	--seconds "$(awk -v s="$SECS" 'BEGIN { print s / 2 }')" --json || STATUS=1

# Three lines a person can act on: the fastest backend, the fairest fast
# one, what the profile found (scripts/demo-headline.py).
HEADLINE="$OUT/headline.md"
/usr/bin/python3 scripts/demo-headline.py \
	--ab "MutexBench, 2 threads=$OUT/mutexbench-2t.json" \
	--ab "8 threads=$OUT/mutexbench-8t.json" \
	--ab "32 threads=$OUT/mutexbench-32t.json" \
	--ab "LevelDB readrandom, 8 threads=$OUT/leveldb-readrandom.json" \
	--fair "MutexBench, 2 threads=$OUT/mutexbench-2t.json" \
	--fair "8 threads=$OUT/mutexbench-8t.json" \
	--fair "32 threads=$OUT/mutexbench-32t.json" \
	--fair "LevelDB readrandom=$OUT/leveldb-readrandom.json" \
	--profile "LevelDB readrandom, 8 threads=$PROFILE.json" >"$HEADLINE" || STATUS=1
# The default at the limit (issue 45): its throughput over one thread
# alone's (MutexBench --limit, short section, 8 threads), a fourth line.
say "MutexBench, 8 threads: the default against one thread alone (--limit)"
if LD_PRELOAD="$PWD/liblockswap.so" build/bench/mutexbench --threads 8 --seconds "$SECS" \
	--limit --json >"$OUT/limit.json"; then
	/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(
	    "- **At the limit**: the default ran MutexBench (8 threads, short section) at %.2fx the "
	    "throughput of one thread alone (%s against %s ops/s), min share %.2f; 1.0 is the most a "
	    "lock that serves one owner at a time can do." % (d["limit_ratio"],
	    format(round(d["throughput"]), ","), format(round(d["limit_throughput"]), ","),
	    d["min_share"]))' "$OUT/limit.json" | tee -a "$HEADLINE"
else
	STATUS=1
fi

frontier() { # TITLE PNG: a frontier plot, if the comparison drew one
	[ -f "$OUT/$2" ] && printf '\n![%s](%s)\n' "$1" "$2"
	return 0
}

{
	echo "# lockswap demo"
	echo
	cat "$HEADLINE"
	echo
	echo "Backends: ${CHOSEN[*]} (baseline ${CHOSEN[0]})."
	[ ${#LEFT_OUT[@]} -gt 0 ] && echo "Left out: ${LEFT_OUT[*]}."
	frontier "MutexBench, 32 threads: fairness against speed" mutexbench-32t-frontier.png
	frontier "LevelDB readrandom, 8 threads: fairness against speed" leveldb-readrandom-frontier.png
	for f in "$OUT"/mutexbench-2t.md "$OUT"/mutexbench-8t.md "$OUT"/mutexbench-32t.md \
		"$OUT"/leveldb-readrandom.md "$OUT"/sweep.md; do
		[ -f "$f" ] && { echo; sed -e 's/^# /## /' -e 's/^## Runs/### Runs/' "$f"; }
	done
	[ -f "$OUT/sweep-throughput.png" ] && printf '\n![throughput](sweep-throughput.png)\n'
	[ -f "$OUT/sweep-fairness.png" ] && printf '\n![fairness](sweep-fairness.png)\n'
	frontier "sweep: fairness against speed per thread count" sweep-frontier.png
	[ -f "$PROFILE.txt" ] && printf '\n## LevelDB readrandom, 8 threads: contention profile\n\n```\n%s\n```\n' \
		"$(cat "$PROFILE.txt")"
} >"$OUT/summary.md"

say "results"
find "$OUT" -maxdepth 1 -type f | sort
say "in short (the top of $OUT/summary.md)"
cat "$HEADLINE"
[ $STATUS -eq 0 ] || echo "demo: some runs failed: see the 'failed runs' lists above" >&2
exit $STATUS
