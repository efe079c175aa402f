#!/usr/bin/env bash
# manycore-delegation.sh - issue 37's many-core rows in one run of at most
# 10 minutes: what delegation changes, against glibc, futex and slices.
# With the defaults it makes (RUNS+1) x 4 backends x (2 + 2 + 3 points) =
# 168 runs of about 1 s (3 s at most unless one hangs: 8.4 min).
#
#   bash scripts/manycore-delegation.sh [OUT]      default OUT: out/manycore-delegation
#
# Three interleaved `lockswap sweep`s (every round runs every backend once,
# in a fresh random order), then one summary:
#   1. MutexBench, short critical section, THREADS: throughput, the steady
#      window's min share, the 1 ms and 10 ms windows' min shares, the
#      longest stretch a thread went without the lock;
#   2. the same in request mode: the worst thread's p99 request latency,
#      p99.9 and max over all requests;
#   3. LevelDB readrandom (bench/leveldb_bench, against Debian's libleveldb),
#      LDB_THREADS, when the program is built (else left out, and said so);
#   4. issue 44's rows: what a context switch and the signal work cost here
#      (build/bench/ces_costs: WRFSBASE or arch_prctl), and the differential
#      test (tests/ces/difftest.py, DIFF_SEEDS seeds, default 40) where many
#      more sections run delegated than on 2 cores.
# OUT gets each sweep's .md/.csv/.json/.txt/.png, machine.txt (what ran
# where) and summary.md (the tables).
#
# Settings (environment):
#   BACKENDS="glibc futex slice:futex ces"   the arms, the first the baseline of
#                                            the ratios; one not in this build's
#                                            `lockswap list` is left out, with a line
#   THREADS=16,64        MutexBench thread counts
#   LDB_THREADS=16,32,64 LevelDB reader counts
#   DUR=0.5              seconds of each run's measured window (LevelDB: of reading)
#   RUNS=5               measured rounds per point (one warm-up round more)
#   MB_ARGS="--cs-work 10 --ncs-work 10"   MutexBench's workload (the short section)
#   LDB_NUM=100000       LevelDB keys
#   TIMEOUT=30           seconds before a run is killed and counted as failed (a
#                        run takes 3 s at most when nothing hangs: warm-up, up to
#                        2 s for every thread's first op, DUR)
#   PY=/usr/bin/python3  the interpreter with numpy
#   NO_BUILD=1           use the tree as built
#
# Every run of every arm has glibc.pthread.rseq=0 added to GLIBC_TUNABLES
# (the tunables already set are kept): ces refuses to run while glibc has
# registered an rseq area, and the arms must differ in the lock only.
#
# A quick end-to-end check on any machine:
#   DUR=0.05 THREADS=2,4 LDB_THREADS=2,4 RUNS=2 bash scripts/manycore-delegation.sh /tmp/mcd
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-out/manycore-delegation}
read -r -a WANT <<<"${BACKENDS:-glibc futex slice:futex ces}"
THREADS=${THREADS:-16,64}
LDB_THREADS=${LDB_THREADS:-16,32,64}
DUR=${DUR:-0.5}
RUNS=${RUNS:-5}
MB_ARGS=${MB_ARGS:---cs-work 10 --ncs-work 10}
LDB_NUM=${LDB_NUM:-100000}
TIMEOUT=${TIMEOUT:-30}
PY=${PY:-/usr/bin/python3}
LS=("$PY" scripts/lockswap)
MB=build/bench/mutexbench
LB=build/bench/leveldb_bench

say() { echo "manycore-delegation: $*" >&2; }

[ -n "${NO_BUILD:-}" ] || make -s liblockswap.so "$MB" build/bench/ces_costs build/ces/difftest >/dev/null
# LevelDB's program needs libleveldb-dev; without it the LevelDB rows go.
[ -n "${NO_BUILD:-}" ] || make -s "$LB" >/dev/null 2>&1 || true
mkdir -p "$OUT"

# The arms this build has.
mapfile -t known < <("${LS[@]}" list --names)
bflags=() arms=() missing=()
for b in "${WANT[@]}"; do
	name=${b%%,*}
	if printf '%s\n' "${known[@]}" | grep -qxF -- "$name"; then
		bflags+=(-b "$b") arms+=("$b")
	else
		say "backend '$name' is not in this build's list (lockswap list); left out"
		missing+=("$b")
	fi
done
[ ${#arms[@]} -gt 0 ] || { say "none of the backends ${WANT[*]} is in this build"; exit 2; }

export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.pthread.rseq=0"

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with changes)')"
	echo "cpus: $(nproc)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "kernel: $(uname -r)"
	echo "glibc: $(getconf GNU_LIBC_VERSION)"
	echo "GLIBC_TUNABLES: $GLIBC_TUNABLES"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "backends: ${arms[*]}"
	[ ${#missing[@]} -eq 0 ] || echo "left out (not in this build): ${missing[*]}"
	echo "THREADS=$THREADS LDB_THREADS=$LDB_THREADS DUR=$DUR RUNS=$RUNS MB_ARGS=$MB_ARGS LDB_NUM=$LDB_NUM"
} >"$OUT/machine.txt"

status=0
sweep() { # NAME THREADS -- SWEEP-ARGS... -- CMD...
	local name=$1 th=$2
	shift 2
	say "$name (threads $th)"
	"${LS[@]}" sweep "${bflags[@]}" --threads "$th" --runs "$RUNS" --warmup 1 \
		--timeout "$TIMEOUT" -q --out "$OUT/$name" "$@" >"$OUT/$name.txt" || status=1
}

# shellcheck disable=SC2086  # MB_ARGS splits into its flags on purpose
sweep mutex "$THREADS" --json-key throughput --fairness-key fair_1ms_min_share \
	--extra-key fair_10ms_min_share --extra-key min_share --extra-key longest_stretch_max_us -- \
	$MB --threads '{threads}' --seconds "$DUR" $MB_ARGS --json
# shellcheck disable=SC2086
sweep request "$THREADS" --json-key request_worst_thread_p99_ns --lower-is-better \
	--fairness-key fair_1ms_min_share --extra-key request_p99_ns --extra-key request_p999_ns \
	--extra-key request_max_ns --extra-key throughput -- \
	$MB --mode request --threads '{threads}' --seconds "$DUR" $MB_ARGS --json
if [ -x "$LB" ]; then
	sweep leveldb "$LDB_THREADS" --json-key ops_per_sec -- \
		$LB --benchmarks readrandom --threads '{threads}' --num "$LDB_NUM" --seconds "$DUR" --json
else
	say "no $LB (needs libleveldb-dev: bash scripts/install-deps.sh); LevelDB left out"
fi

# Issue 44: the switch's and the signal routing's costs on this machine,
# and the differential test (futex against ces, byte for byte).
if [ -x build/bench/ces_costs ]; then
	say "ces costs"
	build/bench/ces_costs >"$OUT/ces_costs.txt" 2>&1 || status=1
fi
if [ -x build/ces/difftest ]; then
	say "differential test (${DIFF_SEEDS:-40} seeds)"
	timeout 180 "$PY" tests/ces/difftest.py --lib "$PWD/liblockswap.so" --bin build/ces/difftest \
		--seeds "${DIFF_SEEDS:-40}" >"$OUT/difftest.txt" 2>&1 || status=1
fi

echo "elapsed (runs): ${SECONDS} s" >>"$OUT/machine.txt"
"$PY" - "$OUT" <<'PYEOF' >"$OUT/summary.md"
import json, os, statistics, sys

out = sys.argv[1]

def load(name):
    path = os.path.join(out, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None

def extras(doc, key):
    """Median of an extra key per (threads, backend), over measured good runs."""
    got = {}
    for r in doc["runs"]:
        v = r.get("extras", {}).get(key)
        if r["status"] == "ok" and not r["warmup"] and v is not None:
            got.setdefault((r["group"], r["backend"]), []).append(v)
    return {k: statistics.median(v) for k, v in got.items()}

def cell(v, fmt):
    return "-" if v is None else fmt % v

def table(doc, cols):
    """cols: (heading, function of (threads, backend) -> text)."""
    lines = ["| threads | backend | " + " | ".join(h for h, _ in cols) + " |",
             "|---:|---|" + "---:|" * len(cols)]
    for t in doc["threads"]:
        for b in (x["label"] for x in doc["backends"]):
            lines.append("| %d | %s | " % (t, b) + " | ".join(f(t, b) for _, f in cols) + " |")
    return "\n".join(lines)

def medians(doc):
    return {(s["threads"], s["backend"]): s for s in doc["summary"]}

def paired(doc):
    return {(p["threads"], p["backend"]): p["ratio"] for p in doc["paired"]}

machine = open(os.path.join(out, "machine.txt")).read()
print("# Many-core delegation rows (scripts/manycore-delegation.sh)\n")
print("```\n" + machine.rstrip() + "\n```\n")
print("Medians over the measured rounds; ratios are median over the baseline's median "
      "(the first backend), and paired (the median of each round's ratio). "
      "`-`: no good run printed the value.\n")

mutex, req, ldb = load("mutex"), load("request"), load("leveldb")
ref = "slice:futex"
if mutex:
    m, p = medians(mutex), paired(mutex)
    f1, f10 = extras(mutex, "fair_1ms_min_share"), extras(mutex, "fair_10ms_min_share")
    ms, st = extras(mutex, "min_share"), extras(mutex, "longest_stretch_max_us")
    base = mutex["backends"][0]["label"]
    cols = [("throughput (M ops/s)", lambda t, b: cell(m.get((t, b), {}).get("median") / 1e6, "%.2f")
             if m.get((t, b), {}).get("n") else "-"),
            ("ratio to %s" % base, lambda t, b: cell(m.get((t, b), {}).get("ratio"), "%.3f")),
            ("paired", lambda t, b: cell(p.get((t, b)), "%.3f")),
            ("min share", lambda t, b: cell(ms.get((t, b)), "%.3f")),
            ("1 ms min share", lambda t, b: cell(f1.get((t, b)), "%.3f")),
            ("10 ms min share", lambda t, b: cell(f10.get((t, b)), "%.3f")),
            ("longest stretch (ms)", lambda t, b: cell(st.get((t, b)) and st[(t, b)] / 1e3, "%.2f"))]
    if any(x["label"] == ref for x in mutex["backends"]):
        def vs_ref(t, b):
            mine, theirs = m.get((t, b), {}).get("median"), m.get((t, ref), {}).get("median")
            return cell(mine / theirs if mine and theirs else None, "%.3f")
        cols.append(("throughput / %s" % ref, vs_ref))
    print("## MutexBench, short critical section: throughput and short-window fairness\n")
    print("`%s`\n" % mutex["invocation"])
    print(table(mutex, cols) + "\n")
if req:
    m = medians(req)
    p99, p999, mx = (extras(req, k) for k in ("request_p99_ns", "request_p999_ns", "request_max_ns"))
    cols = [("worst thread's p99 (us)", lambda t, b: cell(m.get((t, b), {}).get("median") / 1e3
             if m.get((t, b), {}).get("n") else None, "%.3f")),
            ("p99 (us)", lambda t, b: cell(p99.get((t, b)) and p99[(t, b)] / 1e3, "%.3f")),
            ("p99.9 (us)", lambda t, b: cell(p999.get((t, b)) and p999[(t, b)] / 1e3, "%.3f")),
            ("max (ms)", lambda t, b: cell(mx.get((t, b)) and mx[(t, b)] / 1e6, "%.2f"))]
    if any(x["label"] == ref for x in req["backends"]):
        def vs_ref(t, b):
            mine, theirs = m.get((t, b), {}).get("median"), m.get((t, ref), {}).get("median")
            return cell(mine / theirs if mine and theirs else None, "%.3f")
        cols.append(("worst p99 / %s's" % ref, vs_ref))
    print("## MutexBench request mode: request latency\n")
    print("`%s`\n" % req["invocation"])
    print(table(req, cols) + "\n")
if ldb:
    m, p = medians(ldb), paired(ldb)
    base = ldb["backends"][0]["label"]
    print("## LevelDB readrandom\n")
    print("`%s`\n" % ldb["invocation"])
    print(table(ldb, [("reads/s (M)", lambda t, b: cell(m.get((t, b), {}).get("median") / 1e6
                       if m.get((t, b), {}).get("n") else None, "%.3f")),
                      ("ratio to %s" % base, lambda t, b: cell(m.get((t, b), {}).get("ratio"), "%.3f")),
                      ("paired", lambda t, b: cell(p.get((t, b)), "%.3f"))]) + "\n")
else:
    print("## LevelDB readrandom\n\nNot run: build/bench/leveldb_bench was not built.\n")
for name, title in (("ces_costs.txt", "What the context switch and the signal work cost (build/bench/ces_costs)"),
                    ("difftest.txt", "The differential test, futex against ces (tests/ces/difftest.py)")):
    path = os.path.join(out, name)
    if os.path.exists(path):
        lines = open(path).read().splitlines()
        bad = [l for l in lines if l.startswith("FAIL")]
        shown = lines if name == "ces_costs.txt" else bad + lines[-1:]
        print("## %s\n\n```\n%s\n```\n" % (title, "\n".join(shown)))
failed = sum(s.get("failed", 0) for d in (mutex, req, ldb) if d for s in d["summary"])
print("Failed runs: %d (each sweep's .md lists them)." % failed)
PYEOF
say "wrote $OUT/summary.md (${SECONDS} s)"
exit $status
