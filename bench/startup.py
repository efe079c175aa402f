#!/usr/bin/env python3
"""startup.py - what the preload adds to every process it enters: the time
to start and end a program that does almost nothing, with LD_PRELOAD unset
and with each library given, in interleaved rounds.

    /usr/bin/python3 bench/startup.py [--rounds R] [--count N] \\
        [--lib NAME=PATH ...] [--set VAR=VALUE ...] [-- PROGRAM ARGS]

Each round starts PROGRAM (default /bin/true) N times under each arm, the
arms in a fresh random order; an arm's time per process is the round's
wall time over N.  Prints each arm's median microseconds per process and,
paired by round, its median difference from no preload with a 95%
bootstrap interval: the fixed cost of loading lockswap, which a fleet
pays in every short-lived process (a build's compilers, a shell script's
commands).  --set adds variables to every arm's environment but the first
(e.g. LOCKSWAP_STATS=summary); the arm without the preload gets none.
--json FILE writes the rounds and the summary.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from lockswap_cli import stats  # noqa: E402  (numpy: run with /usr/bin/python3)


def spawn_many(argv, env, count):
    """Wall seconds for `count` starts of argv, each waited for."""
    t0 = time.perf_counter()
    for _ in range(count):
        pid = os.posix_spawn(argv[0], argv, env)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            sys.exit(f"startup.py: {argv[0]} exited with status {status} under "
                     f"LD_PRELOAD={env.get('LD_PRELOAD', '')!r}")
    return time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--lib", action="append", default=[], metavar="NAME=PATH",
                   help="an arm: LD_PRELOAD=PATH (repeat)")
    p.add_argument("--set", action="append", default=[], metavar="VAR=VALUE",
                   help="in the environment of every arm with a library")
    p.add_argument("--json", metavar="FILE")
    p.add_argument("program", nargs="*", default=["/bin/true"])
    a = p.parse_args()
    base_env = {k: v for k, v in os.environ.items()
                if k != "LD_PRELOAD" and not k.startswith("LOCKSWAP_")}
    arms = {"none": dict(base_env)}
    for spec in a.lib:
        name, sep, path = spec.partition("=")
        if not sep or not os.path.isfile(path):
            sys.exit(f"startup.py: --lib {spec!r}: give NAME=PATH of an existing library")
        env = dict(base_env, LD_PRELOAD=os.path.abspath(path))
        for kv in a.set:
            k, sep, v = kv.partition("=")
            if not sep:
                sys.exit(f"startup.py: --set {kv!r}: give VAR=VALUE")
            env[k] = v
        arms[name] = env
    argv = list(a.program)
    if not os.path.isabs(argv[0]):
        sys.exit(f"startup.py: give the program's full path, not {argv[0]!r}")
    labels = list(arms)
    rounds = {}
    spawn_many(argv, arms["none"], a.count)  # warm the page cache
    for r in range(a.rounds):
        order = labels[:]
        random.shuffle(order)
        rounds[r] = {arm: spawn_many(argv, arms[arm], a.count) / a.count * 1e6 for arm in order}
    print(f"{' '.join(argv)}: {a.count} starts per arm per round, {a.rounds} rounds")
    print(f"{'arm':<12} {'us/process':>11}   added over none, paired [95%]")
    diffs = {}
    for arm in labels:
        med = statistics.median(r[arm] for r in rounds.values())
        line = f"{arm:<12} {med:>11.1f}"
        if arm != "none":
            d = [r[arm] - r["none"] for r in rounds.values()]
            lo, hi = stats.middle(stats.resampled_medians(np.asarray(d), np.random.default_rng(45)))
            diffs[arm] = {"median": statistics.median(d), "low": lo, "high": hi}
            line += f"   {statistics.median(d):+.1f} [{lo:+.1f}, {hi:+.1f}]"
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"program": argv, "count": a.count, "rounds": list(rounds.values()),
                       "added_us": diffs, "set": a.set,
                       "libs": {s.partition("=")[0]: s.partition("=")[2] for s in a.lib}},
                      f, indent=1)


if __name__ == "__main__":
    main()
