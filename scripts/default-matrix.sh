#!/usr/bin/env bash
# default-matrix.sh - the matrix that decides lockswap's default mutex and
# rwlock backends (issue 38): every row runs every arm in interleaved rounds
# (`lockswap ab`: each round runs each arm once, in a fresh random order),
# and the report gives each arm's paired ratio to glibc per row, with its
# 95% interval, the geometric mean over the real programs, and the targets.
#
#   bash scripts/default-matrix.sh [OUT]          default OUT: out/default-matrix
#
# Rows (a row whose program is missing is left out, and the report says so):
#   micro   MutexBench short section (--cs-work 10 --ncs-work 10) at THREADS
#           (1 thread: the uncontended cost, with the sections' work);
#           moderate (--cs-work 50 --ncs-work 400) at the middle count;
#           condvar at the middle count; rwlock at 50% and 99% reads at
#           RW_THREADS
#   latency request mode's p99.9 latency at REQ_THREADS, with the short
#           section (a hot lock) and with the moderate one (a request that
#           mostly computes, then takes the lock)
#   apps    LevelDB fillrandom and readrandom (bench/leveldb_bench), RocksDB
#           readwhilewriting (db_bench), sysbench threads and mutex, memcached
#           driven by memcslap (bench/apps/); the two whose locks are their
#           bottleneck on 2 cores (sysbench threads, LevelDB fillrandom) are
#           also marked lock-bound
#   control stress-ng mutex: its mutex is priority-inheriting, which lockswap
#           passes to glibc under every backend, so every arm runs glibc's own
#           lock there: the matrix's noise floor, counted in no target (until
#           2026-12-06 it was a lock-bound app row)
#   limit   MutexBench --limit (issue 45): the short section and a shorter one
#           (--cs-work 4 --ncs-work 20) at LIMIT_THREADS, under the last arm
#           (the default) and the first (glibc), LIMIT_SECONDS windows: each
#           run's throughput over one thread alone's, and its min share
#           (OUT/limit/*.json; rows named limit-short-T, limit-shorter-T)
#   everyday  everyday multithreaded programs that are not lock-bound
#           (bench/apps/everyday.sh, wall time): pigz, zstd -T, xz -T, lbzip2,
#           sort --parallel, make -j of C files, node's thread pool, python3
#           threads, a Java parallel stream (issue 45: what the default costs
#           where locks do not matter)
#
# Programs: bash scripts/install-deps.sh --matrix installs the ones Debian
# has (sysbench, stress-ng, memcached, libmemcached-tools, rocksdb-tools,
# pigz, lbzip2; zstd, xz, node and java where they are missing).
#
# Settings (environment):
#   ARMS="glibc,RWLOCK=glibc futex,RWLOCK=futex slice:futex,RWLOCK=slice"
#                         the arms, as `lockswap ab -b` takes them; the first is
#                         the baseline of every ratio
#   THREADS=1,2,8,32      short-section thread counts (2 cores: alone, threads =
#                         CPUs, then oversubscribed)
#   RW_THREADS=1,8  REQ_THREADS=8,32  APP_THREADS=8  EVERYDAY_THREADS=8
#   EVERYDAY="pigz zstd xz lbzip2 sort make node python java"
#   LIMIT_THREADS=8,32  LIMIT_SECONDS=1  LIMIT_ARMS="<first arm> <last arm>"
#   RUNS=7  WARMUP=1      measured and discarded rounds per row
#   BENCH_LOCK=FILE       take this lock (flock) around each row, so that other
#                         timed work on a shared machine waits between rows
#   DUR=0.5               seconds of a MutexBench window
#   ROWS="..."            only these rows (names as in the report)
#   PY=/usr/bin/python3   the interpreter with numpy
#
# OUT gets one ab result per row (rows/NAME.{md,csv,json,txt}), machine.txt
# and matrix.md (scripts/default_matrix_report.py OUT rewrites it).
# A quick end-to-end check:
#   DUR=0.05 RUNS=2 WARMUP=0 THREADS=2 REQ_THREADS=2 RW_THREADS=2 APP_THREADS=2 \
#       ROWS="short-2 rw50-2 p999-short-2 sysbench-mutex" bash scripts/default-matrix.sh /tmp/dm
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-out/default-matrix}
read -r -a ARMS <<<"${ARMS:-glibc,RWLOCK=glibc futex,RWLOCK=futex slice:futex,RWLOCK=slice}"
THREADS=${THREADS:-1,2,8,32}
RW_THREADS=${RW_THREADS:-1,8}
REQ_THREADS=${REQ_THREADS:-8,32}
APP_THREADS=${APP_THREADS:-8}
EVERYDAY=${EVERYDAY:-pigz zstd xz lbzip2 sort make node python java}
EVERYDAY_THREADS=${EVERYDAY_THREADS:-8}
LIMIT_THREADS=${LIMIT_THREADS:-8,32}
LIMIT_SECONDS=${LIMIT_SECONDS:-1}
read -r -a LIMIT_ARMS <<<"${LIMIT_ARMS:-${ARMS[0]} ${ARMS[${#ARMS[@]} - 1]}}"
RUNS=${RUNS:-7}
WARMUP=${WARMUP:-1}
DUR=${DUR:-0.5}
PY=${PY:-/usr/bin/python3}
MB=build/bench/mutexbench
LB=build/bench/leveldb_bench
SHORT="--cs-work 10 --ncs-work 10"
MODERATE="--cs-work 50 --ncs-work 400"

say() { echo "default-matrix: $*" >&2; }
[ -x "$MB" ] && [ -e liblockswap.so ] || { say "build first: make -j2 all"; exit 2; }
mkdir -p "$OUT/rows"
{
	bash scripts/machine-info.sh "load before"
	echo "arms: ${ARMS[*]}"
	echo "rounds: $RUNS measured + $WARMUP warm-up; MutexBench window $DUR s"
} >"$OUT/machine.txt"

want() { # is row $1 asked for?
	[ -z "${ROWS:-}" ] && return 0
	case " $ROWS " in *" $1 "*) return 0 ;; esac
	return 1
}
has() { command -v "$1" >/dev/null 2>&1 || [ -x "$1" ]; }

bargs=()
for a in "${ARMS[@]}"; do bargs+=(-b "$a"); done

# row NAME GROUP [ab metric options...] -- CMD...
# (GROUP app+lockbound: a real program whose locks are its bottleneck)
row() {
	local name=$1 group=${2%+lockbound} tag=$2; shift 2
	want "$name" || return 0
	local metric=()
	while [ "$1" != "--" ]; do metric+=("$1"); shift; done
	shift
	say "$name: $*"
	echo "$group" >"$OUT/rows/$name.group"
	if [ "$tag" != "$group" ]; then touch "$OUT/rows/$name.lockbound"; else rm -f "$OUT/rows/$name.lockbound"; fi
	${BENCH_LOCK:+flock "$BENCH_LOCK"} "$PY" scripts/lockswap ab -q "${bargs[@]}" --runs "$RUNS" \
		--warmup "$WARMUP" --timeout 120 \
		"${metric[@]}" --out "$OUT/rows/$name" -- "$@" >"$OUT/rows/$name.txt" 2>&1 ||
		say "$name: some runs failed (see $OUT/rows/$name.txt)"
}
skip() { # NAME WHY
	want "$1" || return 0
	echo "$2" >"$OUT/rows/$1.skipped"
	say "$1 left out: $2"
}
mb() { echo "$MB --seconds $DUR --json"; }

IFS=, read -r -a tlist <<<"$THREADS"
mid=${tlist[$(( ${#tlist[@]} / 2 ))]}
for t in "${tlist[@]}"; do
	# shellcheck disable=SC2046 # word splitting of the MutexBench arguments is meant
	row "short-$t" micro --json-key throughput --extra-key min_share -- $(mb) --threads "$t" $SHORT
done
# shellcheck disable=SC2046
row "moderate-$mid" micro --json-key throughput --extra-key min_share -- $(mb) --threads "$mid" $MODERATE
# shellcheck disable=SC2046
row "condvar-$mid" micro --json-key throughput --extra-key min_share -- $(mb) --threads "$mid" --mode condvar
IFS=, read -r -a rwlist <<<"$RW_THREADS"
for t in "${rwlist[@]}"; do
	for p in 50 99; do
		# shellcheck disable=SC2046
		row "rw$p-$t" micro --json-key throughput --extra-key min_share -- \
			$(mb) --threads "$t" --mode rwlock --read-pct "$p"
	done
done
IFS=, read -r -a reqlist <<<"$REQ_THREADS"
for t in "${reqlist[@]}"; do
	for w in short moderate; do
		[ $w = short ] && work=$SHORT || work=$MODERATE
		# shellcheck disable=SC2046
		row "p999-$w-$t" latency --json-key request_p999_ns --lower-is-better \
			--extra-key request_max_ns --extra-key throughput -- \
			$(mb) --threads "$t" --mode request $work
	done
done

if has "$LB"; then
	row leveldb-fill app+lockbound --json-key ops_per_sec -- "$LB" --benchmarks fillrandom --threads "$APP_THREADS" --num 100000 --json
	row leveldb-read app --json-key ops_per_sec -- "$LB" --benchmarks readrandom --threads "$APP_THREADS" --num 100000 --seconds 1 --json
else
	skip leveldb-fill "no $LB (libleveldb-dev)"; skip leveldb-read "no $LB (libleveldb-dev)"
fi
if has db_bench; then
	row rocksdb-rww app --metric 'readwhilewriting *: *[0-9.]+ micros/op ([0-9]+) ops/sec' -- \
		bash bench/apps/rocksdb.sh "$APP_THREADS" 1
else skip rocksdb-rww "no db_bench (rocksdb-tools)"; fi
if has sysbench; then
	row sysbench-threads app+lockbound --metric 'total number of events: *([0-9]+)' -- \
		sysbench threads --threads="$APP_THREADS" --time=1 run
	row sysbench-mutex app --metric 'total time: *([0-9.]+)s' --lower-is-better -- \
		sysbench mutex --threads="$APP_THREADS" run
else skip sysbench-threads "no sysbench"; skip sysbench-mutex "no sysbench"; fi
if has stress-ng; then
	# stress-ng 0.15 sets PTHREAD_PRIO_INHERIT on its mutex (a uprobe on
	# pthread_mutexattr_setprotocol saw protocol 1): glibc's in every arm.
	row stress-ng-mutex control --metric 'mutex +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)' -- \
		sh -c "stress-ng --mutex $APP_THREADS --timeout 1 --metrics 2>&1"  # its metrics go to stderr
else skip stress-ng-mutex "no stress-ng"; fi
if has memcached && has memcslap; then
	row memcached app --metric 'seconds: ([0-9.]+)' --lower-is-better -- bash bench/apps/memcached.sh 4
else skip memcached "no memcached or memcslap (memcached, libmemcached-tools)"; fi

# The lock-bound limit: MutexBench --limit, every arm once per round in a
# fresh random order (after WARMUP discarded rounds), RUNS rounds.
limit_rows=()
IFS=, read -r -a limlist <<<"$LIMIT_THREADS"
for t in "${limlist[@]}"; do
	for sec in short shorter; do
		want "limit-$sec-$t" && limit_rows+=("limit-$sec-$t")
	done
done
if [ ${#limit_rows[@]} -gt 0 ]; then
	say "limit rows: ${limit_rows[*]} under ${LIMIT_ARMS[*]}"
	mkdir -p "$OUT/limit"
	${BENCH_LOCK:+flock "$BENCH_LOCK"} "$PY" - "$OUT/limit" "$RUNS" "$WARMUP" "$LIMIT_SECONDS" "$MB" \
		"$PWD/liblockswap.so" \
		"${#limit_rows[@]}" "${limit_rows[@]}" "${LIMIT_ARMS[@]}" <<'PY' || say "limit rows: some runs failed"
import json, os, random, subprocess, sys
out, runs, warmup, secs, mb, lib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
n = int(sys.argv[7])
rows, arms = sys.argv[8:8 + n], sys.argv[8 + n:]
SECTIONS = {"short": ["--cs-work", "10", "--ncs-work", "10"],
            "shorter": ["--cs-work", "4", "--ncs-work", "20"]}
def env_of(arm):
    e = dict(os.environ, LD_PRELOAD=lib)
    parts = arm.split(",")
    e["LOCKSWAP_BACKEND"] = parts[0]
    for kv in parts[1:]:
        k, v = kv.split("=", 1)
        if k == "LIB":
            e["LD_PRELOAD"] = v
        else:
            e["LOCKSWAP_" + k] = v
    return e
results = {(r, a): [] for r in rows for a in arms}
for rnd in range(warmup + runs):
    cells = [(r, a) for r in rows for a in arms]
    random.shuffle(cells)
    for r, a in cells:
        _, sec, t = r.split("-")
        cmd = [mb, "--json", "--limit", "--seconds", secs, "--threads", t] + SECTIONS[sec]
        p = subprocess.run(cmd, env=env_of(a), capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print(f"{r} {a}: exit {p.returncode}: {p.stderr.strip()[:200]}", file=sys.stderr)
            continue
        if rnd < warmup:
            continue
        d = json.loads(p.stdout.strip().splitlines()[-1])
        results[(r, a)].append({k: d[k] for k in ("limit_ratio", "min_share", "throughput",
                                                  "limit_throughput")})
def tag_of(arm):
    # The backend's name; two arms with one backend (libraries compared:
    # LIB=) add the library's file name, or their position, so that no
    # arm's file overwrites another's.
    base = arm.split(",")[0].replace(":", "_")
    if sum(1 for a in arms if a.split(",")[0] == arm.split(",")[0]) == 1:
        return base
    lib = [kv.split("=", 1)[1] for kv in arm.split(",")[1:] if kv.startswith("LIB=")]
    extra = os.path.basename(lib[0]).rsplit(".so", 1)[0] if lib else str(arms.index(arm) + 1)
    return base + "-" + "".join(c if c.isalnum() or c in "_.-" else "_" for c in extra)
for (r, a), got in results.items():
    _, sec, t = r.split("-")
    tag = tag_of(a)
    with open(os.path.join(out, f"{r}-{tag}.json"), "w") as f:
        json.dump({"row": r, "arm": a, "threads": int(t), "section": " ".join(SECTIONS[sec]),
                   "runs": got}, f)
PY
fi

# The everyday programs: each one's binary (make: the compiler it drives).
for p in $EVERYDAY; do
	case $p in make) bin=gcc ;; python) bin=/usr/bin/python3 ;; *) bin=$p ;; esac
	if has "$bin"; then
		row "everyday-$p" everyday --metric 'seconds: ([0-9.]+)' --lower-is-better -- \
			bash bench/apps/everyday.sh "$p" "$EVERYDAY_THREADS"
	else skip "everyday-$p" "no $bin (bash scripts/install-deps.sh --matrix)"; fi
done

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
"$PY" scripts/default_matrix_report.py "$OUT"
say "wrote $OUT/matrix.md"
