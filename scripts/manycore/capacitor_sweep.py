#!/usr/bin/python3
"""capacitor_sweep.py - capacitor:tts against tts, in separate interleaved
sweeps, every run watched by threadstates.py (docs/seeds.md K5).

Each sweep runs, per round, tts and capacitor:tts at each thread count in
an order that alternates between rounds; each capacitor run is compared
with the tts run of its own round (a paired ratio).  Every run has the
thread-state sampler attached at a coarse interval (20 ms: a few per cent
of one CPU), so that a run that collapses has its per-thread states on
record; the summaries of runs below 0.5x tts are copied into the report.

  capacitor_sweep.py OUTDIR [--sweeps 3] [--rounds 3] [--threads 16,8,32] [--budget 120]
                     [--seconds 0.5] [--interval-ms 20]
LS_MANYCORE_QUICK=1: 2 threads, 0.1 s, 1 round of 2 sweeps (a smoke test).
Run from the repository root after `make`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = "tts;capacitor:tts"
COLLAPSE = 0.5  # a capacitor run below this ratio to its round's tts


def one_run(a, backend, threads, tag):
    """backend: NAME[,SETTING=VALUE...], each setting as LOCKSWAP_SETTING,
    but LIB=PATH: preload that library instead of --lib."""
    name, *settings = backend.split(",")
    env = dict(os.environ, LD_PRELOAD=os.path.abspath(a.lib), LOCKSWAP_BACKEND=name)
    for kv in settings:
        k, _, v = kv.partition("=")
        if k == "LIB":
            env["LD_PRELOAD"] = os.path.abspath(v)
        else:
            env["LOCKSWAP_" + k] = v
    base = os.path.join(a.out, "states", tag)
    cmd = [sys.executable, os.path.join(HERE, "threadstates.py"), "--interval-ms",
           str(a.interval_ms), "--label", tag, "--json", base + ".json", "--text", base + ".md",
           "--", a.bench, "--threads", str(threads), "--seconds", str(a.seconds), "--json"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": round(time.monotonic() - t0, 2)}
    row = {"status": "ok" if p.returncode == 0 else "rc=%d" % p.returncode,
           "seconds": round(time.monotonic() - t0, 2)}
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        row["status"] = "no JSON: " + (p.stderr.strip().splitlines() or ["?"])[-1][:120]
        return row
    for k in ("throughput", "min_share", "voluntary_switches", "involuntary_switches", "ops"):
        row[k] = d.get(k)
    try:
        with open(base + ".json") as f:
            full = json.load(f)
        row.update(full["machine"])
        s = full["all"]
        row["run_share"] = s["share"].get("run", 0)
        row["futex_wait_share"] = s["share"].get("futex_wait", 0)
        row["futex_wait_on"] = s["futex_wait_on"]
        row["cpu_s"] = s["cpu_s"]
    except (OSError, ValueError, KeyError):
        pass
    return row


def top_place(row):
    on = row.get("futex_wait_on") or {}
    if not on:
        return "-"
    k, v = next(iter(on.items()))
    return "%s %.2f" % (k.split(":")[-1], v)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--sweeps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="16,8,32")
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--interval-ms", type=float, default=20.0)
    ap.add_argument("--timeout", type=float, default=20.0, help="per run, seconds")
    ap.add_argument("--budget", type=float, default=120.0,
                    help="start no run after this many seconds; the report is written anyway")
    ap.add_argument("--backends", default=BACKENDS,
                    help="';'-separated, the first the reference: NAME[,SETTING=VALUE...]"
                         " (LIB=PATH preloads another build)")
    ap.add_argument("--lib", default="liblockswap.so")
    ap.add_argument("--bench", default="build/bench/mutexbench")
    a = ap.parse_args(argv)
    if os.environ.get("LS_MANYCORE_QUICK") == "1":
        a.threads, a.seconds, a.rounds, a.sweeps = "2", 0.1, 1, 2
    backends = [b for b in a.backends.split(";") if b]
    if len(backends) < 2:
        ap.error("--backends needs a reference and at least one other, got %r" % a.backends)
    ref = backends[0]
    try:
        threads = [int(x) for x in a.threads.split(",")]
    except ValueError:
        ap.error("--threads must be a comma-separated list of counts, got %r" % a.threads)
    for path in [a.lib, a.bench] + [kv[4:] for b in backends for kv in b.split(",")[1:]
                                     if kv.startswith("LIB=")]:
        if not os.path.exists(path):
            ap.error("%s not found: run from the repository root after make" % path)
    os.makedirs(os.path.join(a.out, "states"), exist_ok=True)

    runs = []
    start = time.time()
    if a.timeout > a.budget:
        a.timeout = a.budget
    load0 = os.getloadavg()
    for sweep in range(1, a.sweeps + 1):
        for rnd in range(1, a.rounds + 1):
            for t in threads:
                order = backends if (rnd + sweep) % 2 else backends[::-1]
                for b in order:
                    if time.time() - start > a.budget:
                        break
                    tag = "s%d-r%d-t%d-%s" % (sweep, rnd, t, "".join(
                        c if c.isalnum() or c in "-." else "_" for c in b.replace("=", "")))
                    row = one_run(a, b, t, tag)
                    row.update(sweep=sweep, round=rnd, threads=t, backend=b, tag=tag)
                    runs.append(row)
                    print("%s %s %s" % (tag, row.get("throughput"), row["status"]), flush=True)
    load1 = os.getloadavg()

    with open(os.path.join(a.out, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)
        f.write("\n")
    by = {(r["sweep"], r["round"], r["threads"], r["backend"]): r for r in runs}
    md = ["# %s against %s, %d separate sweeps" % (", ".join(backends[1:]), ref, a.sweeps), "",
          "- machine: %s, %d CPUs; load average %.2f at start, %.2f at end; %s UTC" % (
              os.uname().nodename, os.cpu_count(), load0[0], load1[0],
              time.strftime("%Y-%m-%d %H:%M", time.gmtime(start))),
          "- command per run: `LD_PRELOAD=liblockswap.so LOCKSWAP_BACKEND=B threadstates.py "
          "--interval-ms %g -- %s --threads T --seconds %g --json`" % (a.interval_ms, a.bench,
                                                                        a.seconds),
          "- %d rounds per sweep, the backends' order reversed every other round; ratio = the "
          "run / the %s run of the same round" % (a.rounds, ref),
          "- target (capacitor:tts, 16 threads): >= 1.0x tts in each sweep (median of its "
          "rounds), no run below %.1fx" % COLLAPSE, "",
          "| sweep | threads | backend | %s median ops/s | its median | median ratio | "
          "lowest ratio | target |" % ref, "|---|---|---|---|---|---|---|---|"]
    collapsed = []
    for sweep in range(1, a.sweeps + 1):
        for t in threads:
            for b in backends[1:]:
                ratios, tv, cv = [], [], []
                for rnd in range(1, a.rounds + 1):
                    x = by.get((sweep, rnd, t, ref), {}).get("throughput")
                    y = by.get((sweep, rnd, t, b), {}).get("throughput")
                    if x:
                        tv.append(x)
                    if y is not None:
                        cv.append(y)
                    if x and y is not None:
                        ratios.append(y / x)
                        if y / x < COLLAPSE:
                            collapsed.append((by[(sweep, rnd, t, b)], y / x))
                if not ratios:
                    md.append("| %d | %d | %s | - | - | - | - | no data |" % (sweep, t, b))
                    continue
                med, low = statistics.median(ratios), min(ratios)
                verdict = "met" if med >= 1.0 and low >= COLLAPSE else "missed"
                md.append("| %d | %d | %s | %s | %s | %.3f | %.3f | %s |" % (
                    sweep, t, b, "{:,.0f}".format(statistics.median(tv)),
                    "{:,.0f}".format(statistics.median(cv)), med, low,
                    verdict if (t == 16 and b == "capacitor:tts" and ref == "tts")
                    else "(%s)" % verdict))
    md += ["", "Every run, with the sampler's totals over the worker threads (share of "
           "samples runnable / in a futex wait, and where the most waits were), the "
           "voluntary context switches per thousand operations, the machine's idle and "
           "steal shares of CPU time over the run, and the mean number of runnable "
           "tasks outside the benchmark:", "",
           "| run | ops/s | ratio | run share | futex wait | top wait place | vcsw per kop | "
           "idle | steal | outside runnable | status |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        x = by.get((r["sweep"], r["round"], r["threads"], ref), {}).get("throughput")
        ratio = "%.3f" % (r["throughput"] / x) if x and r.get("throughput") is not None and \
            r["backend"] != ref else "-"
        vk = "%.2f" % (1000.0 * r["voluntary_switches"] / r["ops"]) \
            if r.get("ops") and r.get("voluntary_switches") is not None else "-"
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["tag"], "{:,.0f}".format(r["throughput"]) if r.get("throughput") else "-", ratio,
            "%.2f" % r["run_share"] if "run_share" in r else "-",
            "%.2f" % r["futex_wait_share"] if "futex_wait_share" in r else "-",
            top_place(r), vk,
            "%.2f" % r["idle_share"] if "idle_share" in r else "-",
            "%.2f" % r["steal_share"] if "steal_share" in r else "-",
            "%.2f" % r["outside_runnable_mean"] if "outside_runnable_mean" in r else "-",
            r["status"]))
    md += ["", "## Runs below %.1fx %s: every thread" % (COLLAPSE, ref), ""]
    if not collapsed:
        md.append("None.")
    for r, ratio in collapsed:
        md.append("### %s: %.3fx %s" % (r["tag"], ratio, ref))
        md.append("")
        try:
            with open(os.path.join(a.out, "states", r["tag"] + ".md")) as f:
                md.append(f.read())
        except OSError:
            md.append("(no sampler summary)")
    with open(os.path.join(a.out, "README.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md[:9 + a.sweeps * len(threads) * (len(backends) - 1)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
