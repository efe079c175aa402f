"""difftest.py --lib LIB --bin DIFFTEST [--seeds N] [--first S] [--logs DIR]

The differential test of docs/delegation.md: for each seed, difftest.c
builds a random program (threads, steps, and in each step a lock and a
thing done inside it) and prints what every thread observed.  Each seed
runs under futex (the control) and under ces; the two outputs must be
identical, byte for byte.  Under ces the statistics' summary says how
many sections ran delegated: over all seeds some must have, or nothing
was tested.  One line per seed ("ok - ..." / "FAIL - ..."), then the
totals.  The longer run: --seeds 500 (docs/delegation.md)."""
import argparse
import os
import re
import subprocess
import sys

DELEGATED = re.compile(r"delegation: (\d+) critical sections ran on a releasing thread")


def run(args, backend, seed, threads, steps):
    env = dict(os.environ)
    env.update(LD_PRELOAD=os.path.abspath(args.lib), LOCKSWAP_BACKEND=backend)
    # ces refuses to run while glibc registers rseq areas (every arm runs
    # under the same glibc, as tests/rseq_off.sh says).
    tunables = env.get("GLIBC_TUNABLES", "")
    if "glibc.pthread.rseq=0" not in tunables.split(":"):
        env["GLIBC_TUNABLES"] = "glibc.pthread.rseq=0" + (":" + tunables if tunables else "")
    if backend == "ces":
        env["LOCKSWAP_STATS"] = "summary"
    try:
        p = subprocess.run([args.bin, str(seed), str(threads), str(steps)], env=env,
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timeout (hang)", 0
    m = DELEGATED.search(p.stderr)
    if ("lockswap:" in p.stderr and "running on glibc's own locks" in p.stderr) \
            or "cannot be preloaded" in p.stderr:
        return None, "not served: " + p.stderr.strip().splitlines()[0], 0
    if backend == "ces" and "backend ces," not in p.stderr:
        return None, "the statistics' summary does not name ces", 0
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-200:]}", 0
    return p.stdout, "", int(m.group(1)) if m else 0


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return f"line {i + 1}: futex {x!r}, ces {y!r}"
    return "lengths differ"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--logs", default=None)
    args = ap.parse_args()
    total_delegated = 0
    bad = 0
    for seed in range(args.first, args.first + args.seeds):
        threads = 2 + seed % 5          # 2..6
        steps = 40 + (seed * 37) % 60   # 40..99
        outs = {}
        for backend in ("futex", "ces"):
            out, err, delegated = run(args, backend, seed, threads, steps)
            if out is None:
                print(f"FAIL - difftest seed {seed} under {backend}: {err}")
                break
            outs[backend] = out
            total_delegated += delegated
        else:
            if outs["futex"] == outs["ces"]:
                print(f"ok - difftest seed {seed} ({threads} threads, {steps} steps): ces printed what futex printed")
            else:
                bad += 1
                print(f"FAIL - difftest seed {seed}: outputs differ, {first_difference(outs['futex'], outs['ces'])}")
                if args.logs:
                    for b, o in outs.items():
                        with open(os.path.join(args.logs, f"difftest-{seed}-{b}.out"), "w") as f:
                            f.write(o)
            continue
        bad += 1
    print(("ok - " if total_delegated > 0 else "FAIL - ")
          + f"difftest: {total_delegated} critical sections ran delegated over {args.seeds} seeds")
    return 1 if bad or not total_delegated else 0


sys.exit(main())
