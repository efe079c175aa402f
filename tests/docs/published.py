"""Published numbers recompute from their raw files (issue 47).

Two checks, each printing ok/FAIL lines:

1. Every ratio with its interval, `R [LOW, HIGH]`, in README.md,
   docs/results.md, docs/backends.md and docs/seeds.md is found in the raw
   files its paragraph links (or, when the paragraph links none, its
   section): as a triple in their text (an `ab`/`sweep` table, a report),
   in an `ab`/`sweep` .json (`summary`, `paired`, at full precision, which
   wins over the same triple rounded in a table), or recomputed from an
   `ab` .csv as `lockswap ab` computes a paired ratio (seed 1).  A link to
   a folder's README.md stands for every file in the folder.  Rounding: the
   raw value must round to the published digits.

2. The other numbers the audit of issue 47 found slips in, and every number
   of the README's Results: each claim below names the text as published
   and recomputes it from its raw file (medians, ratios, ranges, load
   averages, maxima); the published text must contain what the raw file
   gives.

A number with no raw file has no place in these pages: the audit removed
them, and a new one fails check 1 (or must be registered in check 2).
"""
import csv
import glob
import json
import math
import os
import re
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts"))
from lockswap_cli import stats  # noqa: E402

DOCS = ("README.md", "docs/results.md", "docs/backends.md", "docs/seeds.md")
TRIPLE = re.compile(r"(\d+\.\d+)x?\*{0,2} \[(\d+\.\d+), (\d+\.\d+)\]")
RAW_TRIPLE = re.compile(r"(\d+\.\d+)\*{0,2}(?:\s+95% CI)?\s*\|?\s*\[(\d+\.\d+), ?(\d+\.\d+)\]")
LINK = re.compile(r"\]\(([^)#\s]+)")


class Out:
    def __init__(self):
        self.lines = []

    def ok(self, what):
        self.lines.append(f"ok - {what}")

    def fail(self, what):
        self.lines.append(f"FAIL - {what}")

    def check(self, cond, what, detail=""):
        (self.ok if cond else self.fail)(what if cond or not detail else f"{what}: {detail}")


# ---- 1. ratios with intervals ----

def blocks(text):
    """[(section heading, first line, block text)]: blocks are separated by
    blank lines; a heading is a block of its own."""
    out, cur, sec, start = [], [], None, 1
    for i, line in enumerate(text.split("\n"), 1):
        if line.startswith("#"):
            if cur:
                out.append((sec, start, "\n".join(cur)))
            cur, sec = [], line
            continue
        if not line.strip():
            if cur:
                out.append((sec, start, "\n".join(cur)))
            cur = []
            continue
        if not cur:
            start = i
        cur.append(line)
    if cur:
        out.append((sec, start, "\n".join(cur)))
    return out


def raw_links(block, base):
    out = []
    for m in LINK.finditer(block):
        path = os.path.normpath(os.path.join(base, m.group(1)))
        if os.sep + "results" + os.sep in path and os.path.exists(path):
            out.append(path)
    return out


def files_of(path):
    """The raw files a link stands for: a folder (or its README.md) is
    every file in it; a file is itself and its siblings of the same stem
    (PREFIX.md's PREFIX.json and PREFIX.csv)."""
    if os.path.isdir(path):
        path = os.path.join(path, "README.md")
    if os.path.basename(path) == "README.md":
        return [f for f in glob.glob(os.path.join(os.path.dirname(path), "**"), recursive=True)
                if os.path.isfile(f) and not f.endswith(".png")]
    stem = os.path.splitext(path)[0]
    return sorted(set(glob.glob(glob.escape(stem) + ".*") + [path]) - set(glob.glob(stem + ".png")))


def paired_from_csv(path):
    """Every paired ratio an `ab`/`sweep` CSV gives, per group: [(median over
    rounds of OTHER / BASE within the round, the per-round ratios)]."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, csv.Error, UnicodeDecodeError):
        return []
    if not rows or not {"round", "backend", "value", "status"} <= set(rows[0]):
        return []
    by = {}
    for r in rows:
        if r["status"] != "ok":
            continue
        try:
            v = float(r["value"])
        except ValueError:
            continue
        group = r.get("threads") or r.get("group") or ""
        by.setdefault(group, {}).setdefault(r["round"], {})[r["backend"]] = v
    out = []
    for rounds in by.values():
        names = sorted({b for rr in rounds.values() for b in rr})
        for base in names:
            for other in names:
                ratios = [rr[other] / rr[base] for rr in rounds.values()
                          if base != other and base in rr and other in rr and rr[base]]
                if len(ratios) >= 2:
                    out.append((statistics.median(ratios), ratios))
    return out


def paired_ci(ratios):
    """The paired interval as `lockswap ab` computes it (scripts/lockswap_cli/
    stats.py: the rounds' ratios resampled, numpy's generator), seed 1."""
    rng = np.random.default_rng(1)
    return stats.middle(stats.resampled_medians(np.asarray(ratios, dtype=float), rng))


_raw = {}


def raw_triples(path):
    """{(r, low, high): digits or None (full precision)} of one raw file."""
    if path in _raw:
        return _raw[path]
    found = {}
    if path.endswith(".json"):
        try:
            with open(path) as f:
                doc = json.load(f)
            for key in ("summary", "paired"):
                for r in doc.get(key, []) if isinstance(doc, dict) else []:
                    if r.get("ratio") is not None and r.get("ci_low") is not None:
                        found[(r["ratio"], r["ci_low"], r["ci_high"])] = None
        except (OSError, ValueError):
            pass
    elif path.endswith(".csv"):
        pass  # recomputed on demand (triple_found): the bootstrap is the slow part
    else:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        for m in RAW_TRIPLE.finditer(text):
            found[tuple(float(x) for x in m.groups())] = min(len(x.split(".")[1])
                                                              for x in m.groups())
    _raw[path] = found
    return found


def rounds_to(raw, published, digits_raw=None):
    """Whether raw rounds to the published decimal text; a raw value that
    is itself rounded (digits_raw) matches any published value it could
    have come from."""
    k = len(published.split(".")[1]) if "." in published else 0
    slack = 0.5 * 10 ** -digits_raw if digits_raw is not None else 0.0
    return abs(raw - float(published)) <= 0.5 * 10 ** -k + slack + 1e-12


def triple_found(pub, files):
    precise = {}
    for f in files:
        for t, digits in raw_triples(f).items():
            if digits is None or t not in precise:
                precise.setdefault(t, digits)
    # a table's rounded triple that a .json holds at full precision is that one
    fulls = [t for t, d in precise.items() if d is None]
    cands = []
    for t, d in precise.items():
        if d is not None and any(all(rounds_to(x, f"{y:.{d}f}") for x, y in zip(full, t))
                                 for full in fulls):
            continue
        cands.append((t, d))
    for t, d in cands:
        inverted = (1 / t[0], 1 / t[2], 1 / t[1]) if all(t) else None
        for cand in (t, inverted):
            if cand and all(rounds_to(x, p, d) for x, p in zip(cand, pub)):
                return True
    for f in files:  # an ab CSV's paired ratios, as `lockswap ab` gives them
        if not f.endswith(".csv"):
            continue
        if f not in _csv:
            _csv[f] = paired_from_csv(f)
        for median, ratios in _csv[f]:
            if rounds_to(median, pub[0]):
                low, high = paired_ci(ratios)
                if rounds_to(low, pub[1]) and rounds_to(high, pub[2]):
                    return True
    return False


_csv = {}


def check_triples(root, out):
    for doc in DOCS:
        path = os.path.join(root, doc)
        with open(path) as f:
            text = f.read()
        base = os.path.dirname(path)
        bl = blocks(text)
        n = bad = 0
        for i, (sec, line, block) in enumerate(bl):
            for m in TRIPLE.finditer(block):
                n += 1
                scope = raw_links(block, base) or [l for s, _, b in bl if s == sec
                                                   for l in raw_links(b, base)]
                files = [f for l in scope for f in files_of(l)]
                if not triple_found(m.groups(), files):
                    bad += 1
                    where = line + block[:m.start()].count("\n")
                    out.fail(f"{doc}:{where}: {m.group(0)} is in no raw file its paragraph or "
                             f"section links ({len(scope)} links)")
        if not bad:
            out.ok(f"{doc}: all {n} ratios with intervals recompute from their raw files")


# ---- 2. registered claims ----

def read(root, rel):
    with open(os.path.join(root, rel), errors="replace") as f:
        return f.read()


def num(text):
    return float(text.replace(",", "").replace("*", ""))


def matrix(root, rel="docs/results/default-matrix/matrix.md"):
    """{row: {"base": (median, share), arm: (ratio, low, high, share)}} and
    the targets table {arm: (geomean, per-round median, low, high)}."""
    rows, targets = {}, {}
    cell = re.compile(r"\*\*([\d.]+)\*\* \[([\d.]+), ([\d.]+)\](?:, share ([\d.]+))?")
    for line in read(root, rel).splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if len(parts) == 6 and parts[1] in ("micro", "latency", "app"):
            value, _, share = parts[3].partition(", share ")
            rows[parts[0]] = {"base": (num(value), float(share) if share else None)}
            for arm, text in zip(("futex", "slice"), parts[4:6]):
                m = cell.match(text)
                rows[parts[0]][arm] = (float(m.group(1)), float(m.group(2)), float(m.group(3)),
                                       m.group(4) and float(m.group(4)))
        elif len(parts) == 6 and parts[0].startswith("`") and "geomean" not in parts[2]:
            g = re.match(r"([\d.]+)", parts[2])
            pr = re.match(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", parts[3])
            if g and pr:
                arm = "slice" if parts[0].startswith("`slice") else "futex"
                targets[arm] = (float(g.group(1)), *map(float, pr.groups()))
    return rows, targets


def sweep(root, rel):
    """A `lockswap sweep` .md: {"ratio": {threads: {backend: (r, l, h)}},
    "median KEY": {threads: {backend: value}}}."""
    out, title, header = {}, None, None
    for line in read(root, rel).splitlines():
        if line.startswith("ratio to glibc [95% CI]"):
            title, header = "ratio", None
        elif line.startswith("median ") and line.endswith(":"):
            title, header = line[:-1], None
        elif line.startswith("## "):
            title = None
        elif title and line.startswith("|") and "---" not in line:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                continue
            row = {}
            for name, c in zip(header[1:], cells[1:]):
                m = re.match(r"([\d.,]+) \[([\d.]+), ([\d.]+)\]", c)
                row[name] = tuple(map(float, m.groups())) if m else num(c)
            out.setdefault(title, {})[int(cells[0])] = row
    return out


def ab(root, rel):
    """A `lockswap ab` .md: {"summary": {backend: row}, "paired": {backend:
    (r, l, h)}, "medians": {backend: {key: value}}}."""
    out = {"summary": {}, "paired": {}, "medians": {}}
    part, header = None, None
    for line in read(root, rel).splitlines():
        if line.startswith("| backend | good"):
            part, header = "summary", None
        elif line.startswith("| backend | rounds"):
            part, header = "paired", None
        elif line.startswith("medians of other keys"):
            part, header = "medians", None
        elif line.startswith("## "):
            part = None
        if part and line.startswith("|") and "---" not in line:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                continue
            if part == "summary":
                out["summary"][cells[0]] = dict(zip(header, cells))
            elif part == "paired":
                out["paired"][cells[0]] = (float(cells[2]), *map(float, re.findall(r"[\d.]+",
                                                                                    cells[3])))
            else:
                out["medians"][cells[0]] = {h: num(c) for h, c in zip(header[1:], cells[1:])}
    return out


def csv_rows(root, rel):
    with open(os.path.join(root, rel), newline="") as f:
        return list(csv.DictReader(f))


def load1(root, rels):
    """The 1-minute load averages a set of raw files records."""
    vals = []
    pats = (r"load average:? ([\d.]+)", r"load average ([\d.]+) at start, ([\d.]+) at end",
            r"load average ([\d.]+) -> ([\d.]+)", r"load (?:before|after): \['([\d.]+)'")
    for rel in rels:
        text = read(root, rel)
        for p in pats:
            for m in re.finditer(p, text):
                vals += [float(x) for x in m.groups()]
    return min(vals), max(vals)


def f2(x):
    return f"{x:.2f}"


def f3(x):
    return f"{x:.3f}"


def claims(root):
    """[(doc, what, expected text)]: the doc must contain the expected
    text, computed from the raw file."""
    M, T = matrix(root)
    s = lambda row: M[row]["slice"]
    tri3 = lambda t: f"{f3(t[0])} [{f3(t[1])}, {f3(t[2])}]"
    trix = lambda t: f"{f3(t[0])}x [{f3(t[1])}, {f3(t[2])}]"
    out = []
    add = lambda doc, what, text: out.append((doc, what, text))

    # README, "The default"
    add("README.md", "the default's short section",
        f"{f2(s('short-2')[0])} / {f2(s('short-8')[0])} / {f2(s('short-32')[0])}x at 2 / 8 / 32 threads "
        f"(min share {f2(s('short-2')[3])} / {f2(s('short-8')[3])} / {f2(s('short-32')[3])}, glibc "
        f"{f2(M['short-2']['base'][1])} / {f2(M['short-8']['base'][1])} / {f2(M['short-32']['base'][1])})")
    add("README.md", "the default's condvar and rwlock rows",
        f"condvar {f2(s('condvar-8')[0])}x, rwlock at 50% / 99% reads {f2(s('rw50-8')[0])}x / "
        f"{f2(s('rw99-8')[0])}x at 8 threads")
    p8, p32 = (ab(root, f"docs/results/default-matrix/rows/p999-short-{t}.md") for t in (8, 32))
    med = lambda d, b: int(num(d["summary"][b]["median"]))
    slice_p = {med(p8, "slice:futex,RWLOCK=slice"), med(p32, "slice:futex,RWLOCK=slice")}
    add("README.md", "the request p99.9",
        f"threads {'/'.join(map(str, sorted(slice_p)))} ns against glibc's "
        f"{med(p8, 'glibc,RWLOCK=glibc')} / {med(p32, 'glibc,RWLOCK=glibc')} ns")
    add("README.md", "the default's losses",
        f"reads, {trix(s('rw99-1'))}; LevelDB readrandom {trix(s('leveldb-read'))} and RocksDB\n"
        f"readwhilewriting {trix(s('rocksdb-rww'))}; the moderate section {trix(s('moderate-8'))}")
    add("README.md", "the real programs' geometric mean",
        f"{f3(T['slice'][0])}, per round {f3(T['slice'][1])} [{f3(T['slice'][2])}, {f3(T['slice'][3])}]")
    add("README.md", "the 0.3 default in the matrix",
        f"gave {f3(T['futex'][0])} there and {f3(M['rw50-8']['futex'][0])}x on the rwlock at 50% reads")
    # README, fairness (seats-opt-in sweep, 2026-11-26)
    mixed = sweep(root, "docs/results/seats-opt-in-slice-mixed.md")
    share = mixed["median class_hold_min_vs_equal"]
    add("README.md", "slices with mixed sections",
        f"`slice:futex` ran at {f2(mixed['ratio'][8]['slice:futex'][0])}x / "
        f"{f2(mixed['ratio'][32]['slice:futex'][0])}x glibc at 8 / 32 threads")
    add("README.md", "the mixed sections' hold shares",
        f"least {f2(share[8]['slice:futex'])} / {f2(share[32]['slice:futex'])} of an equal share of hold "
        f"time (glibc {f2(share[8]['glibc'])} / {f2(share[32]['glibc'])}, futex {f2(share[8]['futex'])} / "
        f"{f2(share[32]['futex'])})")
    fifo = [mixed["ratio"][t][b][0] for t in (8, 32) for b in ("capacitor:tts", "mcs")]
    add("README.md", "the FIFO locks with mixed sections",
        f"at {f3(min(fifo))}-{f3(max(fifo))}x glibc")
    add("README.md", "the FIFO warning", f"70-{round(1 / min(fifo), -2):.0f}x slower than glibc's "
        f"({f3(min(fifo))}-{f3(max(fifo))}x")
    # README, 16 cores
    short = sweep(root, "docs/results/manycore-slice/slice-short.md")
    mod = sweep(root, "docs/results/manycore-slice/slice-moderate.md")
    mx = sweep(root, "docs/results/manycore-slice/slice-mixed.md")
    ldb = sweep(root, "docs/results/manycore-slice/slice-leveldb.md")
    rws = sweep(root, "docs/results/manycore-slice/rws-50.md")
    three = lambda d, b, key="ratio": " / ".join(
        f2(d[key][t][b][0] if key == "ratio" else d[key][t][b]) for t in (4, 16, 64))
    add("README.md", "16 cores, short", f"`slice:futex` {three(short, 'slice:futex')}x glibc on the\n"
        f"short section at 4 / 16 / 64 threads (futex {three(short, 'futex')})")
    add("README.md", "16 cores, moderate", f"{three(mod, 'slice:futex')}x on the\nmoderate one")
    add("README.md", "16 cores, mixed", f"{three(mx, 'slice:futex')}x with half the threads")
    hs = "median class_hold_min_vs_equal"
    least = [f2(mx[hs][t]["slice:futex"]) for t in (4, 16, 64)]
    add("README.md", "16 cores, mixed shares", f"(least class {least[0]} / {least[1]} / {least[2]} "
        f"of an equal hold share, glibc {three(mx, 'glibc', hs)})")
    add("README.md", "16 cores, LevelDB", f"{three(ldb, 'slice:futex')}x on LevelDB\nreadrandom")
    add("README.md", "16 cores, the slice rwlock", f"50% reads {three(rws, 'slice')}x")
    add("README.md", "16 cores, capacitor:tts at 64 threads",
        f"capacitor:tts {f3(short['ratio'][64]['capacitor:tts'][0])}x at 64 threads")
    # README, what loading lockswap costs a process (bench/startup.py's JSON)
    with open(os.path.join(root, "docs/results/issue45-startup/true.json")) as f:
        added = {k: v["median"] for k, v in json.load(f)["added_us"].items()}
    add("README.md", "the start-up cost",
        f"{added['after']:.0f} µs added to each start of a\nprogram that does nothing, "
        f"{added['before']:.0f} before this release's start-up cuts (an empty preloaded library\n"
        f"adds {added['empty']:.0f})")
    # the FIFO locks' best on 16 cores (three sweeps of the waiting policy)
    best16, best48 = 0.0, 0.0
    for rel in ("docs/results/manycore/earlier-build-a-mutex-short.txt",
                "docs/results/manycore/earlier-build-b-mutex-short.txt"):
        text = read(root, rel)
        table = text.split("ratio to glibc")[1].split("\n\n")[0].splitlines()[1:]
        head = table[0].split()
        for line in table[1:]:
            cells = line.split()
            t = int(cells[0])
            vals = dict(zip(head[1:], [float(c) for c in cells[1::2][:len(head) - 1]]))
            for b in ("ticket", "mcs"):
                if t == 16:
                    best16 = max(best16, vals[b])
                elif t in (4, 8):
                    best48 = max(best48, vals[b])
    man = sweep(root, "docs/results/manycore/mutex-short.md")["ratio"]
    best16 = max(best16, *(man[16][b][0] for b in ("ticket", "mcs")))
    best48 = max(best48, *(man[4][b][0] for b in ("ticket", "mcs")))
    for doc in ("README.md", "docs/results.md"):
        add(doc, "the FIFO locks' best on 16 cores", f"at most {f2(best16)}x glibc at 16")
    add("docs/backends.md", "the FIFO locks' best on 16 cores",
        f"ticket, mcs at most {f2(best16)}x at 16 threads")
    add("README.md", "... and at 4-8 threads", f"and {f2(best48)}x at 4-8")
    # ces (README and backends.md)
    ces = {t: json.loads(read(root, f"docs/results/ces/short-{t}t.json")) for t in (2, 8, 32)}
    paired = lambda d: next(r for r in d["paired"] if r["backend"] == "ces")
    cc = [paired(ces[t]) for t in (2, 8, 32)]
    add("README.md", "ces over futex, short section", " / ".join(
        f"{f2(r['ratio'])} [{f2(r['ci_low'])}, {f2(r['ci_high'])}]" for r in cc) + "x futex")
    crossing = sum(r["ci_low"] < 1 < r["ci_high"] for r in cc)
    add("README.md", "ces: how many intervals cross 1",
        {1: "one of the three", 2: "two of the three", 3: "all three"}.get(crossing, "none of the three")
        + " intervals across 1")
    ldb8 = next(r for r in json.loads(read(root, "docs/results/ces/leveldb-readrandom-8t.json"))["paired"]
                if r["backend"] == "ces")
    add("README.md", "ces, LevelDB at 8 threads",
        f"{f3(ldb8['ratio'])} [{f3(ldb8['ci_low'])}, {f3(ldb8['ci_high'])}] "
        f"({'slower' if ldb8['ci_high'] < 1 else 'no clear difference'})")
    # results.md section 17 and after
    reqmax = {}
    for t in (8, 32):
        for r in csv_rows(root, f"docs/results/default-matrix/rows/p999-short-{t}.csv"):
            if r["status"] == "ok":
                reqmax.setdefault(r["backend"].split(",")[0], []).append(float(r["request_max_ns"]) / 1e6)
    rng = lambda b: f"{min(reqmax[b]):.1f}-{max(reqmax[b]):.{0 if max(reqmax[b]) > 100 else 1}f} ms"
    add("docs/results.md", "the request rows' maxima",
        f"requests took {rng('glibc')} (glibc) and {rng('futex')} (futex), against "
        f"{rng('slice:futex')} under slices")
    add("docs/results.md", "RocksDB and LevelDB against 0.95 and 1",
        f"RocksDB's {tri3(s('rocksdb-rww'))} has an interval\n  that reaches below 0.95")
    for rel, text in (("matrix-first-5-rounds.md", "1.118 [0.983, 1.443]"),
                      ("matrix-earlier-7-rounds.md", "1.128 [1.076, 1.151]"),
                      ("matrix.md", "1.124 [1.111, 1.147]")):
        _, t = matrix(root, f"docs/results/default-matrix/{rel}")
        add("docs/results.md", f"per-round geometric mean of {rel}",
            f"{f3(t['slice'][1])} [{f3(t['slice'][2])}, {f3(t['slice'][3])}]")
    first, _ = matrix(root, "docs/results/default-matrix/matrix-first-5-rounds.md")
    earlier, _ = matrix(root, "docs/results/default-matrix/matrix-earlier-7-rounds.md")
    add("docs/results.md", "rwlock 99% reads before and after the inlining",
        f"from {trix(first['rw99-8']['slice'][:3])} glibc")
    add("docs/results.md", "... after", f"to {f3(earlier['rw99-8']['slice'][0])}x and "
        f"{f3(M['rw99-8']['slice'][0])}x")
    add("docs/results.md", "the futex rwlock in the matrix",
        f"its rwlock {f3(M['rw50-8']['futex'][0])}x glibc at 50%")
    rw16 = sweep(root, "docs/results/manycore-slice/manycore-rwlock-50.md")["ratio"]
    fr = [rw16[t]["futex"][0] for t in (4, 16, 64)]
    add("docs/results.md", "the futex rwlock on 16 cores", f"and {f2(min(fr))}-{f2(max(fr))}x at 4-64 threads")
    rec = sweep(root, "docs/results/manycore-recheck/slice-short.md")["ratio"]
    lo16 = min([short["ratio"][t]["slice:futex"][0] for t in (4, 16, 64)] +
               [rec[t]["slice:futex"][0] for t in (16, 64)])
    hi16 = max([short["ratio"][t]["slice:futex"][0] for t in (4, 16, 64)] +
               [rec[t]["slice:futex"][0] for t in (16, 64)])
    add("docs/results.md", "slice:futex's short section on 16 cores",
        f"`slice:futex` ran at {f2(lo16)}-{f2(hi16)}x glibc on the short section")
    rw_instr = read(root, "docs/results/default-matrix/instructions/rwlock.txt")
    def pair(label, rw, col):
        for line in rw_instr.splitlines():
            if line.startswith(label) and line.split()[-5] == rw:
                return line.split()[-4 if col == "read" else -2]
        raise KeyError((label, rw))
    add("docs/results.md", "the rwlock pairs before and after the inlining",
        f"read pair {pair('0e173b6', 'slice', 'read')} -> {pair('b8b1a80', 'slice', 'read')} "
        f"instructions, write pair {pair('0e173b6', 'slice', 'write')} -> "
        f"{pair('b8b1a80', 'slice', 'write')}")
    add("docs/results.md", "glibc's and no lockswap's pairs",
        f"pass-through {pair('b8b1a80', 'glibc', 'read')} / {pair('b8b1a80', 'glibc', 'write')}, "
        f"without\n  lockswap {pair('none', 'glibc', 'read')} / {pair('none', 'glibc', 'write')}")
    add("docs/results.md", "the 99%-reads row's pairs",
        f"its read pair is {pair('b8b1a80', 'slice', 'read')} instructions\n  against "
        f"{pair('b8b1a80', 'futex', 'read')} for the futex rwlock")
    mcs = read(root, "docs/results/seeds/uncontended-mcs.txt")
    m = re.search(r"^mcs\s+(\d+)\s+(\d+)", mcs, re.M)
    for doc in ("docs/results.md", "docs/seeds.md"):
        add(doc, "mcs's uncontended pair", f"pair is {m.group(1)} / {m.group(2)}")
    cond = {t: ab(root, f"docs/results/default-matrix/recheck/condvar-{t}t.md") for t in (8, 32)}
    old = next(k for k in cond[8]["paired"] if "LIB=" in k)
    add("docs/results.md", "the condvar fix at 8 threads",
        f"threads {tri3(cond[8]['paired'][old])} before, {tri3(cond[8]['paired']['slice:futex'])} after")
    add("docs/results.md", "the condvar fix at 32 threads",
        f"{tri3(cond[32]['paired'][old])}\n  before (min share "
        f"{f2(cond[32]['medians'][old]['min_share'])}), {tri3(cond[32]['paired']['slice:futex'])} after "
        f"(min share {f2(cond[32]['medians']['slice:futex']['min_share'])})")
    add("CHANGELOG.md", "the condvar fix",
        f"{f2(cond[8]['paired'][old][0])}x -> {f2(cond[8]['paired']['slice:futex'][0])}x glibc at 8 threads, "
        f"{f2(cond[32]['paired'][old][0])}x -> {f2(cond[32]['paired']['slice:futex'][0])}x at 32")
    lo, hi = load1(root, ["docs/results/default-matrix/recheck/condvar-8t.txt",
                          "docs/results/default-matrix/recheck/condvar-32t.txt",
                          "docs/results/default-matrix/recheck/machine.txt"])
    add("docs/results.md", "the condvar recheck's load", f"load {lo:.1f} ->\n  {hi:.1f}")
    lo, hi = load1(root, ["docs/results/bcs/ab-2core-2t.txt", "docs/results/bcs/ab-2core-2t-b.txt"])
    add("docs/results.md", "the bcs runs' load", f"load {lo:.1f}-{hi:.1f}")
    lo, hi = load1(root, ["docs/results/stats-alone/cost-7-rounds.md"])
    add("docs/results.md", "the statistics-alone run's load", f"load {lo:.1f}-{hi:.1f}")
    cost = read(root, "docs/results/stats-alone/cost-7-rounds.md")
    none_ns = float(re.search(r"\| uncontended \(ns_per_pair[^|]*\| ([\d.]+) \|", cost).group(1))
    alone = float(re.search(r"\| uncontended \(ns_per_pair.*\*\*([\d.]+)\*\* \[[^]]*\] \|$", cost,
                            re.M).group(1))
    add("docs/results.md", "the counting's cost per uncontended pair",
        f"{none_ns / alone - none_ns:.1f} ns per uncontended pair ({f2(alone)}x)")
    moder = [next(r for r in json.loads(read(root, f"docs/results/ces/moderate-{t}t.json"))["paired"]
                  if r["backend"] == "ces") for t in (2, 8, 32)]
    add("docs/results.md", "ces's moderate rows",
        f"({' / '.join(f3(r['ratio']) for r in moder)}x futex at 2 / 8 / 32 threads;\n  the 32-thread "
        f"interval reaches {f3(moder[2]['ci_low'])}")
    return out


def check_claims(root, out):
    docs = {}
    try:
        items = claims(root)
    except Exception as e:  # a raw file moved or changed shape: say so, do not crash
        out.fail(f"registered claims: reading the raw files failed: {e!r}")
        return
    for doc, what, text in items:
        if doc not in docs:  # compared with line breaks and indents as single spaces
            with open(os.path.join(root, doc)) as f:
                docs[doc] = " ".join(f.read().split())
        text = " ".join(text.split())
        out.check(text in docs[doc], f"{doc}: {what} recomputes from its raw file",
                  f"expected {text!r}")


def main(root):
    out = Out()
    check_triples(root, out)
    check_claims(root, out)
    return out.lines
