"""The published numbers and their raw files.

1. scripts/results.sh regenerates the raw tables docs/results.md cites it
   for: its `slice` and `manycore` parts, run with a stand-in for the
   lockswap command that records each sweep instead of running it, must ask
   for the backends, thread counts and rounds that the cited raw files'
   invocations name.
2. Every number in README.md and docs/results.md (and docs/backends.md,
   docs/seeds.md) that has a raw file recomputes from it: published.py.

Prints ok/FAIL lines."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import published  # noqa: E402

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
STAND_IN = """#!/bin/sh
# $1 is scripts/lockswap; record the rest, one line per call, by --out.
shift
[ "$1" = list ] && exit 0
out=log
prev=
for a in "$@"; do [ "$prev" = --out ] && out=$(basename "$a"); prev=$a; done
echo "$*" > "$LOG_DIR/$out"
"""
# (environment, part, output name, raw file under docs/results, as cited)
CASES = [
    ({"RESULTS_SLICE_VARIANT": "SLICE_BUSY=off"}, "slice", "slice-short", "slice-short.md"),
    ({"RESULTS_SLICE_VARIANT": "SLICE_BUSY=off"}, "slice", "slice-moderate", "slice-moderate.md"),
    ({"RESULTS_SLICE_VARIANT": "SLICE_BUSY=off"}, "slice", "slice-mixed", "slice-mixed.md"),
    ({"RESULTS_SLICE_VARIANT": "SLICE_BUSY=off"}, "slice", "slice-leveldb", "slice-leveldb.md"),
    ({"RESULTS_SLICE_VARIANT": "SLICE_BUSY=off"}, "slice", "slice-capacitor-2",
     "slice-capacitor-2.md"),
    ({"RESULTS_RUNS": "5"}, "slice", "slice-short", "seats-opt-in-slice-short.md"),
    ({"RESULTS_RUNS": "5"}, "slice", "slice-mixed", "seats-opt-in-slice-mixed.md"),
    ({"RESULTS_RUNS": "5"}, "slice", "slice-leveldb", "seats-opt-in-slice-leveldb.md"),
    ({}, "manycore", "slice-short", "manycore-slice/slice-short.md"),
    ({}, "manycore", "slice-mixed", "manycore-slice/slice-mixed.md"),
    ({}, "manycore", "slice-leveldb", "manycore-slice/slice-leveldb.md"),
    ({"RESULTS_CAPACITOR_THREADS": "4,16"}, "manycore", "manycore-capacitor",
     "manycore-slice/manycore-capacitor.md"),
]


def shape(invocation):
    """The backends (in order), thread counts and rounds a sweep or ab asks for."""
    words = invocation.split()
    pick = lambda flag: [words[i + 1] for i, w in enumerate(words[:-1]) if w == flag]
    threads = [t for t in pick("--threads") if "{" not in t]
    return {"backends": pick("-b") + pick("-r"), "threads": threads[:1], "runs": pick("--runs")}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "python")
        with open(fake, "w") as f:
            f.write(STAND_IN)
        os.chmod(fake, 0o755)
        for env, part, out, raw in CASES:
            logs = os.path.join(tmp, "logs", part, "-".join(f"{k}={v}" for k, v in env.items()))
            if not os.path.isdir(logs):
                os.makedirs(logs)
                e = {k: v for k, v in os.environ.items() if not k.startswith("RESULTS_")}
                e.update(env, RESULTS_PYTHON=fake, RESULTS_NO_BUILD="1", LOG_DIR=logs,
                         RESULTS_OUT=os.path.join(tmp, "out"))
                subprocess.run(["bash", os.path.join(ROOT, "scripts", "results.sh"), part],
                               env=e, capture_output=True, text=True, timeout=60, cwd=ROOT)
            path = os.path.join(logs, out)
            ran = open(path).read() if os.path.exists(path) else ""
            with open(os.path.join(ROOT, "docs", "results", raw)) as f:
                cited = re.search(r"^- invocation: `(.*)`$", f.read(), re.M).group(1)
            got, want = shape(ran), shape(cited)
            what = "".join(f"{k}={v} " for k, v in env.items())
            if got == want:
                print(f"ok - {what}results.sh {part} regenerates docs/results/{raw}")
            else:
                print(f"FAIL - {what}results.sh {part} does not regenerate docs/results/{raw}: "
                      f"asks {got}, the raw file has {want}")

    for line in published.main(ROOT):
        print(line)


main()
