#!/usr/bin/python3
"""Test group "stats": LOCKSWAP_STATS under every backend the library
lists (glibc pass-through included).

Runs the workloads of tests/stats/progs/stats_*.c with statistics on and checks
the JSON they write (against docs/stats-schema.json and the exact numbers
each workload documents), the stderr summary, the folded stacks, fork,
the dump on a signal while running, and that heavy contention with stack
capture (and a preloaded jemalloc, when installed) finishes.  Rwlocks:
stats_rwlock.c's exact numbers under every rwlock backend, `lockswap
report` on its JSON, and the rwlock test programs with statistics on.
The summary when the program closes its stderr: stderr.py.
Statistics files named by a FIFO, a link or a device: targets.py.
Readable call sites (C++ demangled, file:line, stripped libraries): names.py;
C++ call sites past the standard library's lock wrappers: cxx_sites.py.

Prints `ok - ...` / `FAIL - ...` lines and ends with
`stats: N passed, M failed`; exits non-zero on any failure.
"""
import ctypes
import glob
import itertools
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
from checks import report, summary  # noqa: E402
from names import test_names  # noqa: E402
from cxx_sites import test_cxx_sites  # noqa: E402
from stderr import test_stderr  # noqa: E402
from targets import test_targets  # noqa: E402

B = os.environ.get("B", "build")
LIB = os.path.join(REPO, "liblockswap.so")
PROG = os.path.join(REPO, B, "stats")        # tests/stats/progs (mk/stats.mk)
PRELOAD_PROG = os.path.join(REPO, B, "preload")  # tests/preload's programs
RWPROG = os.path.join(REPO, B, "rwlock")
LOCKSWAP = os.path.join(REPO, "scripts", "lockswap")
SCHEMA = json.load(open(os.path.join(REPO, "docs", "stats-schema.json")))
JEMALLOC = next(iter(glob.glob("/usr/lib/*/libjemalloc.so.2")), None)
TIMEOUT = 120



def describe():
    """The library's own description of itself (lockswap_describe JSON)."""
    lib = ctypes.CDLL(LIB)
    lib.lockswap_describe.restype = ctypes.c_size_t
    lib.lockswap_describe.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    need = lib.lockswap_describe(None, 0)
    buf = ctypes.create_string_buffer(need + 1)
    lib.lockswap_describe(buf, need + 1)
    return json.loads(buf.value.decode())


def backends():
    names = [b["name"] for b in describe()["backends"]]
    # As tests/lib.sh's list_backends: each wrapper over futex, tts and mcs
    # only, unless LSTEST_ALL_INNERS is set (the unit tests cover every inner).
    if os.environ.get("LSTEST_ALL_INNERS"):
        return names
    return [n for n in names if ":" not in n or n.split(":", 1)[1] in ("futex", "tts", "mcs")]


def env(backend, **opts):
    e = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    e.pop("LD_PRELOAD", None)
    e["LOCKSWAP_BACKEND"] = backend
    for k, v in opts.items():
        e[f"LOCKSWAP_{k}"] = str(v)
    return e


def run(prog, args, environment, preload=LIB, timeout=TIMEOUT):
    """The program under LD_PRELOAD (set for it alone, not for a wrapper):
    PROG's program of that name, or the program at that absolute path."""
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


def fairness_expected(rows):
    """The fairness docs/stats.md defines, from per-thread rows (of one mutex
    or rwlock mode): over the threads marked competing, or over every thread
    that acquired it when none is.  (over, threads, min, max, jain)."""
    took = [r for r in rows if r["acquisitions"]]
    competing = [r for r in took if r["competing"]]
    over, chosen = ("competing", competing) if competing else ("all", took)
    xs = [r["acquisitions"] for r in chosen]
    if not xs:
        return over, 0, 0, 0, 0
    return over, len(xs), min(xs) / sum(xs), max(xs) / sum(xs), jain(xs)


def fairness_matches(f, rows):
    over, n, lo, hi, j = fairness_expected(rows)
    return (f.get("over") == over and f["threads"] == n and abs(f["min_share"] - lo) < 1e-5
            and abs(f["max_share"] - hi) < 1e-5 and abs(f["jain"] - j) < 1e-5)


def check_counts(tag, doc, backend, full):
    """The numbers tests/stats/progs/stats_counts.c documents."""
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
    # Which of the four threads competed depends on the schedule (one may
    # run alone); over any of them the shares are equal.
    report(fairness_matches(f, c["per_thread"]) and abs(f["jain"] - 1) < 1e-6
           and abs(f["min_share"] - 1 / f["threads"]) < 1e-6,
           f"{tag}: count_lock: fairness over the competing threads, equal shares, Jain 1",
           f"{f}, per thread {c['per_thread']}")
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
        if report(doc["unwinder"] == "libgcc", f"{tag}: stacks by libgcc's unwinder",
                  doc["unwinder"]):
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


def test_counting(backend, tmp):
    """The inline counting step's cases (tests/stats/progs/stats_counting.c), in
    summary mode, where it runs: exact counts across the single-threaded
    table's hand-over, a copied mutex, owner changes."""
    tag = f"{backend}/summary"
    path = os.path.join(tmp, "counting.json")
    p = run("stats_counting", [], env(backend, STATS="summary", STATS_FILE=path, STATS_TOP=0))
    if not report(p.returncode == 0 and "FAIL" not in p.stdout, f"{tag}: stats_counting runs",
                  p.stdout[-400:] + p.stderr[-400:]):
        return
    doc = load(path)
    if not valid(doc, f"{tag} counting"):
        return
    locks = by_name(doc)
    if not report({"hand_lock", "copy_src", "copy_dst", "ping_lock"} <= set(locks),
                  f"{tag}: counting workload objects reported by name", f"{sorted(locks)}"):
        return
    h = locks["hand_lock"]
    expect(tag, (h["acquisitions"], h["owner_changes"], h["contended"]), (3000, 1, 0),
           "hand_lock: 3000 acquisitions across the hand-over, 1 owner change")
    expect(tag, sorted(t["acquisitions"] for t in h["per_thread"]), [1000, 2000],
           "hand_lock: 2000 by main, 1000 by the worker")
    expect(tag, (locks["copy_src"]["acquisitions"], locks["copy_dst"]["acquisitions"]), (10, 5),
           "a copied mutex is counted apart from its original")
    g = locks["ping_lock"]
    expect(tag, (g["acquisitions"], g["owner_changes"], g["contended"]), (200, 199, 0),
           "ping_lock: 200 acquisitions taking turns, 199 owner changes")
    m = re.search(r"crowd owner changes (\d+)", p.stdout)
    c = locks.get("crowd_lock")
    if report(m is not None and c is not None, f"{tag}: crowd_lock reported, its changes printed",
              p.stdout[-200:]):
        expect(tag, (c["acquisitions"], c["owner_changes"]), (12000, int(m.group(1))),
               f"crowd_lock: 12000 acquisitions ({c['contended']} contended), owner changes as the "
               "program saw them")
    m = re.search(r"relay acquisitions (\d+) owner changes (\d+)", p.stdout)
    c = locks.get("relay_lock")
    if report(m is not None and c is not None, f"{tag}: relay_lock reported, its counts printed",
              p.stdout[-200:]):
        expect(tag, (c["acquisitions"], c["owner_changes"]), (int(m.group(1)), int(m.group(2))),
               f"relay_lock: every return to the mutex, lock or condvar wait ({c['contended']} "
               "contended), and its owner changes as the program saw them")


def test_hold_samples(backend, tmp):
    """Summary mode times about one hold in 32 x STATS_SAMPLE (512 at the
    default), each starting before its try: 100,000 uncontended pairs
    (tests/stats/progs/stats_uncont.c) get about 195, drawn at random periods
    of mean 512 (so far outside [48, 781] only if holds are timed at
    another rate, or not at all), and the acquisitions stay exact.  Under
    a lockswap backend these go through the counting table's short path
    for a due sample (interpose/counting/mutex_counted.c ls_mutex_counted_declined)."""
    tag = f"{backend}/summary"
    path = os.path.join(tmp, "uncont.json")
    p = run("stats_uncont", ["100000"], env(backend, STATS="summary", STATS_FILE=path,
                                              STATS_TOP=0))
    if not report(p.returncode == 0, f"{tag}: stats_uncont runs", p.stderr[-400:]):
        return
    doc = load(path)
    if not valid(doc, f"{tag} uncont"):
        return
    m = by_name(doc).get("m")
    if not report(m is not None, f"{tag}: stats_uncont's mutex reported", f"{sorted(by_name(doc))}"):
        return
    report(m["acquisitions"] == 100000 and 48 <= m["hold"]["samples"] <= 781,
           f"{tag}: 100000 pairs counted exactly, about one hold in 512 timed",
           f"acquisitions {m['acquisitions']}, hold samples {m['hold']['samples']}")


def test_unlock_word(backend, tmp):
    """The mutex's unlock word (tests/stats/progs/stats_unlockword.c): a hold
    sample and a waiter's stack request mark it, the observed unlock clears
    it and answers the request with the holder's stack; under glibc's
    locks nothing writes it."""
    tag = f"{backend}/summary"
    path = os.path.join(tmp, "unlockword.json")
    p = run("stats_unlockword", ["zero" if backend == "glibc" else "bits"],
            env(backend, STATS="summary", STATS_SAMPLE=1, STATS_FILE=path, STATS_TOP=0))
    if not report(p.returncode == 0 and "FAIL" not in p.stdout, f"{tag}: stats_unlockword runs",
                  p.stdout[-400:] + p.stderr[-400:]):
        return
    doc = load(path)
    if backend == "glibc" or doc["unwinder"] != "libgcc":
        return
    ev = by_name(doc)["word_lock"]["contention"]
    report(any(e["holder_stack"] and stack_has(doc, e["holder_stack"], "holder_section") for e in ev),
           f"{tag}: word_lock: the first round's request was answered with the holder's stack",
           f"{ev[:2]}")


def test_pending_wait(backend, tmp):
    """A sampled contended wait that ends in an acquisition is recorded
    after the thread releases the lock (stats/record.c wait_defer), not
    holding it, and is never lost (tests/stats/progs/stats_pending.c): at a dump
    taken while its waiter still holds the lock the wait is counted but has
    no sample yet; the exit dump has it; a waiter that exits holding its
    lock, and one that waits on a condvar with it, have theirs recorded by
    the exit and by the condvar wait.  Every contended wait is timed
    (STATS_SAMPLE=1).  A waiter that the test let in before it reached the
    lock finds it free (contended 0): then the run is tried again, up to
    three times."""
    tag = f"{backend}/summary"
    for attempt in range(3):
        path = os.path.join(tmp, f"pending-{attempt}.json")
        p = run("stats_pending", [path], env(backend, STATS="summary", STATS_SAMPLE=1,
                                             STATS_FILE=path, STATS_TOP=0, STATS_SIGNAL="USR2"))
        if not report(p.returncode == 0 and "FAIL" not in p.stdout, f"{tag}: stats_pending runs",
                      p.stdout[-400:] + p.stderr[-400:]):
            return
        during, final = by_name(load(path + ".during")), by_name(load(path))
        names = ("pend_lock", "exit_lock", "cv_lock")
        if all(final[n]["contended"] == 1 for n in names):
            break
    else:
        report(True, f"{tag}: pending wait skipped: a waiter never blocked in three runs")
        return
    samples = lambda doc: {n: doc[n]["wait"]["samples"] for n in names}
    expect(tag, samples(during), {"pend_lock": 0, "exit_lock": 1, "cv_lock": 1},
           "mid-run dump: the wait of a holder not yet released has no sample; one whose "
           "thread exited holding, and one whose holder waited on a condvar, have theirs")
    expect(tag, {n: during[n]["contended"] for n in names}, {n: 1 for n in names},
           "mid-run dump: every contended wait is counted")
    expect(tag, samples(final), {n: 1 for n in names},
           "exit dump: every sampled wait recorded once")


def test_stack_gap(backend, tmp):
    """Summary mode takes at most one waiter stack per thread every 20 ms
    (stats/data.h LS_STATS_STACK_GAP_NS) when STATS_SAMPLE > 1, whatever the
    contention rate: four threads contending for 300 ms, nearly every lock
    call waiting (tests/stats/progs/stats_stackgap.c), at STATS_SAMPLE=2 time
    about one contended wait in two, and at one in four of those would take
    contended / 8 stacks; the contention events that carry a waiter stack
    (each counts the timed waits it stands for) must stay within four
    threads x (run time / 20 ms + 1), and some must show gap_worker.  The
    bound means something only where contended / 8 is above it: a run that
    waited less (a loaded machine: the rate of waits falls with the CPU the
    threads get) is run again, up to three times, and then said to be
    skipped.  On an idle 2-CPU machine every backend but the slices waits
    2,000-4,000 times in 300 ms (the bound is 64); the slices' owner keeps
    the lock for its whole slice, so there the others wait about a hundred
    times, and only the bound is checked."""
    tag = f"{backend}/summary"
    for attempt in range(3):
        path = os.path.join(tmp, f"stackgap-{attempt}.json")
        p = run("stats_stackgap", ["300"], env(backend, STATS="summary", STATS_SAMPLE=2,
                                                STATS_FILE=path, STATS_TOP=0))
        if not report(p.returncode == 0 and "FAIL" not in p.stdout,
                      f"{tag}: stats_stackgap runs", p.stdout[-400:] + p.stderr[-400:]):
            return
        doc = load(path)
        if not valid(doc, f"{tag} stackgap") or doc["unwinder"] != "libgcc":
            return
        k = by_name(doc)["gap_lock"]
        bound = 4 * (doc["elapsed_ns"] // 20_000_000 + 1)
        stacked = sum(e["count"] for e in k["contention"] if e["waiter_stack"])
        if not report(1 <= stacked <= bound,
                      f"{tag}: gap_lock: at most one waiter stack per thread every 20 ms, and some",
                      f"{stacked} waits with a stack, bound {bound}, contended {k['contended']}"):
            return
        meaningful = k["contended"] // 8 > bound
        if meaningful or backend.startswith("slice:"):
            break
    if not meaningful and not backend.startswith("slice:"):
        # Not a failure of the library: a machine so loaded that the
        # threads waited too rarely for the bound to be tested.
        print(f"# skipped - {tag}: gap_lock: the bound not tested, too few waits in "
              f"{attempt + 1} runs (contended {k['contended']}, bound {bound})")
    report(any(e["waiter_stack"] and stack_has(doc, e["waiter_stack"], "gap_worker")
               for e in k["contention"]),
           f"{tag}: gap_lock: waiter stacks show gap_worker", f"{k['contention'][:2]}")


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
    proc = subprocess.Popen([os.path.join(PROG, "stats_signal"), "3000", "stdin"], env=e,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(0.5)
    proc.send_signal(signal.SIGUSR2)
    deadline = time.time() + 10
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.05)
    running = proc.poll() is None
    doc = load(path) if os.path.exists(path) else None
    # The dump is read: closing stdin ends the program (it would stop at 3 s).
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
    """The preload group's test programs (their own ok/FAIL checks): one
    per source of tests/preload, and dlprog (tests/preload/dl)."""
    sources = glob.glob(os.path.join(REPO, "tests", "preload", "*.c")) + \
        glob.glob(os.path.join(REPO, "tests", "preload", "*.cc"))
    names = sorted({os.path.splitext(os.path.basename(s))[0] for s in sources} | {"dlprog"})
    return [os.path.join(PRELOAD_PROG, n) for n in names]


# Arguments for test_others: forkt's forks, 30 of its default 100 (the
# preload group runs the 100 under every backend; here the statistics'
# fork handlers need the fork, not the count).
OTHER_ARGS = {"forkt": ["30"]}


def test_others(backend, tmp):
    """Every other preload program still passes with statistics on.  A
    wrapper over tts or mcs runs them as over futex: the statistics' hooks
    are the shim's, the same whatever lock the wrapper holds inside, and
    the preload group runs these programs under those backends too."""
    if ":" in backend and not backend.endswith(":futex"):
        return
    for path in other_programs():
        name = os.path.basename(path)
        # Some of them assume a thread starts within a few ms; on a loaded
        # machine that can fail with or without statistics: a second try.
        for attempt in (1, 2):
            try:
                p = run(path, OTHER_ARGS.get(name, []), env(backend, STATS="full", STATS_TOP=0))
                ok = p.returncode == 0 and "FAIL" not in p.stdout
                detail = "\n".join(l for l in p.stdout.splitlines() if l.startswith("FAIL"))[:400] \
                    or f"rc {p.returncode} {p.stderr[-300:]}"
            except subprocess.TimeoutExpired:
                ok, detail = False, "timed out"
            if ok:
                break
        report(ok, f"{backend}: preload/{name} passes with LOCKSWAP_STATS=full"
               + (" (second try)" if attempt == 2 else ""), f"twice: {detail}")


# ---- rwlocks (tests/stats/progs/stats_rwlock.c; keep in step with its header) ----

COUNT_THREADS, COUNT_READS, COUNT_WRITES = 4, 1000, 100
TRY_READ_FAILS, TRY_WRITE_FAILS, TRY_READS, TRY_WRITES = 5, 3, 10, 4
CONTEND_READERS, CONTEND_WRITERS = 3, 2
SHARED_READS, SHARED_WRITES = 6, 4


def rwlock_expected():
    """(acquisitions, trylock failures, contended, timeouts) per lock and mode;
    None: not known (count_rw's threads run freely: some of their calls
    may find the lock taken)."""
    weights = range(1, COUNT_THREADS + 1)
    return {
        "count_rw": {"read": (COUNT_READS * sum(weights), 0, None, 0),
                     "write": (COUNT_WRITES * sum(weights), 0, None, 0)},
        "try_rw": {"read": (TRY_READS, TRY_READ_FAILS, 0, 0),
                   "write": (TRY_WRITES + 1, TRY_WRITE_FAILS, 0, 0)},
        "timed_rw": {"read": (2 + 2, 0, 0, 3 + 2), "write": (1 + 1 + 1, 0, 0, 2 + 1)},
        "contend_rw": {"read": (2 * CONTEND_READERS + 1, 0, CONTEND_READERS, 0),
                       "write": (1 + CONTEND_WRITERS, 0, CONTEND_WRITERS, 0)},
        "shared_rw": {"read": (SHARED_READS, 0, 0, 0), "write": (SHARED_WRITES, 0, 0, 0)},
    }


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def check_rwlock(tag, doc, rwlock, full):
    locks = {l["name"]: l for l in doc["locks"] if l["type"] == "rwlock" and l["name"]}
    want = rwlock_expected()
    if not report(set(want) <= set(locks), f"{tag}: every rwlock of the workload is reported",
                  f"names {sorted(locks)}"):
        return
    expect(tag, doc["rwlock_backend"], rwlock, "rwlock_backend names LOCKSWAP_RWLOCK")
    expect(tag, {n: locks[n]["served_by"] for n in want},
           {n: "glibc" if rwlock == "glibc" or n == "shared_rw" else rwlock for n in want},
           "served_by: the rwlock backend; glibc for the process-shared one")
    expect(tag, locks["shared_rw"]["flags"], ["pshared"], "shared_rw: flags pshared")
    for name, modes in want.items():
        l = locks[name]
        for mode, (acq, tryfail, cont, timeouts) in modes.items():
            m = l[mode]
            if cont is None:
                cont = m["contended"]
            expect(tag, (m["acquisitions"], m["trylock_failures"], m["contended"], m["timeouts"]),
                   (acq, tryfail, cont, timeouts),
                   f"{name}: {mode} acquisitions, try failures, contended, timeouts")
            per = [p[mode]["acquisitions"] for p in l["per_thread"] if p[mode]["acquisitions"]]
            expect(tag, (sum(per), sum(p[mode]["contended"] for p in l["per_thread"]),
                         sum(p[mode]["trylock_failures"] for p in l["per_thread"])),
                   (acq, cont, tryfail), f"{name}: {mode}: the threads' counts add up")
            f = m["fairness"]
            rows = [p[mode] for p in l["per_thread"]]
            report(fairness_matches(f, rows),
                   f"{tag}: {name}: {mode} min/max share and Jain's index over the competing "
                   f"threads (all when none competed)", f"{f}, per thread {rows}")
            if full:
                expect(tag, (m["wait"]["samples"], m["hold"]["samples"]), (cont + timeouts, acq),
                       f"{name}: {mode}: every wait and hold timed (full)")
    c = locks["count_rw"]
    weights = list(range(1, COUNT_THREADS + 1))
    for mode, n in (("read", COUNT_READS), ("write", COUNT_WRITES)):
        expect(tag, sorted(p[mode]["acquisitions"] for p in c["per_thread"]),
               [w * n for w in weights], f"count_rw: {mode}s per thread {n} x 1..{COUNT_THREADS}")
        rows = [p[mode] for p in c["per_thread"]]
        report(fairness_matches(c[mode]["fairness"], rows) and
               (c[mode]["fairness"]["over"] == "competing" or
                abs(c[mode]["fairness"]["jain"] - jain(weights)) < 1e-5),
               f"{tag}: count_rw: {mode} Jain's index of shares 1:2:3:4 (of the competing ones)",
               f"{c[mode]['fairness']}, per thread {rows}")
    expect(tag, c["site"]["symbol"], "count_worker", "count_rw: first used in count_worker")
    k = locks["contend_rw"]
    expect(tag, k["site"]["symbol"], "contend_reader", "contend_rw: first used in contend_reader")
    if full:
        sites = {(e["mode"], e["waiter_site"]["symbol"]) for e in k["contention"]}
        counts = {m: sum(e["count"] for e in k["contention"] if e["mode"] == m) for m in ("read", "write")}
        expect(tag, (sites, counts),
               ({("read", "contend_reader"), ("write", "contend_writer")},
                {"read": CONTEND_READERS, "write": CONTEND_WRITERS}),
               "contend_rw: waits attributed to contend_reader (reads) and contend_writer (writes)")


def run_report(args):
    return subprocess.run(["/usr/bin/python3", LOCKSWAP, "report", *args], capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_rwlock(rwlock, tmp):
    # summary under every backend: futex's counting table inlines its
    # verbs, bravo's calls them through the table, glibc's keeps the gate
    # closed (interpose/counting/rwlock_counting.c).
    for mode in ("full", "summary"):
        tag = f"rwlock {rwlock}/{mode}"
        path = os.path.join(tmp, f"rw-{mode}.json")
        folded = os.path.join(tmp, f"rw-{mode}.folded")
        p = run("stats_rwlock", [], dict(env("futex", STATS=mode, STATS_FILE=path, STATS_FOLDED=folded),
                                         LOCKSWAP_RWLOCK=rwlock))
        if not report(p.returncode == 0 and "FAIL" not in p.stdout, f"{tag}: stats_rwlock runs",
                      p.stdout[-400:] + p.stderr[-400:]):
            continue
        report(f"backend futex, rwlock {rwlock}, " in p.stderr and "top 5 rwlocks by total wait" in p.stderr
               and re.search(r"\n +\d+ +read +\d+ .* contend_rw, contend_reader\n", p.stderr)
               and re.search(r"\n +write +\d+ ", p.stderr),
               f"{tag}: summary on stderr: rwlock table, a read and a write row", p.stderr[-600:])
        doc = load(path)
        if valid(doc, tag):
            check_rwlock(tag, doc, rwlock, mode == "full")
        with open(folded) as f:
            lines = f.read().splitlines()
        rw = [l for l in lines if "[rwlock " in l]
        report(all(re.fullmatch(r"\S.*;\[(mutex|condvar|rwlock) \d+ .*\] \d+", l) for l in lines)
               and (mode == "summary" or any("contend_writer;[rwlock" in l for l in rw)),
               f"{tag}: folded stacks name rwlocks" + ("" if mode == "summary" else " (contend_writer)"),
               f"{lines[:3]}")
        if mode == "full":
            outs = [run_report(args) for args in
                    ([path], [path, "--by", "site"], [path, "--by", "thread"],
                     [path, path], [path, "--folded", os.path.join(tmp, "report.folded")])]
            report(all(o.returncode == 0 for o in outs) and "contend_reader" in outs[1].stdout,
                   f"{tag}: lockswap report reads it (--by lock/site/thread, A/B, --folded)",
                   "; ".join(f"rc {o.returncode}: {o.stderr[-200:]}" for o in outs if o.returncode))


def test_rwlock_programs(rwlock):
    """tests/rwlock's programs (every verb and error code) with statistics on:
    full (every call through the slow path's protocol) and summary (reads
    counted by the counting table)."""
    for name, mode in itertools.product(("errors", "forkps", "shared_mutex"), ("full", "summary")):
        prog = os.path.join(RWPROG, name)
        e = dict(env("futex", STATS=mode, STATS_TOP=0), LOCKSWAP_RWLOCK=rwlock, LD_PRELOAD=LIB)
        try:
            p = subprocess.run([prog], env=e, capture_output=True, text=True, timeout=TIMEOUT,
                               stdin=subprocess.DEVNULL)
            ok = p.returncode == 0 and "FAIL" not in p.stdout and f"# rwlock {rwlock}" in p.stdout
            detail = "\n".join(l for l in p.stdout.splitlines() if l.startswith("FAIL"))[:400] \
                or f"rc {p.returncode} {p.stderr[-300:]}"
        except (subprocess.TimeoutExpired, OSError) as x:
            ok, detail = False, repr(x)
        report(ok, f"rwlock {rwlock}: rwlock/{name} passes with LOCKSWAP_STATS={mode}", detail)


def test_fair(backend, tmp):
    """Fairness over the competing threads (tests/stats/progs/stats_fair.c): main's
    setup acquisitions do not count, a starved worker does."""
    path = os.path.join(tmp, "fair.json")
    p = run("stats_fair", [], env(backend, STATS="summary", STATS_TOP=0, STATS_FILE=path))
    if not report(p.returncode == 0 and "FAIL" not in p.stdout, f"{backend}: stats_fair runs",
                  p.stdout[-300:] + p.stderr[-300:]):
        return
    doc = load(path)
    valid(doc, f"{backend}: stats_fair")
    locks = by_name(doc)
    if not report({"fair_equal", "fair_starved"} <= set(locks), f"{backend}: stats_fair locks named",
                  f"names {sorted(locks)}"):
        return
    eq, st = locks["fair_equal"]["fairness"], locks["fair_starved"]["fairness"]
    tag = f"{backend}: fairness"
    expect(tag, locks["fair_equal"]["acquisitions"], 3004, "fair_equal: 3 setup + 1 hold + 3 x 1000")
    expect(tag, (eq["over"], eq["threads"]), ("competing", 3),
           "fair_equal: over the 3 workers that found it held, not main")
    expect(tag, round(eq["min_share"], 6), round(1 / 3, 6), "fair_equal: min share 1/3")
    expect(tag, round(eq["jain"], 6), 1.0, "fair_equal: Jain 1")
    expect(tag, (st["over"], st["threads"]), ("competing", 4), "fair_starved: the starved worker competes")
    rows = {n: sorted((p["acquisitions"], p["competing"]) for p in locks[n]["per_thread"])
            for n in ("fair_equal", "fair_starved")}
    expect(tag, rows, {"fair_equal": [(4, False)] + [(1000, True)] * 3,
                       "fair_starved": [(4, False), (10, True)] + [(1000, True)] * 3},
           "per_thread: main (3 setup pairs + 1 hold) not competing, every worker competing")
    expect(tag, round(st["min_share"], 6), round(10 / 3010, 6), "fair_starved: min share 10/3010")
    expect(tag, round(st["jain"], 6), round(3010 ** 2 / (4 * (3 * 1000 ** 2 + 10 ** 2)), 6),
           "fair_starved: Jain over the 4 workers")


def test_off(tmp):
    path = os.path.join(tmp, "off.json")
    p = run("stats_counts", [], env("futex", STATS_FILE=path))
    report(p.returncode == 0 and p.stderr == "" and not os.path.exists(path),
           "statistics off: no summary, no file", p.stderr[-300:])


def option_default(name):
    """An option's default, as the library describes it."""
    return next(o["default"] for o in describe()["options"] if o["name"] == name)


def test_alone(tmp):
    """Statistics alone (no backend, rwlock or arms chosen) observe the
    library's default backends, which beat observing glibc's own locks in
    every row measured (docs/results.md, "The default"), and still count
    contention; choosing one lock leaves the other at its default."""
    plain = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    plain.pop("LD_PRELOAD", None)
    mutex = option_default("LOCKSWAP_BACKEND")
    rwlock = option_default("LOCKSWAP_RWLOCK")
    cases = (("STATS alone", dict(LOCKSWAP_STATS="summary"), mutex, rwlock),
             ("STATS_PROM alone", dict(LOCKSWAP_STATS_PROM=os.path.join(tmp, "p.prom")), mutex, rwlock),
             ("STATS with RWLOCK=bravo", dict(LOCKSWAP_STATS="summary", LOCKSWAP_RWLOCK="bravo"),
              mutex, "bravo"),
             ("STATS with BACKEND=tts", dict(LOCKSWAP_STATS="summary", LOCKSWAP_BACKEND="tts"),
              "tts", rwlock))
    for i, (tag, opts, want_mutex, want_rwlock) in enumerate(cases):
        path = os.path.join(tmp, f"alone-{i}.json")
        p = run("stats_counts", [], dict(plain, LOCKSWAP_STATS_FILE=path, **opts))
        if not report(p.returncode == 0 and os.path.exists(path), f"{tag}: runs, writes its file",
                      p.stdout[-300:] + p.stderr[-300:]):
            continue
        doc = load(path)
        got = (doc["backend"], doc["rwlock_backend"])
        report(got == (want_mutex, want_rwlock),
               f"{tag}: mutexes served by {want_mutex}, rwlocks by {want_rwlock}", got)
        lock = next((l for l in doc["locks"] if l.get("name") == "contend_lock"), None)
        report(lock is not None and lock["acquisitions"] > 0 and lock["contended"] > 0,
               f"{tag}: contention on contend_lock counted",
               lock and {k: lock[k] for k in ("acquisitions", "contended")})


def test_fold(tmp):
    """Destroyed condvars first used at one site are one JSON record whose
    counts add up; a lone destroyed one and a live one keep their own."""
    path = os.path.join(tmp, "churn.json")
    n = 2000
    p = run("stats_cv_churn", [n], env("futex", STATS="summary", STATS_TOP=0, STATS_FILE=path))
    report(p.returncode == 0, "stats_cv_churn runs", p.stdout[-300:] + p.stderr[-300:])
    if p.returncode != 0:
        return
    doc = load(path)
    valid(doc, "churn")
    conds = {}
    for l in doc["locks"]:
        if l["type"] == "condvar":
            conds.setdefault(l["site"]["symbol"], []).append(l)
    # `posted` (static, never destroyed) is first used in handshake() or in
    # worker(), whichever thread gets there first
    shake = [l for l in conds.get("handshake", []) if l["destroyed"]]
    report(len(shake) == 1 and shake[0].get("objects") == n and shake[0]["destroyed"],
           f"{n} destroyed condvars of one site are one record with objects={n}",
           [(l.get("objects"), l["destroyed"]) for l in shake])
    if shake:
        c = shake[0]
        threads = {k: sum(t[k] for t in c["per_thread"]) for k in ("signals", "waits")}
        report(c["signals"] == n and threads["signals"] == n and c["waits"] == threads["waits"]
               and sum(c["wait"]["hist"]) == c["wait"]["samples"] > 0,
               "its signals, per-thread counts and wait histogram add up",
               f"signals {c['signals']}, per thread {threads}, samples {c['wait']['samples']}")
    lone = conds.get("lone", [])
    report(len(lone) == 1 and "objects" not in lone[0] and lone[0]["signals"] == 1,
           "a lone destroyed condvar keeps its own record", lone)
    live = [l for ls in conds.values() for l in ls if not l["destroyed"]]
    report(len(live) == 1 and "objects" not in live[0] and live[0]["signals"] == n,
           "a live condvar keeps its own record", [l.get("objects") for l in live])
    report(os.path.getsize(path) < 64 * 1024, f"the file stays small ({os.path.getsize(path)} "
           f"bytes for {n} condvars)")


def main():
    if not os.path.exists(LIB):
        print(f"FAIL - {LIB} not built")
        print("stats: 0 passed, 1 failed")
        return 1
    names = backends()
    with tempfile.TemporaryDirectory(prefix="lockswap-stats-") as tmp:
        test_off(tmp)
        test_alone(tempfile.mkdtemp(dir=tmp))
        test_fold(tempfile.mkdtemp(dir=tmp))
        try:
            test_stderr(run, env, LIB, tempfile.mkdtemp(dir=tmp))
        except Exception as e:  # a crash in one case must not hide the others
            report(False, "stderr", repr(e))
        try:
            test_targets(run, env, valid, tempfile.mkdtemp(dir=tmp))
        except Exception as e:  # a crash in one case must not hide the others
            report(False, "targets", repr(e))
        try:
            test_names(run, env, valid, run_report, REPO, PROG, tempfile.mkdtemp(dir=tmp))
        except Exception as e:  # a crash in one case must not hide the others
            report(False, "names", repr(e))
        try:
            test_cxx_sites(run, env, run_report, REPO, tempfile.mkdtemp(dir=tmp))
        except Exception as e:  # a crash in one case must not hide the others
            report(False, "cxx sites", repr(e))
        for rw in ("futex", "bravo", "slice", "glibc"):
            try:
                test_rwlock(rw, tempfile.mkdtemp(dir=tmp))
                test_rwlock_programs(rw)
            except Exception as e:  # a crash in one case must not hide the others
                report(False, f"rwlock {rw}", repr(e))
        for b in names:
            for test in (test_counts, test_counting, test_hold_samples, test_unlock_word,
                         test_pending_wait, test_stack_gap, test_fork, test_signal, test_unwind,
                         test_others, test_fair):
                d = tempfile.mkdtemp(dir=tmp)
                try:
                    test(b, d)
                except Exception as e:  # a crash in one case must not hide the others
                    report(False, f"{b}: {test.__name__}", repr(e))
    return summary("stats")


if __name__ == "__main__":
    sys.exit(main())
