#!/usr/bin/env python3
"""default_matrix_report.py OUT - the table of scripts/default-matrix.sh.

Reads OUT/rows/NAME.json (one `lockswap ab` result per row) and writes
OUT/matrix.md: for every row, each arm's paired ratio to the first arm
(glibc) with its 95% interval, turned into "times better than glibc" so
that > 1 is better in every row (for a lower-is-better metric, such as a
latency or a wall time, the ratio is inverted, interval included); the
min share where the row records it; then, per arm, the geometric mean over
the real programs and the issue's targets:
  micro and latency rows >= 1.0; apps: geomean >= 1.15, none below 0.95.
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
        rows.append((name, group, json.load(open(jpath))))
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


ORDER = {"micro": 0, "latency": 1, "app": 2}


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


def main(out):
    rows, skipped = load_rows(out)
    if not rows:
        sys.exit(f"default_matrix_report: no rows under {out}/rows")
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

    lines = ["# The default-backend matrix", ""]
    mpath = os.path.join(out, "machine.txt")
    if os.path.exists(mpath):
        lines += ["```", open(mpath).read().rstrip(), "```", ""]
    lines += [f"Cells: times better than `{arms[0]}` (paired median of per-round ratios, "
              "95% interval; for a latency or a wall time, glibc's value over the arm's), "
              "then the median min share where the row has one. "
              f"The `{arms[0]}` column gives its own median (the row's metric).", ""]
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
                if c[3] is not None:
                    s += f", share {c[3]:.2f}"
                out_cells.append(s)
        lines.append(f"| {name} | {group} | {metric} | " + " | ".join(out_cells) + " |")
    for name, why in skipped.items():
        lines.append(f"| {name} | - | left out: {why} |" + " |" * len(arms))

    lines += ["", "## Against the targets", "",
              f"Micro and latency rows >= {TARGET_ROW} each; real programs: geometric mean >= "
              f"{TARGET_APPS_GEOMEAN}, none below {TARGET_APP_FLOOR}.", ""]
    app_results = [res for _, g, res, _ in table if g == "app" and res is not None]
    lines.append("| arm | rows below 1.0 | apps geomean (of medians) | per round: median [95%] | "
                 "apps below 0.95 | verdict |")
    lines.append("|---|---|---|---|---|---|")
    for a in arms[1:]:
        vals = per_arm.get(a, [])
        low_rows = [f"{n} {r:.3f}" for n, g, r in vals if g != "app" and r is not None and r < TARGET_ROW]
        apps = [(n, r) for n, g, r in vals if g == "app" and r]
        gm = math.exp(sum(math.log(r) for _, r in apps) / len(apps)) if apps else None
        low_apps = [f"{n} {r:.3f}" for n, r in apps if r < TARGET_APP_FLOOR]
        ok = not low_rows and not low_apps and (gm is None or gm >= TARGET_APPS_GEOMEAN)
        verdict = ("meets them" if ok else "misses") + (" (no programs ran)" if gm is None else "")
        gi = geomean_interval(app_results, a)
        gi_text = f"{gi[0]:.3f} [{gi[1]:.3f}, {gi[2]:.3f}] ({gi[3]} rounds)" if gi else "-"
        lines.append(f"| `{a}` | {', '.join(low_rows) or 'none'} | {fmt(gm)} ({len(apps)} programs) | "
                     f"{gi_text} | {', '.join(low_apps) or 'none'} | {verdict} |")
    lines.append("")
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: default_matrix_report.py OUT")
    main(sys.argv[1])
