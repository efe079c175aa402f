#!/usr/bin/env bash
# scripts/manycore/bcs.sh OUTDIR - issue 38 part 2: bcs on many cores.
#
# Run from the repository root with liblockswap.so and build/bench/mutexbench
# built.  Writes into OUTDIR:
#   ab-T.md/.json/.txt   glibc / futex / bcs / bcs-wf, short CS, T threads,
#                        interleaved rounds (scripts/lockswap ab); and bcs with
#                        LOCKSWAP_BCS_OWN_CPU=off, the policy before issue 38
#   counts.csv           hand-over counters (LOCKSWAP_BCS_COUNTS) and context
#                        switches per 1000 acquisitions, one run per backend and T
#   native/              lockswap_with over bcs, bcs-wf, combining against a
#                        pthread mutex (docs/results/native/run.sh), 3 rounds
#   bcs.md               the table: ratio to futex (paired), min share, and the
#                        target ">= 0.9x futex at min share >= 0.9"; the counters;
#                        the native summary
# Budget: under 2 minutes on 16 cores (2 x 5 arms x 6 rounds x ~0.8 s with
# start-up and warm-up, 8 counter runs of 0.5 s, 2 x 5 x 3 native runs of
# 0.4 s; ~80 s in all).
# LS_MANYCORE_QUICK=1: threads 2, 0.1 s, 2 rounds (to check that it runs).
set -eu
out=${1:?usage: bash scripts/manycore/bcs.sh OUTDIR}
. "$(dirname "$0")/setup.sh"
manycore_setup bcs.sh "$out" "4 16" 0.5 5
{
	echo "# bcs on many cores (issue 38 part 2)"
	echo
	echo "- machine: $(nproc) CPUs, $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "- started $(date -u +%FT%TZ), load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$out/head.md"

for t in $threads; do
	"$py" scripts/lockswap ab -q -b futex -b glibc -b bcs -b bcs-wf -b bcs,BCS_OWN_CPU=off --runs "$runs" --warmup 1 --timeout 20 \
		--json-key throughput --extra-key min_share --out "$out/ab-$t" -- \
		"$bench" --threads "$t" --seconds "$secs" --cs-work 10 --ncs-work 10 --json >"$out/ab-$t.txt" 2>&1 || true
done

# The text's own form, where the consumer runs the closures: lockswap_with
# over bcs, bcs-wf and combining against a pthread mutex under futex and
# glibc (docs/results/native/run.sh; its summary goes into bcs.md).
if [ "${LS_MANYCORE_QUICK:-0}" = 1 ]; then nrounds=1 ndur=0.05; else nrounds=3 ndur=0.3; fi
# run.sh summarises with /usr/bin/python3, which may lack numpy: summarise again.
mkdir -p "$out/native"
ROUNDS=$nrounds THREADS="$threads" DUR=$ndur WARMUP=0.1 \
	bash docs/results/native/run.sh "$out/native" >"$out/native/run.txt" 2>&1 || true
"$py" docs/results/native/summary.py "$out/native/raw.jsonl" >"$out/native/summary.md" 2>>"$out/native/run.txt" ||
	{ echo "bcs.sh: the native run failed (see $out/native/run.txt)" >&2; rm -f "$out/native/summary.md"; }

# Counters: one run per backend and thread count.  bcs's counters come on
# stderr at exit; mutexbench's JSON on stdout.
echo "backend,threads,ops,total_ops,throughput,min_share,vcsw,ivcsw,slow_locks,parks,lost_races,grants,grants_parked,retries,retries_parked,parked_skips,own_cpu_waits" >"$out/counts.csv"
for t in $threads; do
	for arm in futex bcs bcs-wf bcs-own-cpu-off; do
		b=$arm own=on
		[ "$arm" = bcs-own-cpu-off ] && b=bcs own=off
		LD_PRELOAD=$lib LOCKSWAP_BACKEND=$b LOCKSWAP_BCS_COUNTS=on LOCKSWAP_BCS_OWN_CPU=$own timeout 20 \
			"$bench" --threads "$t" --seconds "$secs" --cs-work 10 --ncs-work 10 --json \
			>"$out/run.json" 2>"$out/run.err" || true
		"$py" - "$arm" "$t" "$out/run.json" "$out/run.err" >>"$out/counts.csv" <<'PY'
import json, re, sys
b, t, jf, ef = sys.argv[1:5]
try:
    d = json.load(open(jf))
except Exception:
    sys.exit(0)
keys = "slow_locks parks lost_races grants grants_parked retries retries_parked parked_skips own_cpu_waits".split()
c = dict.fromkeys(keys, "")
m = re.search(r"bcs counts: (.*)", open(ef).read())
if m:
    c.update(kv.split("=") for kv in m.group(1).split())
print(",".join(str(x) for x in [b, t, d["ops"], d["total_ops"], d["throughput"], d["min_share"],
                                 d["voluntary_switches"], d["involuntary_switches"]] + [c[k] for k in keys]))
PY
	done
done
rm -f "$out/run.json" "$out/run.err"

"$py" - "$out" "$threads" <<'PY' >"$out/bcs.md"
import csv, json, os, sys
out, threads = sys.argv[1], sys.argv[2].split()
print(open(os.path.join(out, "head.md")).read())
print("## Throughput against futex (target: bcs and bcs-wf >= 0.9x futex at min share >= 0.9)\n")
print("`bcs,BCS_OWN_CPU=off`: bcs with the policy before issue 38 (queued waiters under the")
print("CPUs - 2 spinner bound; a parked FIFO head handed the lock after one lost race).\n")
print("| threads | backend | median ops/s | paired ratio to futex [95% CI] | min share (median) | target |")
print("|---|---|---|---|---|---|")
for t in threads:
    p = os.path.join(out, f"ab-{t}.json")
    if not os.path.exists(p):
        print(f"| {t} | (ab failed: see ab-{t}.txt) | | | | |")
        continue
    d = json.load(open(p))
    paired = {r["backend"]: r for r in d.get("paired", [])}
    shares = {}
    for r in d.get("runs", []):
        if r.get("status") == "ok" and not r.get("warmup"):
            v = (r.get("extras") or {}).get("min_share")
            if v is not None:
                shares.setdefault(r["backend"], []).append(v)
    f = lambda x, k=3: "" if x is None else f"{x:.{k}f}"
    for r in d.get("summary", []):
        name = r["backend"]
        ss = sorted(shares.get(name, []))
        ms = ss[len(ss) // 2] if ss else None
        pr = paired.get(name)
        ratio = pr["ratio"] if pr else None
        ci = f"{f(ratio)} [{f(pr['ci_low'])}, {f(pr['ci_high'])}]" if pr else "(baseline)"
        tgt = ""
        if name in ("bcs", "bcs-wf", "bcs,BCS_OWN_CPU=off") and ratio is not None and ms is not None:
            tgt = "met" if ratio >= 0.9 and ms >= 0.9 else "missed"
        print(f"| {t} | {name} | {f(r.get('median'), 0)} | {ci} | {f(ms, 4)} | {tgt} |")
print()
print("## Hand-overs and wake-ups per 1000 acquisitions (one run each, LOCKSWAP_BCS_COUNTS)\n")
print("bcs-own-cpu-off: bcs with LOCKSWAP_BCS_OWN_CPU=off.")
print("grants: the lock handed to the FIFO head; grants to parked: that head was asleep, so the")
print("lock waited for a wake-up; retries: the lock freed and the head woken to compete; parks:")
print("waiters that slept; vcsw / ivcsw: the process's voluntary / involuntary context switches in")
print("the window; own-CPU waits: queued waits that found every thread with a CPU of its own (no")
print("spinner bound; if 0 at 16 threads, the process had more threads with a record than CPUs).")
print("Per 1000 acquisitions of the whole run (vcsw, ivcsw: of the measured window).\n")
print("| backend | threads | ops/s | min share | vcsw | ivcsw | own-CPU waits | parks | grants | grants to parked | retries | retries to parked | lost races | parked skips |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in csv.DictReader(open(os.path.join(out, "counts.csv"))):
    ops, tot = float(r["ops"]) or 1, float(r["total_ops"]) or 1
    bcs = r["backend"].startswith("bcs")
    per = lambda k: "" if r[k] == "" or not bcs else f"{1000 * float(r[k]) / tot:.3f}"
    print(f"| {r['backend']} | {r['threads']} | {float(r['throughput']):.0f} | {r['min_share']} | "
          f"{1000 * float(r['vcsw']) / ops:.3f} | {1000 * float(r['ivcsw']) / ops:.3f} | "
          f"{per('own_cpu_waits')} | {per('parks')} | {per('grants')} | "
          f"{per('grants_parked')} | {per('retries')} | {per('retries_parked')} | "
          f"{per('lost_races')} | {per('parked_skips')} |")
nat = os.path.join(out, "native", "summary.md")
if os.path.exists(nat):
    print("\n## The native API (lockswap_with), docs/results/native/run.sh\n")
    print(open(nat).read())
print(f"\nfinished, load: {open('/proc/loadavg').read().split()[:3]}")
PY
# Keep the folder small (8 files): the .md and .json hold what the .csv and plot do.
rm -f "$out/head.md" "$out"/ab-*.csv "$out"/ab-*-frontier.png
echo "bcs.sh: wrote $out/bcs.md"
