#!/bin/bash
# hog.sh OUT [ROUNDS]: capacitor:tts against tts at threads = CPUs, each
# round once as it is and once with one extra busy process competing for
# the CPUs (a stand-in for any other load: a preempted thread that holds a
# ticket stalls its platoon).  Rounds alternate the two conditions, each a
# one-round sweep of scripts/manycore/capacitor_sweep.py (sampler at 5 ms).
# Run from the repository root after make, alone on the machine (here: under the
# shared benchmark lock).
set -euo pipefail
out=$1
rounds=${2:-5}
n=$(nproc)
sweep() {
	python3 scripts/manycore/capacitor_sweep.py "$1" --threads "$n" --seconds 1 --rounds 1 \
		--sweeps 1 --interval-ms 5 > /dev/null
}
for r in $(seq "$rounds"); do
	sweep "$out/quiet-$r"
	sh -c 'while :; do :; done' &
	hog=$!
	sweep "$out/hog-$r"
	kill "$hog"
	wait "$hog" 2> /dev/null || true
done
python3 - "$out" "$rounds" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
print("| condition | round | tts ops/s | capacitor:tts ops/s | ratio | capacitor futex-wait share | "
      "outside runnable |")
print("|---|---|---|---|---|---|---|")
ratios = {"quiet": [], "hog": []}
for r in range(1, rounds + 1):
    for cond in ("quiet", "hog"):
        runs = json.load(open(os.path.join(out, "%s-%d" % (cond, r), "runs.json")))
        by = {x["backend"]: x for x in runs}
        t, c = by["tts"]["throughput"], by["capacitor:tts"]["throughput"]
        ratios[cond].append(c / t)
        print("| %s | %d | %s | %s | %.3f | %.2f | %.2f |" % (
            cond, r, "{:,.0f}".format(t), "{:,.0f}".format(c), c / t,
            by["capacitor:tts"].get("futex_wait_share", -1),
            by["capacitor:tts"].get("outside_runnable_mean", -1)))
for cond, v in ratios.items():
    print("\n%s: median ratio %.3f, range %.3f-%.3f over %d rounds" % (
        cond, statistics.median(v), min(v), max(v), len(v)))
PY
