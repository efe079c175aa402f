#!/usr/bin/env bash
# Test group "manycore": the scripts the many-core driver runs
# (scripts/manycore/), checked here with tiny settings.
#   - threadstates.py classifies a thread blocked in a futex as a futex
#     wait (with its address) and a busy thread as running, and rejects bad
#     arguments with one line;
#   - capacitor.sh (LS_MANYCORE_QUICK=1) writes its table with the target,
#     a state summary for every run, the busy-process round, and the
#     overtake counts of capacitor_claims.c, the wake-up latency, and a
#     round of a build with a 200 us stall bound (about 20 s in all here).
set -u
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ts=scripts/manycore/threadstates.py

# A child with one thread asleep on an Event (a futex wait) and one busy.
cat > "$tmp/child.py" <<'PY'
import threading, time
ev = threading.Event()
def busy():
    end = time.monotonic() + 0.6
    while time.monotonic() < end:
        pass
threading.Thread(target=ev.wait, name="sleeper", daemon=True).start()
b = threading.Thread(target=busy)
b.start()
b.join()
PY
if /usr/bin/python3 "$ts" --interval-ms 5 --json "$tmp/s.json" --text "$tmp/s.md" -- \
	/usr/bin/python3 "$tmp/child.py" > "$LOGS/manycore-threadstates.log" 2>&1; then
	verdict=$(/usr/bin/python3 - "$tmp/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ts = d["threads"]
waiter = [t for t in ts if t["share"].get("futex_wait", 0) > 0.8 and t["futex_wait_on"]]
runner = [t for t in ts if t["share"].get("run", 0) > 0.8]
print("ok" if len(ts) >= 3 and waiter and runner and d["all"]["threads"] == len(ts) - 1
      else "threads %d, waiters %d, runners %d" % (len(ts), len(waiter), len(runner)))
PY
)
	[ "$verdict" = ok ] && ok "threadstates: a futex sleeper waits, a busy thread runs" ||
		fail "threadstates: $verdict"
	grep -q "^| all but main |" "$tmp/s.md" && ok "threadstates: the table has a total row" ||
		fail "threadstates: no total row in the table"
else
	fail "threadstates on a child exited non-zero (see $LOGS/manycore-threadstates.log)"
fi
for bad in "" "--interval-ms 0 -- true" "--pid 999999999"; do
	# shellcheck disable=SC2086
	msg=$(/usr/bin/python3 "$ts" $bad 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$msg" | grep -c 'error:')" -eq 1 ] &&
		ok "threadstates rejects '$bad' with one error line" ||
		fail "threadstates '$bad': exit $rc, '$msg'"
done

if [ -f liblockswap.so ] && [ -f liblockswap-core.a ] && [ -x "$B/bench/mutexbench" ]; then
	if LS_MANYCORE_QUICK=1 bash scripts/manycore/capacitor.sh "$tmp/cap" \
		> "$LOGS/manycore-capacitor.log" 2>&1; then
		r=$tmp/cap/sweeps/README.md
		grep -q "^| 1 | 2 | capacitor:tts |" "$r" && grep -q "^| 2 | 2 | capacitor:tts |" "$r" &&
			grep -q "target (capacitor:tts, 16 threads)" "$r" &&
			ok "capacitor.sh: a row per sweep, and the target" ||
			fail "capacitor.sh: table rows missing in $r"
		n=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(sum(1 for x in r if x["status"] == "ok" and "run_share" in x))' "$tmp/cap/sweeps/runs.json")
		[ "$n" -eq 4 ] && ok "capacitor.sh: 4 runs, each with its thread states" ||
			fail "capacitor.sh: $n of 4 runs ok with states"
		[ -f "$tmp/cap/hog/README.md" ] && ok "capacitor.sh: the busy-process round ran" ||
			fail "capacitor.sh: no hog/README.md"
		rows=$(grep -cE '^\| (tts|futex) \| [0-9]+ \| [0-9]+ \| [0-9.]+ \|' "$tmp/cap/claims.md" 2>/dev/null)
		[ "${rows:-0}" -eq 4 ] && ok "capacitor.sh: the K3/K11 counts, 4 runs" ||
			fail "capacitor.sh: ${rows:-0} of 4 rows in claims.md"
		grep -q '^| 1 | 2 | capacitor:tts,LIB=.*stall200-build/liblockswap.so |' \
			"$tmp/cap/stall200/README.md" 2>/dev/null &&
			ok "capacitor.sh: the 200 us stall build ran beside the default" ||
			fail "capacitor.sh: no stall200 row (see $tmp/cap/stall200/build.txt)"
		[ "$(grep -c '"p50_ns"' "$tmp/cap/wakelat.jsonl" 2>/dev/null)" = 2 ] &&
			ok "capacitor.sh: the wake-up latency, idle and busy" ||
			fail "capacitor.sh: wakelat.jsonl lacks its 2 lines"
	else
		fail "capacitor.sh exited non-zero (see $LOGS/manycore-capacitor.log)"
	fi
else
	fail "capacitor.sh: liblockswap.so, liblockswap-core.a or $B/bench/mutexbench missing (run make)"
fi
finish manycore
