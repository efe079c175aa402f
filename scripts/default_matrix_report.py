#!/usr/bin/env python3
"""default_matrix_report.py OUT - the table of scripts/default-matrix.sh.

Reads OUT/rows/NAME.json (one `lockswap ab` result per row) and writes
OUT/matrix.md: for every row, each arm's paired ratio to the first arm
(glibc) with its 95% interval, turned into "times better than glibc" so
that > 1 is better in every row (for a lower-is-better metric, such as a
latency or a wall time, the ratio is inverted, interval included); the
min share where the row records it; then, per arm, the geometric mean over
the real programs and the targets:
  issue 38: micro and latency rows >= 1.0; apps: geomean >= 1.15, none
  below 0.95;
  a row of group control (every arm runs glibc's own lock there) is shown
  and judged by no target;
  issue 45: every real-program row (group app) and every everyday-program
  row (group everyday): >= 1.00 at the median and no interval entirely
  below 0.98; the geometric mean over the lock-bound rows (real programs
  marked NAME.lockbound) >= 1.3; every interval that lies below 1 is
  flagged in the table ("below 1");
and, where the matrix ran them, the lock-bound limit rows (OUT/limit/
*.json: MutexBench --limit, throughput over one thread alone's, and min
share, per round): median and 95% interval, against >= 0.9 and >= 0.9.
A row is judged on the median of its per-round ratios: its interval is
printed beside it, so a verdict inside the noise reads as such.
"""
import glob
import json
import math
import os
import sys

import numpy as np

from lockswap_cli import stats

TARGET_APPS_GEOMEAN = 1.15
TARGET_APP_FLOOR = 0.95
TARGET_ROW = 1.0
# Issue 45: real and everyday programs, the lock-bound rows, the limit.
TARGET_PROGRAM_MEDIAN = 1.0
TARGET_PROGRAM_INTERVAL = 0.98
TARGET_LOCKBOUND_GEOMEAN = 1.3
TARGET_LIMIT = 0.9
TARGET_LIMIT_SHARE = 0.9
PROGRAM_GROUPS = ("app", "everyday")
# A row whose lock every arm leaves to glibc (stress-ng's priority-
# inheriting mutex): the noise floor of the run, judged by no target.
CONTROL_GROUPS = ("control",)


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def load_rows(out):
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "rows", "*.group"))):
        name = os.path.basename(path)[:-len(".group")]
        group = open(path).read().strip()
        jpath = os.path.join(out, "rows", name + ".json")
        if not os.path.exists(jpath):
            rows.append((name, group, None))
            continue
        res = json.load(open(jpath))
        res["lockbound"] = os.path.exists(os.path.join(out, "rows", name + ".lockbound"))
        rows.append((name, group, res))
    skipped = {}
    for path in sorted(glob.glob(os.path.join(out, "rows", "*.skipped"))):
        skipped[os.path.basename(path)[:-len(".skipped")]] = open(path).read().strip()
    return rows, skipped


def extra_median(result, label, key):
    vals = [r.get("extras", {}).get(key) for r in result.get("runs", [])
            if r.get("backend") == label and r.get("status") == "ok" and not r.get("warmup")]
    vals = sorted(v for v in vals if isinstance(v, (int, float)))
    if not vals:
        return None
    n = len(vals)
    return vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2


ORDER = {"micro": 0, "latency": 1, "app": 2, "everyday": 3, "control": 4}


def round_ratios(result, label):
    """{round: this arm's 'times better than the baseline'} for one row."""
    base_label = result["backends"][0]["label"]
    lower = result["metric"]["lower_is_better"]
    by = {}
    for r in result.get("runs", []):
        if r.get("status") == "ok" and not r.get("warmup") and r.get("value"):
            by.setdefault(r["round"], {})[r["backend"]] = r["value"]
    out = {}
    for rnd, vals in by.items():
        if base_label in vals and label in vals:
            x = vals[label] / vals[base_label]
            out[rnd] = 1.0 / x if lower else x
    return out


def median_interval(values, seed=1):
    """(median, low, high) of values with a 95% bootstrap interval of the
    median, or None with too few."""
    a = np.asarray([v for v in values if v is not None], dtype=float)
    if a.size < stats.MIN_RUNS:
        return None
    low, high = stats.middle(stats.resampled_medians(a, np.random.default_rng(seed)))
    return float(np.median(a)), low, high


def load_limits(out):
    """OUT/limit/NAME.json: {"arm", "threads", "section", "runs": [{"limit_ratio",
    "min_share", "throughput", "limit_throughput"}, ...]}, as default-matrix.sh
    writes them."""
    found = []
    for path in sorted(glob.glob(os.path.join(out, "limit", "*.json"))):
        found.append((os.path.basename(path)[:-len(".json")], json.load(open(path))))
    return found


def limit_lines(out):
    limits = load_limits(out)
    if not limits:
        return []
    lines = ["", "## Lock-bound: at the limit of one thread alone", "",
             f"MutexBench `--limit`: each run's throughput over one thread alone's at the same "
             f"work (measured first, in the same run), and its min share over the window; "
             f"median [95% interval] over the rounds. Targets: >= {TARGET_LIMIT} and min share "
             f">= {TARGET_LIMIT_SHARE}.", "",
             "| row | arm | threads | section | runs | throughput / one thread alone | min share | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for name, d in limits:
        runs = d.get("runs", [])
        lim = median_interval([r.get("limit_ratio") for r in runs])
        share = median_interval([r.get("min_share") for r in runs], seed=2)
        if lim is None or share is None:
            lines.append(f"| {name} | `{d.get('arm')}` | {d.get('threads')} | {d.get('section')} | "
                         f"{len(runs)} | - | - | too few runs |")
            continue
        ok = lim[0] >= TARGET_LIMIT and share[0] >= TARGET_LIMIT_SHARE
        lines.append(f"| {name} | `{d.get('arm')}` | {d.get('threads')} | {d.get('section')} | "
                     f"{len(runs)} | **{lim[0]:.3f}** [{lim[1]:.3f}, {lim[2]:.3f}] | "
                     f"{share[0]:.3f} [{share[1]:.3f}, {share[2]:.3f}] | "
                     f"{'met' if ok else 'missed'} |")
    return lines


def geomean_interval(app_results, label, seed=1):
    """The apps' geometric mean per round (rounds where every app has both
    arms), then the median of those and a 95% bootstrap interval over
    rounds: the geomean's noise, which one median per app hides."""
    per_app = [round_ratios(res, label) for res in app_results]
    rounds = set.intersection(*(set(a) for a in per_app)) if per_app else set()
    gms = np.asarray([math.exp(sum(math.log(a[r]) for a in per_app) / len(per_app))
                      for r in sorted(rounds)])
    if gms.size < stats.MIN_RUNS:
        return None
    low, high = stats.middle(stats.resampled_medians(gms, np.random.default_rng(seed)))
    return float(np.median(gms)), low, high, int(gms.size)


def header(out):
    lines = ["# The default-backend matrix", ""]
    mpath = os.path.join(out, "machine.txt")
    if os.path.exists(mpath):
        lines += ["```", open(mpath).read().rstrip(), "```", ""]
    return lines


def write(out, lines):
    lines.append("")
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def main(out):
    rows, skipped = load_rows(out)
    if not rows:
        # A run of limit rows alone (ROWS="limit-short-8 ...") has no paired rows.
        limits = limit_lines(out)
        if not limits:
            sys.exit(f"default_matrix_report: no rows under {out}/rows or {out}/limit")
        write(out, header(out) + limits)
        return
    arms = None
    table, per_arm = [], {}
    for name, group, res in sorted(rows, key=lambda r: (ORDER.get(r[1], 9), r[0])):
        if res is None:
            table.append((name, group, None, {}))
            continue
        labels = [b["label"] for b in res["backends"]]
        arms = arms or labels
        lower = res["metric"]["lower_is_better"]
        base = next(s for s in res["summary"] if s["backend"] == labels[0])
        cells = {}
        for p in res.get("paired", []):
            r, lo, hi = stats.times_better(p, lower)
            share = extra_median(res, p["backend"], "min_share")
            cells[p["backend"]] = (r, lo, hi, share, p["rounds"])
            per_arm.setdefault(p["backend"], []).append((name, group, r))
        cells[labels[0]] = (base["median"], None, None, extra_median(res, labels[0], "min_share"),
                            base["n"])
        table.append((name, group, res, cells))
    if arms is None:
        sys.exit("default_matrix_report: no row has a result")

    lines = header(out)
    lines += [f"Cells: times better than `{arms[0]}` (paired median of per-round ratios, "
              "95% interval; for a latency or a wall time, glibc's value over the arm's), "
              "then the median min share where the row has one. "
              f"The `{arms[0]}` column gives its own median (the row's metric). "
              "Group control: a row whose lock every arm leaves to glibc (a "
              "priority-inheriting mutex), the run's noise floor, in no target.", ""]
    lines.append("| row | group | metric | " + " | ".join(f"`{a}`" for a in arms) + " |")
    lines.append("|---|---|---|" + "---|" * len(arms))
    for name, group, res, cells in table:
        if res is None:
            lines.append(f"| {name} | {group} | failed: see rows/{name}.txt |" + " |" * len(arms))
            continue
        m = res["metric"]
        metric = m["name"] + (" (lower better)" if m["lower_is_better"] else "")
        out_cells = []
        for i, a in enumerate(arms):
            c = cells.get(a)
            if c is None:
                out_cells.append("-")
            elif i == 0:
                out_cells.append(f"{c[0]:,.6g}" + (f", share {c[3]:.2f}" if c[3] is not None else ""))
            else:
                s = f"**{fmt(c[0])}** [{fmt(c[1])}, {fmt(c[2])}]"
                if c[2] is not None and c[2] < 1.0:
                    s += " below 1"
                if c[3] is not None:
                    s += f", share {c[3]:.2f}"
                out_cells.append(s)
        tag = " (lock-bound)" if res.get("lockbound") else ""
        lines.append(f"| {name} | {group}{tag} | {metric} | " + " | ".join(out_cells) + " |")
    for name, why in skipped.items():
        lines.append(f"| {name} | - | left out: {why} |" + " |" * len(arms))

    cells_by_row = {name: (group, res, cells) for name, group, res, cells in table}
    lines += ["", "## Against issue 45's targets", "",
              f"Every real-program and everyday-program row: >= {TARGET_PROGRAM_MEDIAN:.2f} at the "
              f"median, no interval entirely below {TARGET_PROGRAM_INTERVAL}; lock-bound rows: "
              f"geometric mean >= {TARGET_LOCKBOUND_GEOMEAN}. Rows whose interval lies below 1 "
              "are flagged in the table above.", ""]
    lines.append("| arm | program rows below 1.00 (median) | intervals entirely below 0.98 | "
                 "intervals below 1 | lock-bound geomean (of medians) | per round: median [95%] | "
                 "everyday geomean, per round | verdict |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for a in arms[1:]:
        below, under98, flagged, lockbound = [], [], [], []
        for name, (group, res, cells) in cells_by_row.items():
            c = cells.get(a) if res is not None else None
            if c is None or c[0] is None:
                continue
            if c[2] is not None and c[2] < 1.0 and group not in CONTROL_GROUPS:
                flagged.append(f"{name} {c[0]:.3f}")
            if group in PROGRAM_GROUPS:
                if c[0] < TARGET_PROGRAM_MEDIAN:
                    below.append(f"{name} {c[0]:.3f}")
                if c[2] is not None and c[2] < TARGET_PROGRAM_INTERVAL:
                    under98.append(f"{name} [{c[1]:.3f}, {c[2]:.3f}]")
            if res.get("lockbound"):
                lockbound.append((res, c[0]))
        lgm = (math.exp(sum(math.log(r) for _, r in lockbound) / len(lockbound))
               if lockbound else None)
        lgi = geomean_interval([r for r, _ in lockbound], a) if lockbound else None
        ev = [res for _, (g, res, _) in cells_by_row.items() if g == "everyday" and res is not None]
        egi = geomean_interval(ev, a) if ev else None
        ok = (not below and not under98 and lgm is not None and lgm >= TARGET_LOCKBOUND_GEOMEAN)
        lines.append(
            f"| `{a}` | {', '.join(below) or 'none'} | {', '.join(under98) or 'none'} | "
            f"{', '.join(flagged) or 'none'} | {fmt(lgm)} ({len(lockbound)} rows) | "
            f"{f'{lgi[0]:.3f} [{lgi[1]:.3f}, {lgi[2]:.3f}]' if lgi else '-'} | "
            f"{f'{egi[0]:.3f} [{egi[1]:.3f}, {egi[2]:.3f}] ({egi[3]} rounds)' if egi else '-'} | "
            f"{'met' if ok else 'missed'}{'' if lockbound else ' (no lock-bound rows ran)'} |")

    lines += ["", "## Against issue 38's targets", "",
              f"Micro and latency rows >= {TARGET_ROW} each; real programs: geometric mean >= "
              f"{TARGET_APPS_GEOMEAN}, none below {TARGET_APP_FLOOR}.", ""]
    app_results = [res for _, g, res, _ in table if g == "app" and res is not None]
    lines.append("| arm | rows below 1.0 | apps geomean (of medians) | per round: median [95%] | "
                 "apps below 0.95 | verdict |")
    lines.append("|---|---|---|---|---|---|")
    for a in arms[1:]:
        vals = per_arm.get(a, [])
        low_rows = [f"{n} {r:.3f}" for n, g, r in vals
                    if g not in PROGRAM_GROUPS + CONTROL_GROUPS and r is not None and r < TARGET_ROW]
        apps = [(n, r) for n, g, r in vals if g == "app" and r]
        gm = math.exp(sum(math.log(r) for _, r in apps) / len(apps)) if apps else None
        low_apps = [f"{n} {r:.3f}" for n, r in apps if r < TARGET_APP_FLOOR]
        ok = not low_rows and not low_apps and (gm is None or gm >= TARGET_APPS_GEOMEAN)
        verdict = ("meets them" if ok else "misses") + (" (no programs ran)" if gm is None else "")
        gi = geomean_interval(app_results, a)
        gi_text = f"{gi[0]:.3f} [{gi[1]:.3f}, {gi[2]:.3f}] ({gi[3]} rounds)" if gi else "-"
        lines.append(f"| `{a}` | {', '.join(low_rows) or 'none'} | {fmt(gm)} ({len(apps)} programs) | "
                     f"{gi_text} | {', '.join(low_apps) or 'none'} | {verdict} |")
    write(out, lines + limit_lines(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: default_matrix_report.py OUT")
    main(sys.argv[1])
