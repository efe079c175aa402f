#!/usr/bin/env bash
# Hand-over counters and context switches per 1000 acquisitions (issue 38 part 2).
# usage: bash docs/results/bcs/counts.sh BEFORE_LIB AFTER_LIB THREADS... > counts.csv
# Each run: build/bench/mutexbench --threads T --seconds 0.5 --json (short CS),
# LOCKSWAP_BCS_COUNTS=on; rounds interleave every (lib, backend) in turn.
set -eu
# ces refuses to run while glibc registers rseq areas; every arm runs the same way.
export GLIBC_TUNABLES=glibc.pthread.rseq=0
before=$1 after=$2; shift 2
echo "round,lib,backend,threads,ops,total_ops,throughput,min_share,vcsw_per_1000,ivcsw_per_1000,slow_locks,parks,lost_races,grants,grants_parked,retries,retries_parked,parked_skips,own_cpu_waits"
for round in 1 2; do
for t in "$@"; do
	for cfg in before:bcs before:bcs-wf after:bcs after:bcs-wf after:futex after:ces; do
		which=${cfg%%:*} b=${cfg#*:}
		lib=$before; [ "$which" = after ] && lib=$after
		LD_PRELOAD=$lib LOCKSWAP_BACKEND=$b LOCKSWAP_BCS_COUNTS=on \
			build/bench/mutexbench --threads "$t" --seconds 0.5 --json >/tmp/bcs-counts.json 2>/tmp/bcs-counts.err || true
		/usr/bin/python3 - "$round" "$which" "$b" "$t" <<'PY'
import json, re, sys
r, which, b, t = sys.argv[1:5]
d = json.load(open("/tmp/bcs-counts.json"))
keys = "slow_locks parks lost_races grants grants_parked retries retries_parked parked_skips own_cpu_waits".split()
m = re.search(r"bcs counts: (.*)", open("/tmp/bcs-counts.err").read())
c = dict(kv.split("=") for kv in m.group(1).split()) if m and b.startswith("bcs") else {}
tot = d["total_ops"] or 1
per = lambda k: f"{1000 * int(c[k]) / tot:.3f}" if k in c else ""
print(",".join([r, which, b, t, str(d["ops"]), str(d["total_ops"]), str(d["throughput"]), str(d["min_share"]),
                f"{1000 * d['voluntary_switches'] / (d['ops'] or 1):.3f}",
                f"{1000 * d['involuntary_switches'] / (d['ops'] or 1):.3f}"] + [per(k) for k in keys]))
PY
	done
done
done
