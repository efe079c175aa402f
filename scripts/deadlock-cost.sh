#!/usr/bin/env bash
# deadlock-cost.sh - the cost of LOCKSWAP_DEADLOCK=report (issue 46's
# targets; docs/deadlock.md "Cost"), each part as a user would run it:
#   pairs      instructions per uncontended lock+unlock pair (callgrind, the
#              difference of two runs), off and report, a second thread alive
#              and not, for BACKENDS (default: futex and the default backend)
#   leveldb    LevelDB readrandom at 8 threads, paired rounds (lockswap ab)
#   mutexbench MutexBench at 2 and 8 threads, paired rounds
#   nested     bench/probes/nested.c: 4096 mutexes nested two deep
#   sysbench   sysbench mutex (4096 mutexes), interleaved rounds, total time
#   tsan       MutexBench built with -fsanitize=thread against the plain build
#
#   scripts/deadlock-cost.sh [PART ...]          (default: every part)
#   RUNS=N (default 7), BACKENDS="futex slice:futex", OUT=out/deadlock-cost
# Timed parts take the bench lock (flock /tmp/lockswap-bench.lock), as the
# developers' guide asks; the machine's load is written beside each result.
set -eu
cd "$(dirname "$0")/.."
make -s all >/dev/null
RUNS=${RUNS:-7}
OUT=${OUT:-out/deadlock-cost}
BACKENDS=${BACKENDS:-futex slice:futex}
LIB=$PWD/liblockswap.so
CLI=(/usr/bin/python3 scripts/lockswap)
LOCK=(flock /tmp/lockswap-bench.lock)
mkdir -p "$OUT"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(pairs leveldb mutexbench nested sysbench tsan)

variants() { # -b NAME -b NAME,DEADLOCK=report for each backend
	for b in $BACKENDS; do printf -- '-b %s -b %s,DEADLOCK=report ' "$b" "$b"; done
}

pairs() {
	local prog=$PWD/build/bench/uncontended tmp
	tmp=$(mktemp -d)
	ir() { # backend mode pairs env... -> total instructions
		local b=$1 mode=$2 n=$3
		shift 3
		env LOCKSWAP_BACKEND="$b" LD_PRELOAD="$LIB" "$@" valgrind --tool=callgrind \
			--callgrind-out-file="$tmp/cg" "$prog" "$n" $mode >/dev/null 2>"$tmp/err"
		grep -oP 'Collected : \K[0-9]+' "$tmp/err"
	}
	per() { echo $(( ( $(ir "$1" "$2" 200000 "${@:3}") - $(ir "$1" "$2" 100000 "${@:3}") + 50000) / 100000 )); }
	{
		echo "| backend | off | report | off, idle thread | report, idle thread |"
		echo "|---|---:|---:|---:|---:|"
		for b in $BACKENDS; do
			echo "| \`$b\` | $(per "$b" "") | $(per "$b" "" LOCKSWAP_DEADLOCK=report) |" \
				"$(per "$b" --idle-thread) | $(per "$b" --idle-thread LOCKSWAP_DEADLOCK=report) |"
		done
	} | tee "$OUT/pairs.md"
	rm -rf "$tmp"
}

ab() { # name json-key cmd...
	local name=$1 key=$2
	shift 2
	uptime >"$OUT/$name.load"
	# shellcheck disable=SC2046
	"${LOCK[@]}" "${CLI[@]}" ab $(variants) --runs "$RUNS" --seed 46 --json-key "$key" \
		--out "$OUT/$name" -- "$@" | tee "$OUT/$name.txt"
	uptime >>"$OUT/$name.load"
	report_over_off "$OUT/$name.json" | tee "$OUT/$name-report-over-off.md"
}

# Each backend's report runs over its own off runs, paired by round (the
# ab table's pairs are over its first backend only).
report_over_off() {
	PYTHONPATH=scripts /usr/bin/python3 - "$1" <<'PY'
import json, sys
from lockswap_cli import stats
doc = json.load(open(sys.argv[1]))
rounds = {}
for r in doc["runs"]:
    if not r["warmup"] and r["status"] == "ok":
        rounds.setdefault(r["round"], {})[r["backend"]] = r["value"]
print("| backend | report / off, paired by round | 95% CI | rounds |")
print("|---|---:|---|---:|")
for b in doc["backends"]:
    name = b["label"] if isinstance(b, dict) else b
    if ",DEADLOCK=" in name:
        continue
    row = stats.paired(rounds, [name, name + ",DEADLOCK=report"], False, 46)[0]
    ci = f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]" if row["ratio"] is not None else "-"
    ratio = f"{row['ratio']:.3f}" if row["ratio"] is not None else row["verdict"]
    print(f"| `{name}` | {ratio} | {ci} | {row['rounds']} |")
PY
}

leveldb() {
	ab leveldb-8 ops_per_sec build/bench/leveldb_bench --benchmarks readrandom --threads 8 \
		--num 100000 --reads 100000 --json
}

mutexbench() {
	for t in 2 8; do
		ab "mutexbench-$t" throughput build/bench/mutexbench --threads "$t" --seconds 0.5 --json
	done
}

nested() {
	ab nested-8 pairs_per_sec build/bench/nested --threads 8 --locks 4096 --seconds 1 --json
}

# sysbench prints text: interleaved rounds, each configuration once a
# round in a fresh order, "total time" of a fixed amount of work.
sysbench_part() {
	command -v sysbench >/dev/null || { echo "sysbench is not installed (scripts/install-deps.sh)"; return 1; }
	uptime >"$OUT/sysbench.load"
	"${LOCK[@]}" /usr/bin/python3 - "$LIB" "$RUNS" $BACKENDS <<'PY' | tee "$OUT/sysbench.md"
import os, random, re, statistics, subprocess, sys
lib, runs, backends = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
configs = [(b, m) for b in backends for m in ("off", "report")]
times = {c: [] for c in configs}
cmd = ["sysbench", "mutex", "--threads=8", "--mutex-num=4096", "--mutex-locks=100000",
       "--mutex-loops=1000", "run"]
random.seed(46)
for r in range(runs + 1):  # round 0 is a warm-up, discarded
    order = configs[:]
    random.shuffle(order)
    for b, m in order:
        env = dict(os.environ, LD_PRELOAD=lib, LOCKSWAP_BACKEND=b, LOCKSWAP_DEADLOCK=m)
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        t = float(re.search(r"total time:\s+([0-9.]+)s", out).group(1))
        if r:
            times[(b, m)].append(t)
print(f"sysbench mutex, 8 threads, 4096 mutexes, {runs} interleaved rounds: total time (s), median")
print("| backend | off | report | report / off, median of the rounds' ratios [min, max] |")
print("|---|---:|---:|---|")
for b in backends:
    off, rep = times[(b, "off")], times[(b, "report")]
    ratios = sorted(r / o for r, o in zip(rep, off))
    print(f"| `{b}` | {statistics.median(off):.3f} | {statistics.median(rep):.3f} | "
          f"{statistics.median(ratios):.3f} [{ratios[0]:.3f}, {ratios[-1]:.3f}] |")
PY
	uptime >>"$OUT/sysbench.load"
}

tsan() {
	local plain=$OUT/mutexbench-plain tsan=$OUT/mutexbench-tsan
	gcc -std=c11 -D_GNU_SOURCE -O2 -g -o "$plain" bench/mutexbench/*.c -lpthread -lm
	gcc -std=c11 -D_GNU_SOURCE -O2 -g -fsanitize=thread -o "$tsan" bench/mutexbench/*.c -lpthread -lm
	uptime >"$OUT/tsan.load"
	"${LOCK[@]}" /usr/bin/python3 - "$LIB" "$RUNS" "$plain" "$tsan" <<'PY' | tee "$OUT/tsan.md"
import json, os, random, statistics, subprocess, sys
lib, runs, plain, tsan = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
configs = {
    "glibc, no lockswap": ([plain], {}),
    "lockswap futex, DEADLOCK=report": ([plain], {"LD_PRELOAD": lib, "LOCKSWAP_BACKEND": "futex",
                                                   "LOCKSWAP_DEADLOCK": "report"}),
    "ThreadSanitizer build": (["setarch", "-R", tsan], {}),
}
random.seed(46)
print("MutexBench (--seconds 0.5), throughput in operations/s, median of", runs, "interleaved rounds")
print("| threads | " + " | ".join(configs) + " |")
print("|---|" + "---:|" * len(configs))
for threads in (2, 8):
    got = {c: [] for c in configs}
    for r in range(runs + 1):
        order = list(configs)
        random.shuffle(order)
        for c in order:
            pre, env = configs[c]
            out = subprocess.run(pre + ["--threads", str(threads), "--seconds", "0.5", "--json"],
                                 env=dict(os.environ, **env), capture_output=True, text=True)
            if r:
                got[c].append(json.loads(out.stdout)["throughput"])
    base = statistics.median(got["glibc, no lockswap"])
    cells = [f"{statistics.median(v):.3g} ({statistics.median(v) / base:.3g}x)" for v in got.values()]
    print(f"| {threads} | " + " | ".join(cells) + " |")
PY
	uptime >>"$OUT/tsan.load"
}

for p in "${parts[@]}"; do
	echo "== $p"
	case $p in
	pairs) pairs ;;
	leveldb) leveldb ;;
	mutexbench) mutexbench ;;
	nested) nested ;;
	sysbench) sysbench_part ;;
	tsan) tsan ;;
	*) echo "deadlock-cost.sh: unknown part '$p' (pairs leveldb mutexbench nested sysbench tsan)" >&2; exit 2 ;;
	esac
done
