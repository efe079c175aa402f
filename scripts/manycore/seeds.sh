#!/usr/bin/env bash
# scripts/manycore/seeds.sh - the many-core rows of docs/seeds.md (issue 38,
# part 4) in one run of at most 1.5 minutes (85 s), for the 16-core machine:
#   Q1  tts polling by load (as built) against a throwaway build whose poll is
#       a compare-and-swap (docs/results/seeds/q1-cas-poll.patch, built into a
#       temporary copy of the tree with gcc), and
#   Q3  against tts,SPIN=0 (never spin), MutexBench short CS, one interleaved A/B;
#   Q5/Q6  glibc / futex / queued, counted: voluntary context switches,
#       contended acquisitions and owner changes per 1000 acquisitions
#       (docs/results/seeds/handover_run.sh);
#   M2  the combining lock (lockswap_with, build/bench/nativebench) against
#       pthread lock/unlock under tts, futex and glibc, and lockswap_with over
#       bcs: steady (a window after a warm-up) and at start-up (every thread
#       released at once, a short window with no warm-up: the text's
#       "contending at start-up");
#   M5  the combining lock with its waiting as it is, and with --spin 0
#       (every waiter parks at once), in the same rounds;
#   C2/C3  LevelDB readrandom, ces against glibc, when build/bench/leveldb_bench
#       can run here (it needs Debian's libleveldb); else said so in
#       summary.md and skipped.
#
#   bash scripts/manycore/seeds.sh OUT        (from the repository root, built)
#
# OUT gets machine.txt, summary.md (every table, with the commands) and each
# step's raw files.  Settings: THREADS (default 16), ROUNDS (4), DUR (0.3 s);
# LS_MANYCORE_QUICK=1 makes it a smoke test (2 threads, 2 rounds, 0.1 s);
# STEPS="q1 q5 m2 c2" (the default: all) chooses the steps.
# Each step runs only if its usual time still fits in BUDGET (default 80 s),
# and under a `timeout` of the time left, so the whole run ends within about
# BUDGET + 5 s; a skipped, cut or failed step is named in summary.md.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:?usage: scripts/manycore/seeds.sh OUT}
if [ -n "${LS_MANYCORE_QUICK:-}" ]; then
	THREADS=${THREADS:-2} ROUNDS=${ROUNDS:-2} DUR=${DUR:-0.1}
fi
THREADS=${THREADS:-16} ROUNDS=${ROUNDS:-4} DUR=${DUR:-0.3} BUDGET=${BUDGET:-80}
STEPS=" ${STEPS:-q1 q5 m2 c2} "
for k in $STEPS; do
	case $k in q1 | q5 | m2 | c2) ;; *) echo "seeds.sh: unknown step '$k' in STEPS (known: q1 q5 m2 c2)" >&2; exit 2 ;; esac
done
PY=${PY:-/usr/bin/python3}
MB=build/bench/mutexbench NB=build/bench/nativebench LB=build/bench/leveldb_bench
LIB=$PWD/liblockswap.so
mkdir -p "$OUT"
SUM=$OUT/summary.md
for f in "$MB" "$NB" "$LIB"; do
	[ -e "$f" ] || { echo "seeds.sh: $f missing: build first (make all)" >&2; exit 1; }
done

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "cpus: $(nproc)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "glibc: $(getconf GNU_LIBC_VERSION)"
	echo "THREADS=$THREADS ROUNDS=$ROUNDS DUR=$DUR BUDGET=$BUDGET"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"
echo "# docs/seeds.md, many-core rows ($(nproc) CPUs, $THREADS threads)" >"$SUM"

# left: seconds before BUDGET + 5 (a timeout for what runs next; at least 1).
left() {
	local l=$((BUDGET + 5 - SECONDS))
	echo $((l > 0 ? l : 1))
}

# step KEY NAME SECONDS: true if KEY is in STEPS and SECONDS more still fit
# in the budget.
step() {
	local key=$1
	shift
	[[ $STEPS == *" $key "* ]] || return 1
	if [ $((SECONDS + $2)) -gt "$BUDGET" ]; then
		printf '\n## %s\n\nskipped: %d s used of %d, it needs about %d\n' "$1" "$SECONDS" "$BUDGET" "$2" >>"$SUM"
		return 1
	fi
	printf '\n## %s\n\n' "$1" >>"$SUM"
	echo "seeds.sh: $1 (${SECONDS}s used)" >&2
}

# ---- Q1 + Q3: tts polling by load, by CAS, and never spinning ----
if step q1 "Q1, Q3: tts, its poll a CAS, and SPIN=0" 30; then
	CAS=$(mktemp -d /tmp/lockswap-cas.XXXXXX)
	tar -cf - --exclude=./build --exclude=./.git --exclude=./docs/results --exclude=./out \
		--exclude=./liblockswap.so --exclude="./liblockswap-*.a" . |
		tar -xf - -C "$CAS"
	arms=(-b tts)
	PATCH=$PWD/docs/results/seeds/q1-cas-poll.patch
	if ( cd "$CAS" && { if command -v patch >/dev/null; then patch -p1 -s <"$PATCH"; else git apply "$PATCH"; fi; } &&
		timeout "$(left)" make -s -j"$(nproc)" liblockswap.so ) >"$OUT/q1-cas-build.txt" 2>&1; then
		arms+=(-b "tts,LIB=$CAS/liblockswap.so")
	else
		echo "the CAS variant did not build or the patch did not apply: q1-cas-build.txt" >>"$SUM"
	fi
	arms+=(-b "tts,SPIN=0")
	cmd=("$PY" scripts/lockswap ab "${arms[@]}" --runs "$ROUNDS" --warmup 1 --seed 38
		--json-key throughput --extra-key min_share --extra-key voluntary_switches --extra-key ops
		--timeout 20 -q --out "$OUT/q1-q3" -- "$MB" --threads "$THREADS" --seconds "$DUR"
		--cs-work 10 --ncs-work 10 --json)
	echo "\`${cmd[*]}\`" >>"$SUM"
	echo >>"$SUM"
	timeout "$(left)" "${cmd[@]}" >"$OUT/q1-q3.txt" 2>&1 || echo "(ab exit $?; 124: cut by the budget)" >>"$SUM"
	sed -n '/^backend/,$p' "$OUT/q1-q3.txt" | sed 's/^/    /' >>"$SUM"
	rm -rf "$CAS"
fi

# ---- Q5, Q6: queued against futex and glibc, counted ----
if step q5 "Q5, Q6: queued / futex / glibc, hand-overs and sleeps counted" 25; then
	echo "\`ROUNDS=$ROUNDS THREADS=$THREADS DUR=$DUR bash docs/results/seeds/handover_run.sh OUT/handover\`" >>"$SUM"
	echo >>"$SUM"
	ROUNDS=$ROUNDS THREADS=$THREADS DUR=$DUR timeout "$(left)" \
		bash docs/results/seeds/handover_run.sh "$OUT/handover" >>"$SUM" 2>"$OUT/handover.err" ||
		echo "(handover_run.sh failed: handover.err)" >>"$SUM"
fi

# ---- M2, M5: the combining lock through the native API ----
NATIVE=(futex tts glibc combining combining-spin0 bcs)
native_cmd() { # VARIANT SECONDS WARMUP: sets CMD (pthread ones under the backend)
	local a=(--threads "$THREADS" --seconds "$2" --warmup "$3" --cs-work 10 --ncs-work 10 --json)
	case $1 in
	glibc) CMD=("$NB" --lock pthread "${a[@]}") ;;
	futex | tts) CMD=(env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND="$1" "$NB" --lock pthread "${a[@]}") ;;
	combining-spin0) CMD=("$NB" --lock combining --spin 0 "${a[@]}") ;;
	*) CMD=("$NB" --lock "$1" "${a[@]}") ;;
	esac
}
native_rounds() { # PHASE SECONDS WARMUP ROUNDS: every variant once a round, order rotated
	local r k v line
	for ((r = 0; r < $4; r++)); do
		for ((k = 0; k < ${#NATIVE[@]}; k++)); do
			v=${NATIVE[$(((k + r) % ${#NATIVE[@]}))]}
			native_cmd "$v" "$2" "$3"
			if line=$(timeout "$(left)" "${CMD[@]}" 2>>"$OUT/native.err"); then
				printf '{"phase": "%s", "round": %d, "variant": "%s", "result": %s}\n' \
					"$1" "$r" "$v" "$line" >>"$OUT/native.jsonl"
			else
				echo "native $1 round $r $v failed" >>"$OUT/native.err"
			fi
		done
	done
}
if step m2 "M2, M5: the combining lock (nativebench)" 25; then
	: >"$OUT/native.jsonl"
	native_rounds steady "$DUR" 0.1 "$ROUNDS"
	native_rounds start-up 0.02 0 $((ROUNDS * 2))
	cat >>"$SUM" <<EOT
\`build/bench/nativebench --threads $THREADS --cs-work 10 --ncs-work 10 --json\`, variants
${NATIVE[*]} (futex, tts: \`--lock pthread\` under LD_PRELOAD with that LOCKSWAP_BACKEND;
glibc: \`--lock pthread\` bare; combining-spin0: \`--lock combining --spin 0\`), the order
rotated each round. steady: \`--seconds $DUR --warmup 0.1\`, $ROUNDS rounds; start-up:
\`--seconds 0.02 --warmup 0\` (the window opens as the threads are released together),
$((ROUNDS * 2)) rounds.

EOT
	"$PY" scripts/manycore/native_rounds.py "$OUT/native.jsonl" futex >>"$SUM" 2>&1 ||
		echo "(native_rounds.py failed)" >>"$SUM"
fi

# ---- C2, C3: LevelDB readrandom, ces against glibc ----
if step c2 "C2, C3: LevelDB readrandom, ces / glibc" 25; then
	if [ -x "$LB" ] && timeout 20 "$LB" --benchmarks readrandom --threads 1 --num 1000 --seconds 0.01 --json >/dev/null 2>&1; then
		cmd=("$PY" scripts/lockswap sweep -b glibc -b ces --threads "$THREADS,$((THREADS * 2))"
			--runs 2 --warmup 1 --seed 38 --json-key ops_per_sec --timeout 20 -q --out "$OUT/leveldb"
			-- "$LB" --benchmarks readrandom --threads '{threads}' --num 100000 --seconds "$DUR" --json)
		echo "\`${cmd[*]}\`" >>"$SUM"
		echo >>"$SUM"
		timeout "$(left)" "${cmd[@]}" >"$OUT/leveldb.txt" 2>&1 || echo "(sweep exit $?; 124: cut by the budget)" >>"$SUM"
		sed 's/^/    /' "$OUT/leveldb.txt" >>"$SUM"
	else
		echo "skipped: $LB cannot run here (not built, or Debian's libleveldb is missing)" >>"$SUM"
	fi
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg), ${SECONDS}s" >>"$OUT/machine.txt"
echo "seeds.sh: done in ${SECONDS}s: $SUM" >&2
