#!/usr/bin/python3
"""Test group "arms": LOCKSWAP_ARMS / LOCKSWAP_ARM_KEY and the Prometheus
export (LOCKSWAP_STATS_PROM); see docs/arms.md.

Arm choice through the library's own lockswap_arm_choose: the documented
hash re-implemented here must agree on every key, the weights are
followed over 20000 fixed keys (a chi-square bound, no randomness), bad
lists are rejected with one line.  A process reports the arm its key
chooses (VERBOSE, JSON, summary).  The export is read with
prometheus_client's own parser, while it is being rewritten: every read
parses, buckets are cumulative, counters never decrease.  Fork: a child
exports under its own pid with %p, not at all without.

Prints `ok - ...` / `FAIL - ...` lines and ends with
`arms: N passed, M failed`; exits non-zero on any failure.
"""
import ctypes
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

from prometheus_client.parser import text_string_to_metric_families

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "stats"))
import schema_lite  # noqa: E402
from checks import report, summary  # noqa: E402

B = os.environ.get("B", "build")
LIB = os.path.join(REPO, "liblockswap.so")
PROG = os.path.join(REPO, B, "stats")  # tests/stats/progs (mk/stats.mk)
SCHEMA = json.load(open(os.path.join(REPO, "docs", "stats-schema.json")))
TIMEOUT = 60



lib = ctypes.CDLL(LIB)
lib.lockswap_arm_choose.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.c_size_t]
lib.lockswap_check_option.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_size_t]


def choose(arms, key):
    buf = ctypes.create_string_buffer(1024)
    i = lib.lockswap_arm_choose(arms.encode(), key.encode(), buf, len(buf))
    return i, buf.value.decode()


def check_option(var, value):
    buf = ctypes.create_string_buffer(1024)
    rc = lib.lockswap_check_option(var.encode(), value.encode(), buf, len(buf))
    return rc, buf.value.decode()


def clean_env(**opts):
    e = {k: v for k, v in os.environ.items() if not k.startswith("LOCKSWAP_")}
    e.pop("LD_PRELOAD", None)
    for k, v in opts.items():
        own = k.startswith("LS_") or k == "LD_PRELOAD"  # not a lockswap option
        e[k if own else "LOCKSWAP_" + k] = str(v)
    return e


def run(args, environment):
    environment = dict(environment, LD_PRELOAD=LIB)
    return subprocess.run(args, env=environment, capture_output=True, text=True,
                          timeout=TIMEOUT)


# ---- the choice ----

M64 = (1 << 64) - 1


def documented_hash(key):
    """docs/arms.md: FNV-1a 64, then splitmix64's finaliser."""
    h = 0xcbf29ce484222325
    for byte in key.encode():
        h = ((h ^ byte) * 0x100000001b3) & M64
    h ^= h >> 30
    h = (h * 0xbf58476d1ce4e5b9) & M64
    h ^= h >> 27
    h = (h * 0x94d049bb133111eb) & M64
    h ^= h >> 31
    return h


def documented_pick(weights, key):
    point = (documented_hash(key) * sum(weights)) >> 64
    below = 0
    for i, w in enumerate(weights):
        below += w
        if point < below:
            return i
    return len(weights) - 1


KEYS = [f"host-{i}" for i in range(20000)]


def test_choice():
    weights = [1, 2, 3, 10]
    arms = "; ".join(f"name=a{i} futex weight={w}" for i, w in enumerate(weights))
    got = [choose(arms, k) for k in KEYS]
    again = [choose(arms, k) for k in KEYS]
    report(got == again, "the same key always gets the same arm (20000 keys, twice)")
    bad = [k for k, (i, name) in zip(KEYS, got) if i != documented_pick(weights, k)
           or name != f"a{i}"]
    report(not bad, "the choice is the documented FNV-1a 64 + splitmix64 mapping onto "
           "the cumulative weights", f"{len(bad)} keys differ, e.g. {bad[:3]}")
    counts = [0] * len(weights)
    for i, _ in got:
        counts[i] += 1
    n = len(KEYS)

    def chi2(ws):
        return sum((c - n * w / sum(ws)) ** 2 / (n * w / sum(ws)) for c, w in zip(counts, ws))
    # 16.27: the chi-square quantile for 3 degrees of freedom at p = 0.001.
    # The keys are fixed, so the statistic is a fixed number: no flakiness.
    report(chi2(weights) < 16.27, f"arms follow weights 1:2:3:10 over 20000 keys "
           f"(chi-square {chi2(weights):.2f} < 16.27)", f"counts {counts}")
    report(chi2([1, 1, 1, 1]) > 16.27, "control: the same counts are rejected as equal "
           f"weights (chi-square {chi2([1, 1, 1, 1]):.0f})", f"counts {counts}")
    # Which arm a key gets depends on the index only: collect each index's name.
    dup = "futex; futex; name=futex glibc; futex"
    seen = dict(choose(dup, str(k)) for k in range(200))
    report(seen == {0: "futex-2", 1: "futex-3", 2: "futex", 3: "futex-4"},
           "arms without name= are named after their backend, made unique", seen)
    wrapped = "capacitor; capacitor:tts; restrict"
    seen = dict(choose(wrapped, str(k)) for k in range(200))
    report(seen == {0: "capacitor:tts", 1: "capacitor:tts-2", 2: "restrict:mcs"},
           "a wrapper without its inner lock is named with the one that runs", seen)


BAD_LISTS = [
    ("", "no arms"),
    ("glibc;", "arm 2 (''): empty arm"),
    ("nosuch", "arm 1 ('nosuch'): unknown backend"),
    ("futex; capacitor:nosuch", "arm 2 ('capacitor:nosuch')"),
    ("futex BYPASS=0", "LOCKSWAP_BYPASS='0': must be a whole number between 1 and 16384"),
    ("futex bypass=8", "unknown option 'bypass'"),
    ("futex weight=0", "weight='0'"),
    ("futex weight=x", "weight='x'"),
    ("futex weight=1 weight=2", "weight given twice"),
    ("futex futex", "two backends"),
    ("weight=2", "no backend"),
    ("name=a futex; name=a glibc", "name 'a' is also arm 1's"),
    ("futex name=a/b", "name='a/b'"),
    ("futex ARMS=x", "ARMS cannot be set by an arm"),
    ("futex ARM_KEY=pid", "ARM_KEY cannot be set by an arm"),
    ("futex BACKEND=glibc", "plain name"),
    ("futex SPIN=3 SPIN=4", "sets SPIN twice"),
    (";".join(["futex"] * 33), "more than 32 arms"),
]


def test_bad_lists():
    for arms, want in BAD_LISTS:
        i, msg = choose(arms, "1")
        rc, cmsg = check_option("ARMS", arms)
        ok = i == -1 and want in msg and "\n" not in msg and msg.startswith("LOCKSWAP_ARMS")
        ok = ok and (arms == "" or (rc == -1 and cmsg == msg))
        report(ok, f"bad list {arms[:40]!r} rejected: {want}", f"{i} {msg!r} / {rc} {cmsg!r}")
    good = "glibc; capacitor:futex BYPASS=8 weight=2; name=restricted restrict:futex RESTRICT_ACTIVE=4"
    rc, msg = check_option("ARMS", good)
    report(rc == 0 and choose(good, "1")[0] >= 0, "the issue's example list is accepted", msg)


# ---- a process and its arm ----

EXAMPLE = "glibc; capacitor:futex BYPASS=8 weight=2; name=restricted restrict:futex RESTRICT_ACTIVE=4"


def test_process_arm(tmp):
    prog = os.path.join(PROG, "stats_counts")
    jpath = os.path.join(tmp, "arm.json")
    r = run([prog], clean_env(ARMS=EXAMPLE, VERBOSE=1, STATS="summary", STATS_FILE=jpath))
    m = re.search(r"^lockswap: arm (\S+) \((\d+) of 3\), key pid=(\d+): (.*)$", r.stderr, re.M)
    if not report(r.returncode == 0 and m is not None, "VERBOSE prints the arm and its key",
                  r.stderr[-400:]):
        return
    name, pos, pid, settings = m.group(1), int(m.group(2)), m.group(3), m.group(4)
    report(choose(EXAMPLE, pid) == (pos - 1, name),
           f"the process runs the arm lockswap_arm_choose gives its pid ({pid} -> {name})",
           f"{choose(EXAMPLE, pid)} vs {pos - 1, name}")
    doc = json.load(open(jpath))
    errs = schema_lite.errors(doc, SCHEMA)
    arm = doc.get("arm", {})
    report(not errs and arm.get("name") == name and arm.get("index") == pos - 1 and
           arm.get("arms") == 3 and arm.get("key") == "pid" and arm.get("key_value") == pid and
           arm.get("seed") is None and arm.get("settings") == settings,
           "the JSON records the arm (schema-valid)", f"{errs[:3]} {arm}")
    want_backend = settings.split()[0]
    report(doc.get("backend") == want_backend, f"the arm's backend serves ({want_backend})",
           doc.get("backend"))
    report(f"  arm {name} ({pos} of 3), key pid={pid}: {settings}" in r.stderr,
           "the stderr summary prints the arm line", r.stderr[-600:])

    names = set()
    for _ in range(2):
        r = run([prog], clean_env(ARMS=EXAMPLE, ARM_KEY="LS_SHARD", LS_SHARD="web-7", VERBOSE=1))
        m = re.search(r"^lockswap: arm (\S+) .*key LS_SHARD=web-7", r.stderr, re.M)
        names.add(m.group(1) if m else None)
    report(names == {choose(EXAMPLE, "web-7")[1]},
           "ARM_KEY=VARIABLE: the variable's value chooses, the same arm every run", names)

    r = run([prog], clean_env(ARMS=EXAMPLE, ARM_KEY="random", VERBOSE=1, STATS="summary",
                              STATS_FILE=jpath))
    m = re.search(r"^lockswap: arm (\S+) \(\d+ of 3\), key random seed (\d+):", r.stderr, re.M)
    doc = json.load(open(jpath)) if os.path.exists(jpath) else {}
    arm = doc.get("arm", {})
    report(m is not None and arm.get("seed") == int(m.group(2)) and
           arm.get("key_value") == m.group(2) and choose(EXAMPLE, m.group(2))[1] == m.group(1),
           "ARM_KEY=random: the seed is logged (VERBOSE, JSON) and re-chooses the same arm",
           f"{r.stderr[-300:]} {arm}")

    r = run([prog], clean_env(ARMS="capacitor:futex BYPASS=8", BYPASS=4, VERBOSE=1))
    report(" BYPASS=8 " in r.stderr and
           "replaces the environment's settings: BYPASS=8 (environment: 4)" in r.stderr,
           "an arm's setting wins over the environment's, and VERBOSE says so", r.stderr[-500:])


def test_bad_start(tmp):
    prog = os.path.join(PROG, "stats_counts")
    # stats_counts ends with the backend serving it (lockswap_backend): a
    # bad start-up must give exactly the output of a run on glibc.
    plain = run([prog], clean_env(BACKEND="glibc"))
    cases = [
        (dict(ARMS="futex; nosuch"), "LOCKSWAP_ARMS: arm 2 ('nosuch'): unknown backend"),
        (dict(ARMS="futex", ARM_KEY="1bad"), "LOCKSWAP_ARM_KEY='1bad'"),
        (dict(ARMS="futex", ARM_KEY="LS_NOT_SET_ANYWHERE"),
         "the variable LS_NOT_SET_ANYWHERE is not set"),
        (dict(ARMS="futex", ARM_KEY="LS_EMPTY", LS_EMPTY=""), "the variable LS_EMPTY is empty"),
        (dict(STATS_PROM="/nonexistent-lockswap/x.prom"),
         "cannot write into directory /nonexistent-lockswap"),
        (dict(STATS_PROM=os.path.join(tmp, "x.prom"), STATS="off"),
         "LOCKSWAP_STATS=off"),
        (dict(STATS_INTERVAL=0, STATS_PROM=os.path.join(tmp, "x.prom")),
         "LOCKSWAP_STATS_INTERVAL='0'"),
    ]
    for opts, want in cases:
        r = run([prog], clean_env(**opts))
        lines = r.stderr.splitlines()
        report(r.returncode == 0 and r.stdout == plain.stdout and len(lines) == 1 and
               want in lines[0] and lines[0].endswith("running on glibc's own locks"),
               f"bad start-up {opts}: one line, glibc, stdout intact",
               f"rc {r.returncode}, stderr {r.stderr[-300:]!r}")
    report(not glob.glob(os.path.join(tmp, "x.prom*")), "no export after a bad start-up")


# ---- the Prometheus export ----

FAMILIES = {
    "lockswap_lock_acquisitions": "counter",
    "lockswap_lock_contended": "counter",
    "lockswap_lock_wait_seconds": "histogram",
    "lockswap_lock_hold_seconds": "histogram",
    "lockswap_lock_min_share_ratio": "gauge",
    "lockswap_lock_jain_index": "gauge",
    # stats_prom.c's rwlock (reads and writes: a mode label) and condvar
    "lockswap_rwlock_acquisitions": "counter",
    "lockswap_rwlock_contended": "counter",
    "lockswap_rwlock_trylock_failures": "counter",
    "lockswap_rwlock_wait_seconds": "histogram",
    "lockswap_rwlock_hold_seconds": "histogram",
    "lockswap_rwlock_min_share_ratio": "gauge",
    "lockswap_rwlock_jain_index": "gauge",
    "lockswap_cond_waits": "counter",
    "lockswap_cond_timeouts": "counter",
    "lockswap_cond_signals": "counter",
    "lockswap_cond_broadcasts": "counter",
    "lockswap_cond_wait_seconds": "histogram",
}
SERIES_LABELS = {"arm", "backend", "process", "site"}


def family_labels(name):
    """The labels of a family's series (le aside): the rwlock's add mode."""
    return SERIES_LABELS | {"mode"} if name.startswith("lockswap_rwlock_") else SERIES_LABELS


def parse(text):
    """{family: (type, [(name, labels, value)])}; raises on a bad file."""
    if not text.endswith("\n"):
        raise ValueError("no final newline")
    out = {}
    for fam in text_string_to_metric_families(text):
        out[fam.name] = (fam.type, [(s.name, dict(s.labels), s.value) for s in fam.samples])
    return out


def shape_errors(fams, pid, arm, backend):
    errs = []
    for name, kind in FAMILIES.items():
        if fams.get(name, (None,))[0] != kind:
            errs.append(f"{name}: {fams.get(name, (None,))[0]} is not a {kind}")
    for name, (kind, samples) in fams.items():
        if name == "lockswap_arm_info":
            continue
        for sname, labels, _ in samples:
            keys = set(labels) - {"le"}
            if keys != family_labels(name):
                errs.append(f"{sname} labels {sorted(labels)}")
            elif "mode" in keys and labels["mode"] not in ("read", "write"):
                errs.append(f"{sname} mode {labels['mode']!r}")
            elif (labels["process"] != f"stats_prom:{pid}" or labels["arm"] != arm or
                  labels["backend"] != backend):
                errs.append(f"{sname} {labels}")
        if kind != "histogram":
            continue
        series = {}
        for sname, labels, value in samples:
            site = (labels["site"], labels.get("mode"))
            series.setdefault(site, {"b": [], "count": None})
            if sname.endswith("_bucket"):
                series[site]["b"].append((float(labels["le"]), value))
            elif sname.endswith("_count"):
                series[site]["count"] = value
        for site, h in series.items():
            vals = [v for _, v in sorted(h["b"])]
            if any(b < a for a, b in zip(vals, vals[1:])):
                errs.append(f"{name}{{site={site}}} buckets not cumulative: {vals}")
            if not vals or vals[-1] != h["count"] or sorted(h["b"])[-1][0] != float("inf"):
                errs.append(f"{name}{{site={site}}} +Inf bucket != _count")
    return errs


def counters(fams):
    out = {}
    for name, (kind, samples) in fams.items():
        for sname, labels, value in samples:
            if kind == "counter" or sname.endswith(("_bucket", "_count", "_sum")):
                out[(sname, tuple(sorted(labels.items())))] = value
    return out


def test_export(tmp):
    path = os.path.join(tmp, "load.prom")
    jpath = os.path.join(tmp, "load.json")
    arms = "futex; name=cap capacitor:futex weight=3"
    arm_index, arm = choose(arms, "shard-3")
    backend = ["futex", "capacitor:futex"][arm_index]
    env = clean_env(ARMS=arms, ARM_KEY="LS_SHARD", LS_SHARD="shard-3", STATS_PROM=path,
                    STATS_INTERVAL=1, STATS_PROM_SITES=3, STATS_FILE=jpath, STATS_TOP=0,
                    LD_PRELOAD=LIB)
    proc = subprocess.Popen([os.path.join(PROG, "stats_prom"), "3.5"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reads, contents, bad = 0, [], []
    done = threading.Event()

    def reader():
        nonlocal reads
        while not done.is_set():
            try:
                with open(path) as f:
                    text = f.read()
            except FileNotFoundError:
                continue
            reads += 1
            if contents and contents[-1] == text:
                continue
            try:
                parse(text)
                contents.append(text)
            except Exception as e:  # a partial or malformed file
                bad.append(f"{e!r}: {text[-80:]!r}")
    t = threading.Thread(target=reader)
    t.start()
    out, err = proc.communicate(timeout=TIMEOUT)
    done.set()
    t.join()
    pid = int(re.search(r"pid (\d+)", out).group(1))
    report(proc.returncode == 0 and not err, "stats_prom runs with the export on", err[-300:])
    report(not bad and len(contents) >= 2,
           f"a concurrent reader never sees a partial file ({reads} reads, "
           f"{len(contents)} distinct writes while running)", f"{bad[:2]} {len(contents)}")
    final = open(path).read()
    contents.append(final)
    errs = []
    for text in contents:
        errs += shape_errors(parse(text), pid, arm, backend)
    report(not errs, "every write parses with prometheus_client: families, types, labels "
           "(arm, backend, process, site), cumulative buckets, +Inf = _count", errs[:4])
    drops = []
    for before, after in zip(contents, contents[1:]):
        a, b = counters(parse(before)), counters(parse(after))
        drops += [f"{k[0]} {dict(k[1]).get('site')}: {a[k]} -> {b.get(k)}"
                  for k in a if b.get(k, -1) < a[k]]
    report(not drops, f"counters and buckets never decrease over {len(contents)} writes",
           drops[:3])
    fams = parse(final)
    sites = {lab["site"] for _, lab, _ in fams["lockswap_lock_acquisitions"][1]}
    report(len(sites - {"other"}) == 3 and "other" in sites and
           all(re.match(r"^[\w.]+\+0x[0-9a-f]+$", s) for s in sites - {"other"}),
           "STATS_PROM_SITES=3: three sites (symbol+offset) and site=\"other\"", sites)
    total = sum(v for _, _, v in fams["lockswap_lock_acquisitions"][1])
    doc = json.load(open(jpath))
    jtotal = sum(lk["acquisitions"] for lk in doc["locks"] if lk["type"] == "mutex")
    report(total == jtotal and total > 0,
           "the exit export's acquisitions add up to the exit JSON's", f"{total} vs {jtotal}")
    def summed(family, mode=None):
        return sum(v for _, lab, v in fams.get(family, (None, []))[1]
                   if mode is None or lab.get("mode") == mode)
    rw = [lk for lk in doc["locks"] if lk["type"] == "rwlock"]
    cv = [lk for lk in doc["locks"] if lk["type"] == "condvar"]
    got = {m: summed("lockswap_rwlock_acquisitions", m) for m in ("read", "write")}
    want = {m: sum(lk[m]["acquisitions"] for lk in rw) for m in ("read", "write")}
    report(got == want and got["read"] > 0 and got["write"] > 0,
           "rwlock reads and writes: the exit export's acquisitions by mode add up to the exit JSON's",
           f"{got} vs {want}")
    got = {k: summed(f"lockswap_cond_{k}") for k in ("waits", "timeouts", "signals", "broadcasts")}
    want = {k: sum(lk[k] for lk in cv) for k in ("waits", "timeouts", "signals", "broadcasts")}
    report(got == want and got["waits"] > 0 and got["signals"] > 0,
           "condvar waits, timeouts, signals, broadcasts: the exit export adds up to the exit JSON",
           f"{got} vs {want}")
    info = fams.get("lockswap_arm_info", (None, []))[1]
    report(len(info) == 1 and info[0][1].get("arm") == arm and
           info[0][1].get("key_value") == "shard-3",
           "lockswap_arm_info names the arm and its key", info)
    report(not glob.glob(path + ".tmp*"), "no temporary file is left behind")


def test_fork(tmp):
    prog = os.path.join(PROG, "stats_prom")
    d1 = os.path.join(tmp, "pid")
    os.mkdir(d1)
    r = run([prog, "1.6", "fork"],
            clean_env(STATS_PROM=os.path.join(d1, "f-%p.prom"), STATS_INTERVAL=1, STATS_TOP=0))
    pid = re.search(r"pid (\d+)", r.stdout)
    child = re.search(r"child (\d+)", r.stdout)
    if not report(r.returncode == 0 and pid and child, "fork workload runs", r.stderr[-300:]):
        return
    pid, child = pid.group(1), child.group(1)
    files = sorted(os.listdir(d1))
    cfile = os.path.join(d1, f"f-{child}.prom")
    procs = set()
    if os.path.exists(cfile):
        procs = {lab["process"] for _, lab, _ in
                 parse(open(cfile).read())["lockswap_lock_acquisitions"][1]}
    report(files == sorted([f"f-{pid}.prom", f"f-{child}.prom"]) and
           procs == {f"stats_prom:{child}"},
           "with %p a fork child exports under its own pid from its own writer thread "
           "(it left with _exit, so no exit dump wrote it)", f"{files} {procs}")
    d2 = os.path.join(tmp, "nopid")
    os.mkdir(d2)
    r = run([prog, "1.6", "fork"],
            clean_env(STATS_PROM=os.path.join(d2, "f.prom"), STATS_INTERVAL=1, STATS_TOP=0))
    pid = re.search(r"pid (\d+)", r.stdout).group(1)
    files = os.listdir(d2)
    procs = {lab["process"] for _, lab, _ in
             parse(open(os.path.join(d2, "f.prom")).read())["lockswap_lock_acquisitions"][1]} \
        if files == ["f.prom"] else set()
    report(files == ["f.prom"] and procs == {f"stats_prom:{pid}"},
           "without %p a fork child does not export: the file stays the parent's",
           f"{files} {procs}")


def test_implied_and_idle(tmp):
    path = os.path.join(tmp, "implied.prom")
    r = run([os.path.join(PROG, "stats_prom"), "0.2"], clean_env(STATS_PROM=path))
    report(r.returncode == 0 and "lockswap stats (exit)" in r.stderr and os.path.exists(path),
           "STATS_PROM with STATS unset turns the statistics on (summary)", r.stderr[-300:])
    idle = os.path.join(tmp, "idle.prom")
    r = run(["/bin/true"], clean_env(STATS_PROM=idle, STATS_INTERVAL=1))
    report(r.returncode == 0 and not os.path.exists(idle),
           "a process that used no mutex writes no file", os.listdir(tmp))


def main():
    with tempfile.TemporaryDirectory(prefix="lockswap-arms.") as tmp:
        test_choice()
        test_bad_lists()
        test_process_arm(tmp)
        test_bad_start(tmp)
        test_export(tmp)
        test_fork(tmp)
        test_implied_and_idle(tmp)
    return summary("arms")


if __name__ == "__main__":
    sys.exit(main())
