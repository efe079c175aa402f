#!/usr/bin/env python3
"""stats-alone-cost.py - what profiling with LOCKSWAP_STATS alone costs.

Issue 38 asked whether statistics alone (no LOCKSWAP_BACKEND) should observe
glibc's own locks or lockswap's default backends.  This measures both
against the program without lockswap at all, which `lockswap ab` cannot
run (its arms all load the library):

  none          the program alone, no LD_PRELOAD
  passthrough   liblockswap.so loaded, LOCKSWAP_BACKEND=glibc and
                LOCKSWAP_RWLOCK=glibc: the interposition's own cost
  stats-glibc   LOCKSWAP_STATS=summary over glibc's locks (the pass-through)
  stats-alone   LOCKSWAP_STATS=summary alone: the library's default backends

Every round runs every arm once in a fresh random order; per row, each
arm's ratio to `none` paired by round (median of the rounds' ratios, 95%
bootstrap interval over rounds), and `none`'s median.  Higher is better in
every row (the uncontended row's ns per pair is inverted).

  /usr/bin/python3 scripts/stats-alone-cost.py [--rounds N] [--out FILE.md]
"""
import argparse
import json
import os
import random
import subprocess
import sys

import numpy as np

from lockswap_cli import stats

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(REPO, "liblockswap.so")
MB = os.path.join(REPO, "build/bench/mutexbench")
LB = os.path.join(REPO, "build/bench/leveldb_bench")
UN = os.path.join(REPO, "build/bench/uncontended")


def arms():
    summary = {"LOCKSWAP_STATS": "summary", "LOCKSWAP_STATS_TOP": "0"}
    glibc = {"LOCKSWAP_BACKEND": "glibc", "LOCKSWAP_RWLOCK": "glibc"}
    return {
        "none": None,
        "passthrough": glibc,
        "stats-glibc": dict(summary, **glibc),
        "stats-alone": summary,
    }


def rows(dur):
    mb = [MB, "--seconds", str(dur), "--json"]
    out = [
        ("uncontended", [UN, "20000000", "--json", "--idle-thread"], "ns_per_pair", True),
        ("short-8", mb + ["--threads", "8"], "throughput", False),
        ("condvar-8", mb + ["--threads", "8", "--mode", "condvar"], "throughput", False),
        ("rw50-8", mb + ["--threads", "8", "--mode", "rwlock", "--read-pct", "50"], "throughput", False),
    ]
    if os.access(LB, os.X_OK):
        out.append(("leveldb-read-8", [LB, "--benchmarks", "readrandom", "--threads", "8",
                                       "--num", "100000", "--seconds", "1", "--json"],
                    "ops_per_sec", False))
    return out


def run_once(cmd, key, settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    env.pop("LD_PRELOAD", None)
    if settings is not None:
        env["LD_PRELOAD"] = LIB
        env.update(settings)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"stats-alone-cost: {' '.join(cmd)} failed: {p.stderr.strip()[-300:]}")
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{") and key in line:
            return float(json.loads(line)[key])
    sys.exit(f"stats-alone-cost: no {key} in the output of {' '.join(cmd)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.5, help="MutexBench window")
    ap.add_argument("--out", help="also write the table to this markdown file")
    a = ap.parse_args()
    if a.rounds < 2:
        sys.exit("stats-alone-cost: --rounds must be at least 2")
    for path in (LIB, MB, UN):
        if not os.path.exists(path):
            sys.exit(f"stats-alone-cost: {path} missing: run make -j2 all first")
    arm_set = arms()
    order_rng = random.Random(1)
    lines = [f"Rounds: {a.rounds} (every arm once per round, shuffled); load before: "
             f"{open('/proc/loadavg').read().split()[:3]}", "",
             "| row | none (median) | " + " | ".join(f"{n} / none" for n in list(arm_set)[1:]) + " |",
             "|---|---|" + "---|" * (len(arm_set) - 1)]
    for name, cmd, key, lower in rows(a.seconds):
        rounds = {}
        run_once(cmd, key, None)  # warm-up: page cache, CPU frequency
        for r in range(a.rounds):
            names = list(arm_set)
            order_rng.shuffle(names)
            rounds[r] = {n: run_once(cmd, key, arm_set[n]) for n in names}
        cells = []
        for row in stats.paired(rounds, list(arm_set), lower, seed=1):
            m, lo, hi = stats.times_better(row, lower)
            cells.append(f"**{m:.3f}** [{lo:.3f}, {hi:.3f}]")
        base = float(np.median([v["none"] for v in rounds.values()]))
        lines.append(f"| {name} ({key}{', lower is better' if lower else ''}) | {base:,.6g} | "
                     + " | ".join(cells) + " |")
        print(lines[-1], file=sys.stderr)
    lines += ["", f"load after: {open('/proc/loadavg').read().split()[:3]}"]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
