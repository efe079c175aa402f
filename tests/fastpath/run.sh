#!/usr/bin/env bash
# Group "fastpath": which verbs the uncontended fast path really runs,
# counted by callgrind (calls per function, deterministic).
#   - single-threaded process: every lock and unlock goes to the backend's
#     single-threaded verbs (plain stores), none to the atomic ones;
#   - with a second thread alive: none goes to the single-threaded verbs
#     after the first call that found the thread (the gate moved).
set -u
. "$(dirname "$0")/../lib.sh"
PROG=$B/bench/uncontended
N=1000
command -v valgrind >/dev/null || { fail "valgrind is not installed (scripts/install-deps.sh installs it)"; finish fastpath; exit; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# calls BACKEND FUNCTION [ARGS...]: how many times FUNCTION was entered.
calls() {
	local backend=$1 fn=$2
	shift 2
	env LOCKSWAP_BACKEND="$backend" LD_PRELOAD=$LIB valgrind --tool=callgrind \
		--callgrind-out-file="$tmp/cg" "$PROG" $N "$@" >/dev/null 2>&1 || { echo -1; return; }
	# "calls=C ..." follows the cfn= line naming the callee; names are
	# given once per id and then referred to by id only.
	/usr/bin/python3 - "$tmp/cg" "$fn" <<'PY'
import re, sys
names, cur, n = {}, None, 0
for line in open(sys.argv[1]):
    m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
    if m:
        kind, ident, name = m.groups()
        if name:
            names[ident] = name
        if kind == "cfn":
            cur = names.get(ident)
        continue
    if line.startswith("calls=") and cur == sys.argv[2]:
        n += int(line[6:].split()[0])
print(n)
PY
}

for b in futex mcs; do
	single=$(calls "$b" "${b}_lock_single")
	atomic=$(calls "$b" "${b}_lock")
	if [ "$single" -ge $N ] && [ "$atomic" -eq 0 ]; then
		ok "$b: single-threaded process: $single calls of ${b}_lock_single, none of ${b}_lock"
	else
		fail "$b: single-threaded process: ${b}_lock_single $single calls, ${b}_lock $atomic (want >= $N and 0)"
	fi
	single=$(calls "$b" "${b}_lock_single" --idle-thread)
	atomic=$(calls "$b" "${b}_lock" --idle-thread)
	# The first call after the thread started finds it and moves the gate.
	if [ "$single" -le 1 ] && [ $((single + atomic)) -eq $N ]; then
		ok "$b: with an idle thread: $atomic calls of ${b}_lock, $single of ${b}_lock_single"
	else
		fail "$b: with an idle thread: ${b}_lock $atomic calls, ${b}_lock_single $single (want <= 1 and $N in all)"
	fi
done
finish fastpath
