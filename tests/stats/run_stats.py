#!/usr/bin/python3
"""Test group "stats": LOCKSWAP_STATS under every backend the library
lists (glibc pass-through included).

Runs the workloads of tests/preload/stats_*.c with statistics on and checks
the JSON they write (against docs/stats-schema.json and the exact numbers
each workload documents), the stderr summary, the folded stacks, fork,
the dump on a signal while running, and that heavy contention with stack
capture (and a preloaded jemalloc, when installed) finishes.

Prints `ok - ...` / `FAIL - ...` lines and ends with
`stats: N passed, M failed`; exits non-zero on any failure.
"""
import ctypes
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import schema_lite  # noqa: E402

B = os.environ.get("B", "build")
LIB = os.path.join(REPO, "liblockswap.so")
PROG = os.path.join(REPO, B, "preload")
SCHEMA = json.load(open(os.path.join(REPO, "docs", "stats-schema.json")))
JEMALLOC = next(iter(glob.glob("/usr/lib/*/libjemalloc.so.2")), None)
TIMEOUT = 120

passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {what}")
    else:
        failed += 1
        print(f"FAIL - {what}: {detail}")
    sys.stdout.flush()
    return ok


def backends():
    lib = ctypes.CDLL(LIB)
    lib.lockswap_describe.restype = ctypes.c_size_t
    lib.lockswap_describe.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    need = lib.lockswap_describe(None, 0)
    buf = ctypes.create_string_buffer(need + 1)
    lib.lockswap_describe(buf, need + 1)
    return [b["name"] for b in json.loads(buf.value.decode())["backends"]]


def env(backend, **opts):
    e = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    e.pop("LD_PRELOAD", None)
    e["LOCKSWAP_BACKEND"] = backend
    for k, v in opts.items():
        e[f"LOCKSWAP_{k}"] = str(v)
    return e


def run(prog, args, environment, preload=LIB, timeout=TIMEOUT):
    """The program under LD_PRELOAD (set for it alone, not for a wrapper)."""
    e = dict(environment)
    e["LD_PRELOAD"] = preload
    return subprocess.run([os.path.join(PROG, prog), *map(str, args)], env=e, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def load(path):
    with open(path) as f:
        return json.load(f)


def valid(doc, what):
    errs = schema_lite.errors(doc, SCHEMA)
    return report(not errs, f"{what}: JSON matches docs/stats-schema.json", "; ".join(errs[:5]))


def by_name(doc):
    return {l["name"]: l for l in doc["locks"] if l["name"]}


def stack_has(doc, stack_id, symbol):
    for s in doc["stacks"]:
        if s["id"] == stack_id:
            return any(f["symbol"] == symbol for f in s["frames"])
    return False


def expect(tag, got, want, what):
    return report(got == want, f"{tag}: {what}", f"got {got!r}, want {want!r}")


def check_counts(tag, doc, backend, full):
    """The numbers tests/preload/stats_counts.c documents."""
    locks = by_name(doc)
    want_names = {"count_lock", "try_lock", "timed_lock", "rec_lock", "err_lock", "cv_lock", "cv",
                  "contend_lock"}
    if not report(want_names <= set(locks), f"{tag}: every workload object is reported by name",
                  f"names {sorted(locks)}"):
        return
    expect(tag, doc["backend"], backend, "the backend is named")
    served = {l["served_by"] for n, l in locks.items() if n in want_names}
    expect(tag, served, {"glibc" if backend == "glibc" else backend}, "served_by is the backend")
    c = locks["count_lock"]
    expect(tag, c["acquisitions"], 40000, "count_lock: 4 threads x 10000 acquisitions")
    expect(tag, sorted(p["acquisitions"] for p in c["per_thread"]), [10000] * 4,
           "count_lock: 10000 per thread")
    f = c["fairness"]
    report(f["threads"] == 4 and abs(f["jain"] - 1) < 1e-6 and abs(f["min_share"] - 0.25) < 1e-6
           and abs(f["max_share"] - 0.25) < 1e-6, f"{tag}: count_lock: fairness 4 threads, Jain 1",
           f"{f}")
    expect(tag, c["site"]["symbol"], "count_worker", "count_lock: first used in count_worker")
    t = locks["try_lock"]
    expect(tag, (t["acquisitions"], t["trylock_failures"]), (1001, 7),
           "try_lock: 1001 acquisitions, 7 trylock failures")
    d = locks["timed_lock"]
    expect(tag, (d["acquisitions"], d["timeouts"]), (1001, 5),
           "timed_lock: timedlock+clocklock counted, 5 timeouts")
    if full:
        report(d["wait"]["samples"] >= 5, f"{tag}: timed_lock: timed-out waits are timed",
               f"{d['wait']['samples']} samples")
    expect(tag, (locks["rec_lock"]["acquisitions"], locks["rec_lock"]["kind"]), (300, "recursive"),
           "rec_lock: every nested lock counted")
    expect(tag, (locks["err_lock"]["acquisitions"], locks["err_lock"]["kind"]), (1, "errorcheck"),
           "err_lock: a failed relock is not an acquisition")
    cv = locks["cv"]
    expect(tag, (cv["type"], cv["waits"], cv["timeouts"], cv["signals"], cv["broadcasts"]),
           ("condvar", 7, 7, 5, 2), "cv: timedwait+clockwait waits and timeouts, signals, broadcasts")
    expect(tag, cv["mutex"], locks["cv_lock"]["id"], "cv: waited with cv_lock")
    expect(tag, locks["cv_lock"]["acquisitions"], 8, "cv_lock: 1 lock + 7 re-acquisitions after waits")
    k = locks["contend_lock"]
    expect(tag, k["acquisitions"], 150, "contend_lock: 150 acquisitions")
    report(k["contended"] > 0, f"{tag}: contend_lock is contended", f"contended {k['contended']}")
    expect(tag, k["site"]["symbol"], "contend_worker", "contend_lock: first used in contend_worker")
    if k["contended"] > 0 and full:
        ev = k["contention"]
        report(sum(e["count"] for e in ev) >= 1 and k["wait"]["samples"] == k["contended"],
               f"{tag}: contend_lock: every contended wait timed (full)",
               f"samples {k['wait']['samples']}, contended {k['contended']}")
        if doc["unwinder"] == "libunwind":
            report(any(stack_has(doc, e["waiter_stack"], "contend_worker") for e in ev),
                   f"{tag}: contend_lock: waiter stacks show contend_worker", f"{ev[:2]}")
            report(any(e["holder_stack"] and stack_has(doc, e["holder_stack"], "contend_worker")
                       for e in ev),
                   f"{tag}: contend_lock: holder stacks show contend_worker", f"{ev[:2]}")


def test_counts(backend, tmp):
    for mode in ("full", "summary") if backend in ("glibc", "futex") else ("full",):
        tag = f"{backend}/{mode}"
        path = os.path.join(tmp, f"counts-{mode}-%p.json")
        folded = os.path.join(tmp, f"counts-{mode}-%p.folded")
        p = run("stats_counts", [], env(backend, STATS=mode, STATS_FILE=path, STATS_FOLDED=folded))
        if not report(p.returncode == 0 and "FAIL" not in p.stdout, f"{tag}: stats_counts runs",
                      p.stdout[-400:] + p.stderr[-400:]):
            continue
        report("lockswap" not in p.stdout, f"{tag}: nothing added to the program's stdout",
               p.stdout[-200:])
        report(re.search(r"lockswap stats \(exit\)", p.stderr) and "contend_lock" in p.stderr,
               f"{tag}: summary on stderr names contend_lock", p.stderr[-400:])
        files = glob.glob(path.replace("%p", "*"))
        if not report(len(files) == 1, f"{tag}: one JSON file (%p expanded)", f"{files}"):
            continue
        doc = load(files[0])
        if valid(doc, tag):
            check_counts(tag, doc, backend, mode == "full")
        with open(glob.glob(folded.replace("%p", "*"))[0]) as f:
            lines = f.read().splitlines()
        # Summary mode times 1 in N contended waits: contend_lock may have none.
        through = mode == "summary" or any("contend_worker" in l for l in lines)
        report(all(re.fullmatch(r"\S.*;\[(mutex|condvar) \d+ .*\] \d+", l) for l in lines) and through,
               f"{tag}: folded stacks: 'frame;...;[lock] value' lines"
               + ("" if mode == "summary" else " through contend_worker"), f"{lines[:3]}")


def test_fork(backend, tmp):
    path = os.path.join(tmp, "fork.json")
    p = run("stats_fork", [], env(backend, STATS="full", STATS_FILE=path, STATS_TOP=0))
    if not report(p.returncode == 0, f"{backend}: stats_fork runs", p.stdout[-300:] + p.stderr[-300:]):
        return
    report(p.stderr == "", f"{backend}: STATS_TOP=0 prints no summary", p.stderr[-200:])
    children = glob.glob(path + ".*")
    if not report(os.path.exists(path) and len(children) == 1,
                  f"{backend}: parent writes FILE, child FILE.<pid>", f"{os.listdir(tmp)}"):
        return
    parent, child = load(path), load(children[0])
    valid(child, f"{backend}/fork child")
    expect(backend, {n: l["acquisitions"] for n, l in by_name(parent).items()}, {"fork_lock": 1500},
           "fork: the parent's numbers")
    expect(backend, {n: l["acquisitions"] for n, l in by_name(child).items()},
           {"fork_lock": 300, "child_lock": 200}, "fork: the child's numbers are its own")
    expect(backend, child["pid"], int(children[0].rsplit(".", 1)[1]), "fork: the child's pid")


def test_signal(backend, tmp):
    path = os.path.join(tmp, "signal.json")
    e = env(backend, STATS="summary", STATS_FILE=path, STATS_TOP=0, STATS_SIGNAL="USR2")
    e["LD_PRELOAD"] = LIB
    proc = subprocess.Popen([os.path.join(PROG, "stats_signal"), "3000"], env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    proc.send_signal(signal.SIGUSR2)
    deadline = time.time() + 10
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.05)
    running = proc.poll() is None
    doc = load(path) if os.path.exists(path) else None
    out, err = proc.communicate(timeout=TIMEOUT)
    if not report(doc is not None and running, f"{backend}: signal dump written while running",
                  f"file {os.path.exists(path)}, running {running}, {err[-300:]}"):
        return
    valid(doc, f"{backend}/signal")
    during = by_name(doc).get("sig_lock", {}).get("acquisitions", 0)
    expect(backend, (doc["reason"], doc["dump"]), ("signal", 1), "signal dump: reason and number")
    report(during > 0, f"{backend}: signal dump counts the running program", f"{during}")
    final = load(path)
    after = by_name(final).get("sig_lock", {}).get("acquisitions", 0)
    report(proc.returncode == 0 and final["reason"] == "exit" and final["dump"] == 2 and after > during,
           f"{backend}: the program went on; the exit dump follows", f"rc {proc.returncode}, "
           f"{final['reason']} {final['dump']}, {during} -> {after}")


def test_unwind(backend, tmp):
    preloads = [LIB] + ([JEMALLOC] if JEMALLOC else [])
    path = os.path.join(tmp, "unwind.json")
    start = time.time()
    try:
        p = run("stats_unwind", [2000], env(backend, STATS="full", STATS_FILE=path, STATS_TOP=0),
                preload=":".join(preloads), timeout=90)
        ok = p.returncode == 0
        detail = p.stdout[-200:] + p.stderr[-300:]
    except subprocess.TimeoutExpired:
        ok, detail = False, "timed out (deadlock?)"
    with_what = " with jemalloc" if JEMALLOC else ""
    if report(ok, f"{backend}: full stacks under heavy contention{with_what} finish "
                  f"({time.time() - start:.1f} s)", detail):
        doc = load(path)
        valid(doc, f"{backend}/unwind")
        report(by_name(doc)["locks"]["acquisitions"] > 0, f"{backend}: unwind workload counted",
               "no acquisitions")


def other_programs():
    """The other preload test programs (their own ok/FAIL checks)."""
    names = []
    for path in sorted(glob.glob(os.path.join(PROG, "*"))):
        name = os.path.basename(path)
        if os.access(path, os.X_OK) and not name.startswith(("stats_", "lib")) and "." not in name:
            names.append(name)
    return names


def test_others(backend, tmp):
    """Every other preload program still passes with statistics on."""
    for name in other_programs():
        # Some of them assume a thread starts within a few ms; on a loaded
        # machine that can fail with or without statistics: a second try.
        for attempt in (1, 2):
            try:
                p = run(name, [], env(backend, STATS="full", STATS_TOP=0))
                ok = p.returncode == 0 and "FAIL" not in p.stdout
                detail = "\n".join(l for l in p.stdout.splitlines() if l.startswith("FAIL"))[:400] \
                    or f"rc {p.returncode} {p.stderr[-300:]}"
            except subprocess.TimeoutExpired:
                ok, detail = False, "timed out"
            if ok:
                break
        report(ok, f"{backend}: preload/{name} passes with LOCKSWAP_STATS=full"
               + (" (second try)" if attempt == 2 else ""), f"twice: {detail}")


def test_off(tmp):
    path = os.path.join(tmp, "off.json")
    p = run("stats_counts", [], env("futex", STATS_FILE=path))
    report(p.returncode == 0 and p.stderr == "" and not os.path.exists(path),
           "statistics off: no summary, no file", p.stderr[-300:])


def main():
    if not os.path.exists(LIB):
        print(f"FAIL - {LIB} not built")
        print("stats: 0 passed, 1 failed")
        return 1
    names = backends()
    with tempfile.TemporaryDirectory(prefix="lockswap-stats-") as tmp:
        test_off(tmp)
        for b in names:
            for test in (test_counts, test_fork, test_signal, test_unwind, test_others):
                d = tempfile.mkdtemp(dir=tmp)
                try:
                    test(b, d)
                except Exception as e:  # a crash in one case must not hide the others
                    report(False, f"{b}: {test.__name__}", repr(e))
    print(f"stats: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
