# tests/lib.sh - shared by the test group scripts (sourced, not run).
# Each group prints "ok - ..." / "FAIL - ..." lines and ends with
# "<group>: N passed, M failed"; tests/run.sh adds the groups up.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${B:-build}
case "$B" in /*) ;; *) B=$ROOT/$B ;; esac
LIB=$ROOT/liblockswap.so
LOGS=$B/test-logs
mkdir -p "$LOGS"
passed=0
failed=0
. "$ROOT/tests/rseq_off.sh"

ok() { passed=$((passed + 1)); echo "ok - $*"; }
fail() { failed=$((failed + 1)); echo "FAIL - $*"; }

# The library's own description of itself (lockswap_describe JSON), read
# with a clean LOCKSWAP_* environment.
describe_json() {
	env -u LD_PRELOAD /usr/bin/python3 - "$LIB" <<'PY'
import ctypes, os, sys
for k in [k for k in os.environ if k.startswith("LOCKSWAP_")]:
    del os.environ[k]
lib = ctypes.CDLL(sys.argv[1])
n = lib.lockswap_describe(None, 0)
buf = ctypes.create_string_buffer(n + 1)
lib.lockswap_describe(buf, n + 1)
print(buf.value.decode())
PY
}

# Every selectable backend, as the library lists it (never a second list),
# except that the program-level groups run each wrapper (capacitor:INNER,
# restrict:INNER, slice:INNER) over three inner locks only: futex, tts and
# mcs (every wrapper's default among them).  The wrappers are composed
# generically (backends/wrapper.h), and the unit tests (test_backends and
# each wrapper's own) run every wrapper over every inner; the full cross
# product here would cost CI about 150 s more.  LSTEST_ALL_INNERS=1 runs it;
# LSTEST_BACKENDS (space separated) narrows the set for quick runs.
list_backends() {
	if [ -n "${LSTEST_BACKENDS:-}" ]; then
		printf '%s\n' $LSTEST_BACKENDS
		return
	fi
	describe_json | LSTEST_ALL_INNERS=${LSTEST_ALL_INNERS:-} /usr/bin/python3 -c '
import json, os, sys
every = bool(os.environ.get("LSTEST_ALL_INNERS"))
for b in json.load(sys.stdin)["backends"]:
    n = b["name"]
    if every or ":" not in n or n.split(":", 1)[1] in ("futex", "tts", "mcs"):
        print(n)'
}

# Every rwlock backend (LOCKSWAP_RWLOCK's choices, glibc's pass-through
# among them), as the library lists them.
list_rw_backends() {
	describe_json | /usr/bin/python3 -c '
import json, sys
o = [o for o in json.load(sys.stdin)["options"] if o["name"] == "LOCKSWAP_RWLOCK"][0]
print("\n".join(o["choices"].split("|")))'
}

# An option's default (option_default LOCKSWAP_RWLOCK), as the library
# describes it.
option_default() {
	describe_json | /usr/bin/python3 -c '
import json, sys
print([o for o in json.load(sys.stdin)["options"] if o["name"] == sys.argv[1]][0]["default"])' "$1"
}

finish() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
