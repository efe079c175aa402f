#!/usr/bin/env bash
# tests/usdt - lockswap's USDT probes (core/runtime/probes.h, docs/tracing.md).
#   1. readelf -n liblockswap.so: every probe docs/tracing.md lists is there,
#      under the provider "lockswap", with the documented number of
#      arguments at every location, each naming the one semaphore; and no
#      probe is there that the document does not list.
#   2. Where bpftrace runs and the kernel allows uprobes: the probes' hits
#      counted while tests/usdt/hits.c runs (under slice:futex, glibc,
#      capacitor:futex and slice:futex), against what the program does;
#      and, from a run
#      with statistics on while traced, that the statistics still name the
#      program's call site.  Elsewhere it is reported as skipped, with the
#      reason.
set -u
source "$(dirname "$0")/../lib.sh"

DOC=$ROOT/docs/tracing.md
T=$B/usdt
mkdir -p "$T"
[ -f "$LIB" ] || { fail "liblockswap.so not built"; finish usdt; exit 1; }

# ---- 1. the notes ----
readelf -n "$LIB" >"$T/notes.txt" 2>&1
if out=$(/usr/bin/python3 - "$DOC" "$T/notes.txt" 2>&1 <<'PY'
import re, sys
doc = open(sys.argv[1]).read()
# The probe table: | `name` | arguments (comma separated, "-" for none) | ...
table = doc.split("<!-- probes:begin -->")[1].split("<!-- probes:end -->")[0]
want = {}
for row in table.splitlines():
    m = re.match(r"\|\s*`([a-z_]+)`\s*\|([^|]*)\|", row)
    if m:
        args = m.group(2).strip()
        want[m.group(1)] = 0 if args in ("", "-") else len(args.split(","))
if len(want) < 20:
    sys.exit(f"docs/tracing.md lists only {len(want)} probes")
have, sems, errors = {}, set(), []
for block in open(sys.argv[2]).read().split("NT_STAPSDT")[1:]:
    prov = re.search(r"Provider: (\S+)", block).group(1)
    name = re.search(r"Name: (\S+)", block).group(1)
    sems.add(re.search(r"Semaphore: (0x[0-9a-f]+)", block).group(1))
    a = re.search(r"Arguments:(.*)", block)
    n = len(a.group(1).split()) if a else 0
    if prov != "lockswap":
        errors.append(f"{name}: provider {prov}, not lockswap")
    have.setdefault(name, []).append(n)
for name, n in sorted(want.items()):
    if name not in have:
        errors.append(f"{name}: documented, not in the library")
    elif any(k != n for k in have[name]):
        errors.append(f"{name}: {have[name]} arguments at its locations, documented {n}")
for name in sorted(set(have) - set(want)):
    errors.append(f"{name}: in the library, not documented")
if len(sems) != 1 or int(next(iter(sems)), 16) == 0:
    errors.append(f"semaphores {sorted(sems)}: want one, nonzero")
if errors:
    sys.exit("; ".join(errors))
print(f"{len(want)} probes at {sum(map(len, have.values()))} locations")
PY
); then
	ok "readelf -n: the documented probes, provider lockswap, argument counts, one semaphore ($out)"
else
	fail "readelf -n: $out"
fi

# ---- 2. hits counted by bpftrace ----
NAME="probe hits counted by bpftrace"
skip() { ok "$NAME # SKIP $*"; finish usdt; exit; }
command -v bpftrace >/dev/null || skip "bpftrace is not installed (scripts/install-deps.sh installs it where uprobes are allowed)"
[ "$(id -u)" -eq 0 ] || skip "not root: bpftrace needs CAP_BPF and CAP_PERFMON"
gcc -std=gnu11 -O2 -g -Wall -o "$T/hits" "$ROOT/tests/usdt/hits.c" -lpthread ||
	{ fail "$NAME: tests/usdt/hits.c does not build"; finish usdt; exit 1; }
# Can this kernel and container attach a uprobe at all?  A failure here is
# the machine's, not lockswap's.
if ! probe_out=$(timeout 60 bpftrace -e "uprobe:$LIB:lockswap_rwlock { exit(); } BEGIN { printf(\"attached\\n\"); exit(); }" 2>&1) ||
	! grep -q attached <<<"$probe_out"; then
	skip "bpftrace cannot attach a uprobe here: $(grep -m1 -i error <<<"$probe_out" || echo "${probe_out##*$'\n'}")"
fi

# One session for the three runs: the counts add up.  The program's name
# ("hits") keeps other processes that map this library out of the counts.
P="usdt:$LIB:lockswap"
rm -f "$T/stats.json" "$T/hits.out"
bpftrace -e "$P:* /comm == \"hits\"/ { @[probe] = count(); }
	$P:mutex_acquired /comm == \"hits\"/ { @acquired_at[arg0] = count(); }
	$P:requeue /comm == \"hits\"/ { @moved = sum(arg2); }
	BEGIN { printf(\"ready\\n\"); }" >"$T/bpftrace.out" 2>&1 &
bt=$!
for _ in $(seq 240); do
	grep -q ready "$T/bpftrace.out" && break
	kill -0 $bt 2>/dev/null || break
	sleep 0.25
done
runs_ok=1
if grep -q ready "$T/bpftrace.out"; then
	# The default: its signal, under the mutex, to the sleeping waiter
	# moves it to the lock word (requeue, core/condvar/morph.h).
	env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND=slice:futex "$T/hits" locks >"$T/hits.out" 2>&1 || runs_ok=0
	# glibc's pass-through fires the same probes (Debian's glibc has none).
	env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND=glibc "$T/hits" locks >/dev/null 2>&1 || runs_ok=0
	# Statistics on while traced: the traced path must keep the call sites.
	env LD_PRELOAD="$LIB" LOCKSWAP_STATS=summary LOCKSWAP_STATS_FILE="$T/stats.json" "$T/hits" locks \
		>/dev/null 2>&1 || runs_ok=0
	env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND=capacitor:futex LOCKSWAP_BYPASS=4 "$T/hits" queue \
		>>"$T/hits.out" 2>&1 || runs_ok=0
	# Slices of 5 ms: the head's watch period (4 slices, at most ~33 ms)
	# must outlast the first owner's one acquisition and release, traps of
	# the probes and preemption on a loaded 2-vCPU VM included, or the head
	# takes the slice over (no hand-over probe).  With slices of 10 us (a
	# 40 us watch) that happened once in CI.  hits.c naps 20 ms before the
	# holder lets go, so the first owner's slice is spent at its release.
	env LD_PRELOAD="$LIB" LOCKSWAP_BACKEND=slice:futex LOCKSWAP_SLICE_US=5000 \
		LOCKSWAP_SLICE_GAP_NS=100000000 "$T/hits" queue >>"$T/hits.out" 2>&1 || runs_ok=0
fi
kill -INT $bt 2>/dev/null
for _ in $(seq 120); do kill -0 $bt 2>/dev/null || break; sleep 0.25; done
kill -KILL $bt 2>/dev/null
wait $bt 2>/dev/null
cp "$T/bpftrace.out" "$LOGS/usdt-bpftrace.out"

if ! grep -q ready "$T/bpftrace.out"; then
	fail "$NAME: bpftrace did not attach lockswap's probes: $(grep -m1 ERROR "$T/bpftrace.out")"
elif [ $runs_ok -ne 1 ]; then
	fail "$NAME: tests/usdt/hits failed: $(tail -1 "$T/hits.out")"
elif out=$(/usr/bin/python3 - "$T/bpftrace.out" "$T/hits.out" 2>&1 <<'PY'
import re, sys
text = open(sys.argv[1]).read()
c = {m.group(1): int(m.group(2))
     for m in re.finditer(r"^@\[usdt:[^\]]*:lockswap:(\w+)\]: (\d+)$", text, re.M)}
at = {int(m.group(1)): int(m.group(2))
      for m in re.finditer(r"^@acquired_at\[(\d+)\]: (\d+)$", text, re.M)}
mutex = int(re.search(r"^mutex (\d+)$", open(sys.argv[2]).read(), re.M).group(1))
g = lambda k: c.get(k, 0)
moved = re.search(r"^@moved: (\d+)$", text, re.M)
moved = int(moved.group(1)) if moved else 0
# Three runs of "locks" (the default, glibc, the default with statistics),
# one "queue" under each wrapper.
LOCKS = 3
PAIRS, RW = 100 * LOCKS, 10 * LOCKS
checks = [
    ("mutex_entry >= PAIRS", g("mutex_entry") >= PAIRS),
    ("mutex_acquired == mutex_entry", g("mutex_acquired") == g("mutex_entry")),
    ("mutex_release == acquisitions (timed included)",
     g("mutex_release") == g("mutex_acquired") + g("mutex_timedlock_acquired")),
    ("mutex_acquired's argument is the mutex", at.get(mutex, 0) >= PAIRS // LOCKS),
    ("mutex_timedlock_entry == mutex_timedlock_acquired == 1 a run",
     g("mutex_timedlock_entry") == g("mutex_timedlock_acquired") == LOCKS),
    ("one each of mutex_init, mutex_destroy, cond_init, cond_destroy, rwlock_destroy a run",
     all(g(k) == LOCKS for k in ("mutex_init", "mutex_destroy", "cond_init", "cond_destroy",
                                 "rwlock_destroy"))),
    ("cond_wait >= 1, one cond_signal, one cond_broadcast a run",
     g("cond_wait") >= LOCKS and g("cond_signal") == LOCKS and g("cond_broadcast") == LOCKS),
    ("rdlock_entry == rdlock_acquire_read == RW",
     g("rdlock_entry") == g("rdlock_acquire_read") == RW),
    ("wrlock_entry == wrlock_acquire_write == RW",
     g("wrlock_entry") == g("wrlock_acquire_write") == RW),
    ("rwlock_unlock == 2 RW", g("rwlock_unlock") == 2 * RW),
    ("park >= 1, park_done == park, unpark >= 1",
     g("park") >= 1 and g("park_done") == g("park") and g("unpark") >= 1),
    ("capacitor_platoon >= 1", g("capacitor_platoon") >= 1),
    ("slice_handover >= 1", g("slice_handover") >= 1),
    ("requeue == 1, moving 1: the default's signal under the mutex to the sleeping waiter",
     g("requeue") == 1 and moved == 1),
]
bad = [name for name, good in checks if not good]
if bad:
    sys.exit("; ".join(bad) + f" (counts {dict(sorted(c.items()))})")
print(", ".join(f"{k} {v}" for k, v in sorted(c.items())))
PY
); then
	ok "$NAME ($out)"
else
	fail "$NAME: $out"
fi
# The program's loop locks `m` in locks(), inlined into main (hits.c); the
# report names the innermost inlined function.  Traced, the statistics must
# still name that site, not lockswap's traced path.
if /usr/bin/python3 "$ROOT/scripts/lockswap" report "$T/stats.json" 2>&1 | grep -Eq "(locks|main) \(hits.c:"; then
	ok "statistics while traced: the mutex's site is the program's (locks, hits.c)"
else
	fail "statistics while traced: no 'locks (hits.c:' site in lockswap report $T/stats.json"
fi

finish usdt
