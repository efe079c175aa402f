#!/usr/bin/python3
"""A stand-in benchmark for the CLI tests.

Prints one JSON line whose throughput depends on LOCKSWAP_BACKEND (glibc
100, futex 200, anything else 120; a small wobble by run count keeps runs
apart).  Controlled by FAKE_* variables (never LOCKSWAP_*):
  FAKE_LOG=path      append "<backend> <argv[1:]>" for each run
  FAKE_FAIL=name     exit 3 with a message on stderr when the backend is name
  FAKE_NOKEY=name    leave throughput out when the backend is name
  FAKE_TEXT=1        print "ops/s: <value>" instead of JSON
  FAKE_PRELOAD_LOG=path  append "<backend> <first LD_PRELOAD entry>" for each run
"""
import json
import os
import sys

backend = os.environ.get("LOCKSWAP_BACKEND", "none")
log = os.environ.get("FAKE_LOG")
count = 0
if log:
    if os.path.exists(log):
        with open(log) as f:
            count = sum(1 for _ in f)
    with open(log, "a") as f:
        f.write(" ".join([backend] + sys.argv[1:]) + "\n")
preload_log = os.environ.get("FAKE_PRELOAD_LOG")
if preload_log:
    with open(preload_log, "a") as f:
        f.write(f"{backend} {os.environ.get('LD_PRELOAD', '').split(':')[0]}\n")
if os.environ.get("FAKE_FAIL") == backend:
    print("fake_bench: first line of trouble", file=sys.stderr)
    print(f"fake_bench: {backend} failed on purpose", file=sys.stderr)
    sys.exit(3)
value = {"glibc": 100.0, "futex": 200.0}.get(backend, 120.0) + (count % 3) * 0.5
threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 1
if os.environ.get("FAKE_TEXT"):
    print(f"ops/s: {value * threads}")
else:
    record = {"workload": "fake", "threads": threads, "min_share": round(1.0 / (1 + threads), 4)}
    if os.environ.get("FAKE_NOKEY") != backend:
        record["throughput"] = value * threads
    print("fake_bench starting")
    print(json.dumps(record))
