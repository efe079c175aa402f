#!/usr/bin/env bash
# manycore-issue38.sh - every 16-core row of issue 38 in one run of at most
# 10 minutes, for a many-core machine with only gcc and python3 (numpy):
#
#   bash scripts/manycore-issue38.sh [OUT]        default OUT: out/manycore-issue38
#
# Parts, each given a time budget and cut off (with a line in summary.md)
# if it overruns it; PARTS="default bcs" runs some:
#   default    the default-backend matrix (scripts/default-matrix.sh) at
#              16 / 64 threads: glibc, futex, slice:futex; targets >= 1.0x
#              glibc every row, >= 1.3x at 16 and 64 threads short CS,
#              rwlock >= 1.0x at 16 / 64, request p99.9 <= glibc's at 16 (240 s)
#   bcs        scripts/manycore/bcs.sh: bcs, bcs-wf >= 0.9x futex at min
#              share >= 0.9 at 4 and 16 threads (120 s)
#   capacitor  scripts/manycore/capacitor.sh: capacitor:tts >= 1.0x tts at
#              16 threads in 3 sweeps, no run below 0.5x, with the threads'
#              states sampled (150 s)
#   seeds      scripts/manycore/seeds.sh: the reference texts' many-core
#              claims (docs/seeds.md rows Q1, Q5, M2, C2) (90 s)
#   issue45    the default matrix's rows of issue 45 at 16 / 64 threads
#              (scripts/default-matrix.sh): the lock-bound limit (MutexBench
#              --limit, short and shorter sections, glibc and the default;
#              target >= 0.9 of one thread alone at min share >= 0.9) and the
#              everyday programs that are not lock-bound (those the machine
#              has: make, sort, python3 at least; default >= 1.00x glibc)
#              (150 s)
#   wake       scripts/manycore/wake.sh: waking the slice's head before the
#              hand-over (LOCKSWAP_SLICE_WAKE_US=100, off by default) against
#              the default, short and shorter sections at 4 / 8 / 16 threads
#              (90 s)
#   slices     issue 45's fairness at speed: every slice:* backend with inlined
#              verbs (futex, tts, ticket, mcs, queued) against glibc, MutexBench's
#              short section at 16 / 64 threads (target: as fast against glibc as
#              on 2 cores, min share >= 0.9), and bench/startup.py: what loading
#              the library adds to a process that does nothing (60 s)
# Budgets add up to 900 s, over one command's 10 minutes: run it as two,
# PARTS="default bcs capacitor" (510 s), then PARTS="seeds issue45 wake slices" (390 s);
# the parts' own settings keep each inside its budget.
#
# Before: build here (`make -j2 all`), then carry build/, liblockswap.so and,
# for LevelDB's rows, a folder of the libraries build/bench/leveldb_bench
# needs that the machine lacks (LIBS_DIR, e.g. devlibs/ listed in
# .git/info/exclude: `ldd build/bench/leveldb_bench`); they are copied to
# /usr/lib/x86_64-linux-gnu (only those missing there) and ldconfig runs.
#
# Settings: PARTS, LIBS_DIR, PY=/usr/bin/python3 (or python3).
# A quick check anywhere: LS_MANYCORE_QUICK=1 bash scripts/manycore-issue38.sh /tmp/m38
set -u
cd "$(dirname "$0")/.."
OUT=${1:-out/manycore-issue38}
read -r -a PARTS <<<"${PARTS:-default bcs capacitor seeds issue45 wake slices}"
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
export PY
QUICK=${LS_MANYCORE_QUICK:-}
export LS_MANYCORE_QUICK=$QUICK
mkdir -p "$OUT"
say() { echo "manycore-issue38: $*" >&2; }

if [ -n "${LIBS_DIR:-}" ] && [ -d "$LIBS_DIR" ]; then
	for f in "$LIBS_DIR"/*; do
		[ -e "/usr/lib/x86_64-linux-gnu/$(basename "$f")" ] || cp -a "$f" /usr/lib/x86_64-linux-gnu/
	done
	ldconfig 2>/dev/null || true
fi
[ -x build/bench/mutexbench ] && [ -e liblockswap.so ] || { say "build first: make -j2 all"; exit 2; }
bash scripts/machine-info.sh >"$OUT/machine.txt"

part_default() {
	if [ -n "${LS_MANYCORE_QUICK:-}" ]; then
		DUR=0.05 RUNS=2 WARMUP=0 THREADS=1,2 RW_THREADS=2 REQ_THREADS=2 APP_THREADS=2 \
			ROWS="short-1 short-2 rw99-2 p999-short-2" bash scripts/default-matrix.sh "$1"
	else
		DUR=0.4 RUNS=3 WARMUP=1 THREADS=1,16,64 RW_THREADS=1,16,64 REQ_THREADS=16 APP_THREADS=16 \
			bash scripts/default-matrix.sh "$1"
	fi
}

# Issue 45's rows: the limit rows and the everyday programs, 16 / 64 threads.
part_issue45() {
	local rows="" p
	for p in ${EVERYDAY:-pigz zstd xz lbzip2 sort make node python java}; do rows="$rows everyday-$p"; done
	if [ -n "${LS_MANYCORE_QUICK:-}" ]; then
		DUR=0.05 RUNS=2 WARMUP=0 LIMIT_THREADS=2 LIMIT_SECONDS=0.05 EVERYDAY_THREADS=2 EVERYDAY=sort \
			ROWS="limit-short-2 everyday-sort" bash scripts/default-matrix.sh "$1"
	else
		RUNS=3 WARMUP=1 LIMIT_THREADS=16,64 LIMIT_SECONDS=0.4 EVERYDAY_THREADS=16 \
			ROWS="limit-short-16 limit-shorter-16 limit-short-64 limit-shorter-64$rows" \
			bash scripts/default-matrix.sh "$1"
	fi
}

# Issue 45's fairness at speed for every slice:* backend, and the start-up cost.
part_slices() {
	local threads=16,64 runs=3 secs=0.4 rounds=7
	[ -n "${LS_MANYCORE_QUICK:-}" ] && threads=2 runs=2 secs=0.05 rounds=2
	"$PY" scripts/lockswap sweep -q -b glibc -b slice:futex -b slice:tts -b slice:ticket \
		-b slice:mcs -b slice:queued --threads "$threads" --runs "$runs" --warmup 1 \
		--json-key throughput --extra-key min_share --out "$1/slices" -- \
		build/bench/mutexbench --threads '{threads}' --cs-work 10 --ncs-work 10 \
		--seconds "$secs" --json || return
	"$PY" bench/startup.py --rounds "$rounds" --count 100 --lib lockswap=liblockswap.so \
		--json "$1/startup.json" | tee "$1/startup.txt"
}

summary=$OUT/summary.md
echo "# Issues 38 and 45 on many cores" >"$summary"
echo >>"$summary"
sed 's/^/    /' "$OUT/machine.txt" >>"$summary"
for part in "${PARTS[@]}"; do
	case $part in
	default)   budget=240 ;;
	bcs)       budget=120 ;;
	capacitor) budget=150 ;;
	seeds)     budget=90 ;;
	issue45)   budget=150 ;;
	wake)      budget=90 ;;
	slices)    budget=60 ;;
	*) say "unknown part '$part' (default bcs capacitor seeds issue45 wake slices)"; exit 2 ;;
	esac
	dir=$OUT/$part
	mkdir -p "$dir"
	start=$(date +%s)
	say "$part (budget ${budget} s)"
	if [ "$part" = default ] || [ "$part" = issue45 ] || [ "$part" = slices ]; then
		export -f "part_$part"
		timeout -k 5 "$budget" bash -c "part_$part \"\$0\"" "$dir" >"$dir/log.txt" 2>&1
	elif [ -f "scripts/manycore/$part.sh" ]; then
		timeout -k 5 "$budget" bash "scripts/manycore/$part.sh" "$dir" >"$dir/log.txt" 2>&1
	else
		echo "missing scripts/manycore/$part.sh" >"$dir/log.txt"
		false
	fi
	rc=$?
	took=$(( $(date +%s) - start ))
	{
		echo
		echo "## $part"
		echo
		case $rc in
		0) echo "Finished in $took s." ;;
		124|137) echo "**Cut off** after its budget of $budget s (partial results in \`$part/\`)." ;;
		*) echo "**Failed** (exit $rc) after $took s; see \`$part/log.txt\`." ;;
		esac
		echo
		for md in "$dir"/*.md; do
			[ -f "$md" ] || continue
			echo "### $(basename "$md")"
			echo
			sed -n '/^|/p' "$md"
			echo
		done
	} >>"$summary"
done
tar -C "$(dirname "$OUT")" -czf "$OUT.tar.gz" "$(basename "$OUT")"
say "wrote $summary and $OUT.tar.gz"
