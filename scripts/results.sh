#!/usr/bin/env bash
# results.sh - the measurement campaign behind docs/results.md.  Every
# comparison is one interleaved, shuffled run (lockswap ab / sweep) with
# medians and bootstrap CIs; outputs (md, csv, json, png) go to out/results/.
#
#   bash scripts/results.sh [PART...]     parts: uncontended mutex long condvar
#                                         leveldb-read leveldb-fill ab capacitor fair
#                                         rwlock frontier slice manycore capacitor-hogs
#                                         (the last five not in the default set)
#   RESULTS_RUNS=3 RESULTS_SECONDS=0.3    rounds per point, seconds per run
#   RESULTS_BACKENDS="glibc futex ..."    default: every backend listed
#   RESULTS_THREADS=1,2,4,...             thread counts of the mutex sweeps (slice:
#                                         2,8,32; manycore: 4,16,64)
#   RESULTS_LDB_THREADS=1,2,...           thread counts of leveldb-read
#   RESULTS_SLICE_VARIANT=SLICE_SEATS=auto  slice, manycore: the slice:futex variant run
#                                         beside slice:futex (SLICE_BUSY=off for the
#                                         tables measured before groups; empty: none);
#                                         LevelDB runs it too when it is SEATS=auto
#   RESULTS_CAPACITOR_THREADS=4,8,16      manycore: the capacitor sweep's counts
#                                         (4,16 before 8 threads were added)
#   RESULTS_HOGS="0 1 2"                  capacitor-hogs: busy-loop processes beside
#                                         the runs (its threads: RESULTS_THREADS,
#                                         default one per CPU)
#   RESULTS_OUT=DIR                       default out/results
#   RESULTS_PYTHON=python3                the interpreter with numpy (default /usr/bin/python3)
#   RESULTS_NO_BUILD=1                    use the tree as built (a machine
#                                         without the build dependencies)
# Parts: uncontended mutex moderate long condvar leveldb-read leveldb-fill ab
# capacitor fair.
# Takes about 20-30 minutes for all parts on 2 cores.
set -eu
cd "$(dirname "$0")/.."
[ -n "${RESULTS_NO_BUILD:-}" ] || make -s all >/dev/null
OUT=${RESULTS_OUT:-out/results}
TH=${RESULTS_THREADS:-1,2,4,8,16,32,64}
VARIANT=${RESULTS_SLICE_VARIANT-SLICE_SEATS=auto}
mkdir -p "$OUT"
RUNS=${RESULTS_RUNS:-3}
SECS=${RESULTS_SECONDS:-0.3}
LS=("${RESULTS_PYTHON:-/usr/bin/python3}" scripts/lockswap)
if [ -n "${RESULTS_BACKENDS:-}" ]; then
	read -r -a backends <<<"$RESULTS_BACKENDS"
else
	mapfile -t backends < <("${LS[@]}" list --names)
fi
bflags=()
for b in "${backends[@]}"; do bflags+=(-b "$b"); done
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(uncontended mutex long condvar leveldb-read leveldb-fill ab capacitor fair)
MB=build/bench/mutexbench
LB=build/bench/leveldb_bench
sweep() { # name threads key -- cmd
	local name=$1 threads=$2 key=$3
	shift 4
	echo "== $name" >&2
	"${LS[@]}" sweep "${bflags[@]}" --threads "$threads" --runs "$RUNS" --json-key "$key" \
		--extra-key min_share --extra-key max_share --timeout 120 --out "$OUT/$name" -q -- "$@" | tee "$OUT/$name.txt"
}
# Busy-loop processes, killed when the script ends however it ends (an
# interrupt runs the EXIT trap through exit; background jobs of a script
# ignore SIGINT, so they would outlive it).  with_hogs must run in this
# shell, not in a pipeline's subshell, for the trap to see them.
hogs=()
stop_hogs() {
	[ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true
	wait "${hogs[@]}" 2>/dev/null || true
	hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
with_hogs() { # n cmd...: cmd with n busy loops competing for the CPUs
	local n=$1 i rc=0
	shift
	for ((i = 0; i < n; i++)); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	"$@" || rc=$?
	stop_hogs
	return $rc
}
slice_sweeps() { # short/moderate-threads mixed-threads leveldb-threads
	local keys=(--extra-key jain --extra-key hold_min_share --extra-key cpu_min_share
		--extra-key wait_p99_ns) w name th fk
	for w in "short:" "moderate:--cs-work 50 --ncs-work 400" "mixed:--mixed 10"; do
		name=slice-${w%%:*}; th=$1; fk=min_share
		[ "$name" = slice-mixed ] && th=$2 fk=class_hold_min_vs_equal
		echo "== $name" >&2
		# shellcheck disable=SC2086  # the workload's flags split on purpose
		"${LS[@]}" sweep "${bflags[@]}" --threads "$th" --runs "$RUNS" --json-key throughput \
			--fairness-key $fk "${keys[@]}" --timeout 120 --out "$OUT/$name" -q -- \
			$MB --threads {threads} --seconds 1 ${w#*:} --json | tee "$OUT/$name.txt"
	done
	echo "== slice-leveldb" >&2
	local ldb=(-b glibc -b futex -b slice:futex)
	[ "$VARIANT" != SLICE_SEATS=auto ] || ldb+=(-b "slice:futex,$VARIANT")
	"${LS[@]}" sweep "${ldb[@]}" \
		--threads "$3" --runs "$RUNS" --fairness-key min_share \
		--json-key ops_per_sec --timeout 120 --out "$OUT/slice-leveldb" -q -- \
		$LB --benchmarks readrandom --threads {threads} --num 100000 --seconds 1 --json |
		tee "$OUT/slice-leveldb.txt"
}
for part in "${parts[@]}"; do
	case $part in
	uncontended)
		RUNS=7 scripts/measure-uncontended.sh "${backends[@]}" | tee "$OUT/uncontended.txt" ;;
	mutex)
		sweep mutex-short "$TH" throughput -- \
			$MB --threads {threads} --seconds "$SECS" --cs-work 10 --ncs-work 10 --json ;;
	moderate)
		sweep mutex-moderate "$TH" throughput -- \
			$MB --threads {threads} --seconds "$SECS" --cs-work 50 --ncs-work 400 --json ;;
	long)
		sweep mutex-long "$TH" throughput -- \
			$MB --threads {threads} --seconds "$SECS" --cs-work 400 --cs-lines 4 --ncs-work 400 --json ;;
	condvar)
		sweep condvar 2,4,8,16,32,64 throughput -- \
			$MB --mode condvar --threads {threads} --seconds "$SECS" --json ;;
	leveldb-read)
		sweep leveldb-readrandom "${RESULTS_LDB_THREADS:-1,2,4,8,16,32}" ops_per_sec -- \
			$LB --benchmarks readrandom --threads {threads} --num 100000 --seconds "$SECS" --json ;;
	leveldb-fill)
		sweep leveldb-fillrandom 1,2,4,8,16,32 ops_per_sec -- \
			$LB --benchmarks fillrandom --threads {threads} --num 60000 --json ;;
	ab)
		for t in 2 8 32; do
			echo "== ab mutexbench $t threads" >&2
			"${LS[@]}" ab "${bflags[@]}" --runs 5 --warmup 1 --json-key throughput \
				--extra-key min_share --extra-key max_share --out "$OUT/ab-mutex-$t" -- \
				$MB --threads $t --seconds "$SECS" --json | tee "$OUT/ab-mutex-$t.txt"
		done
		echo "== ab condvar producer/consumer 8 threads" >&2
		"${LS[@]}" ab "${bflags[@]}" --runs 5 --warmup 1 --json-key throughput --out "$OUT/ab-condvar-8" -- \
			$MB --mode condvar --threads 8 --seconds "$SECS" --json | tee "$OUT/ab-condvar-8.txt" ;;
	capacitor)
		# The capacitor's knobs, against glibc and its bare inner lock.
		bflags=(-b glibc -b tts -b capacitor:tts -b capacitor:tts,BYPASS=16 -b capacitor:tts,BYPASS=64
		        -b capacitor:tts,CAPACITOR_MODE=contended -b capacitor:tts,CAPACITOR_SEM=ticket
		        -b capacitor:tts,CAPACITOR_SKIP=100)
		sweep capacitor-variants 2,8,32 throughput -- \
			$MB --threads {threads} --seconds "$SECS" --cs-work 10 --ncs-work 10 --json ;;
	fair)
		# queued with and without eventual fairness (LOCKSWAP_FAIR_US).
		bflags=(-b glibc -b queued -b queued,FAIR_US=100 -b queued,FAIR_US=1000 -b futex)
		sweep queued-fairness 2,8,32 throughput -- \
			$MB --threads {threads} --seconds "$SECS" --cs-work 10 --ncs-work 10 --json ;;
	rwlock)
		# every rwlock backend (LOCKSWAP_RWLOCK), mutex backend at its default
		for p in 50 90 99; do
			echo "== rwlock-sweep-$p" >&2
			"${LS[@]}" sweep -r glibc -r futex -r bravo -r slice --threads 1,2,4,8,16,32 --runs 5 \
				--json-key throughput --fairness-key min_share -q --out "$OUT/rwlock-sweep-$p" -- \
				$MB --mode rwlock --read-pct $p --threads {threads} --seconds 0.5 --json | tee "$OUT/rwlock-sweep-$p.txt"
		done
		"${LS[@]}" ab -r glibc -r futex -r bravo -r slice --runs 9 --json-key throughput -q --out "$OUT/rwlock-ab-99-8" -- \
			$MB --mode rwlock --read-pct 99 --threads 8 --seconds 0.5 --json | tee "$OUT/rwlock-ab-99-8.txt" ;;
	frontier)
		# Fairness next to speed over mutexbench's steady window (docs/results.md
		# section 9): 1 s windows, the frontier plots; RESULTS_BACKENDS picks the arms.
		[ -n "${RESULTS_BACKENDS:-}" ] || bflags=(-b glibc -b futex -b capacitor:tts -b mcs)
		keys=(--extra-key jain --extra-key min_max --extra-key hold_min_share --extra-key hold_jain)
		for w in "short:" "moderate:--cs-work 50 --ncs-work 400" "mixed:--mixed 10"; do
			name=frontier-${w%%:*}; th=2,8,32; fk=min_share
			[ "$name" = frontier-mixed ] && th=8,32 fk=class_hold_min_vs_equal
			echo "== $name" >&2
			# shellcheck disable=SC2086  # the workload's flags split on purpose
			"${LS[@]}" sweep "${bflags[@]}" --threads $th --runs "$RUNS" --json-key throughput \
				--fairness-key $fk "${keys[@]}" --timeout 120 --out "$OUT/$name" -q -- \
				$MB --threads {threads} --seconds 1 ${w#*:} --json | tee "$OUT/$name.txt"
		done ;;
	slice)
		# Lock slices against glibc (docs/results.md section 10): the three
		# workloads of `frontier` with the wait tail, slices with groups
		# (SLICE_SEATS=auto) as a variant, LevelDB readrandom (with the same
		# variant), and the capacitor at threads <= CPUs.
		[ -n "${RESULTS_BACKENDS:-}" ] ||
			bflags=(-b glibc -b futex -b slice:futex ${VARIANT:+-b "slice:futex,$VARIANT"} -b capacitor:tts -b mcs)
		slice_sweeps "${RESULTS_THREADS:-2,8,32}" "${RESULTS_THREADS:-8,32}" "${RESULTS_LDB_THREADS:-8,32}"
		echo "== slice-capacitor-2" >&2
		"${LS[@]}" ab -b tts -b capacitor:tts -b futex -b capacitor:futex --runs 9 \
			--json-key throughput -q --out "$OUT/slice-capacitor-2" -- \
			$MB --threads 2 --seconds 0.5 --json | tee "$OUT/slice-capacitor-2.txt" ;;
	manycore)
		# Issue 16's rows on a many-core machine (docs/results.md section 10,
		# "16 cores"): the slice sweeps at 4 / 16 / 64 threads (mcs left out:
		# capacitor:tts stands for the FIFO locks), the capacitor against its
		# bare inner lock at threads <= CPUs, and the rwlocks at 50% reads
		# (the slice rwlock joined them after the first run on 16 cores).
		[ -n "${RESULTS_BACKENDS:-}" ] ||
			bflags=(-b glibc -b futex -b slice:futex ${VARIANT:+-b "slice:futex,$VARIANT"} -b capacitor:tts)
		th=${RESULTS_THREADS:-4,16,64}
		slice_sweeps "$th" "$th" "${RESULTS_LDB_THREADS:-$th}"
		echo "== manycore-capacitor" >&2
		"${LS[@]}" sweep -b tts -b capacitor:tts -b futex -b capacitor:futex \
			--threads "${RESULTS_CAPACITOR_THREADS:-4,8,16}" --runs 7 \
			--json-key throughput --fairness-key min_share --extra-key voluntary_switches \
			--timeout 120 -q --out "$OUT/manycore-capacitor" -- \
			$MB --threads {threads} --seconds 0.5 --json | tee "$OUT/manycore-capacitor.txt"
		echo "== manycore-rwlock-50" >&2
		"${LS[@]}" sweep -r glibc -r futex -r bravo -r slice --threads "$th" --runs "$RUNS" \
			--json-key throughput --fairness-key min_share --timeout 120 -q --out "$OUT/manycore-rwlock-50" -- \
			$MB --mode rwlock --read-pct 50 --threads {threads} --seconds 0.5 --json | tee "$OUT/manycore-rwlock-50.txt" ;;
	capacitor-hogs)
		# The capacitor at one thread per CPU while other processes want
		# CPUs too (docs/results.md section 11, "Other processes"): each
		# platoon hand-over then waits for a member that shares its CPU.
		th=${RESULTS_THREADS:-$(nproc)}
		for n in ${RESULTS_HOGS:-0 1 2}; do
			echo "== capacitor-hogs-$n ($th threads, $n busy loops)" >&2
			with_hogs "$n" "${LS[@]}" ab -b tts -b capacitor:tts -b futex -b capacitor:futex \
				--runs 9 --json-key throughput --extra-key min_share --extra-key voluntary_switches \
				--timeout 120 -q --out "$OUT/capacitor-hogs-$n" -- \
				$MB --threads "$th" --seconds 0.5 --json >"$OUT/capacitor-hogs-$n.txt"
			cat "$OUT/capacitor-hogs-$n.txt"
		done ;;
	*) echo "results.sh: unknown part '$part' (uncontended mutex long condvar leveldb-read leveldb-fill ab capacitor fair rwlock frontier slice manycore capacitor-hogs)" >&2; exit 2 ;;
	esac
done
