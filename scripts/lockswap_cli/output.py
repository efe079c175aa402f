"""Tables on stdout and the files of --out PREFIX (.md, .csv, .json)."""
import csv
import json
import os

from .errors import ToolError, UsageError


def fmt_value(v):
    """Measured values: thousands grouped above 10,000, else 4 digits."""
    if v is None:
        return "-"
    if abs(v) >= 1e4:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.3f}"


def fmt_ci(low, high):
    return "-" if low is None else f"[{low:.3f}, {high:.3f}]"


def text_table(headers, rows, left=(0,)):
    """Fixed-width columns; the columns in `left` are left-aligned, the
    rest right-aligned.  The last column never gets trailing blanks."""
    cells = [list(map(str, headers))] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [c.ljust(widths[i]) if i in left else c.rjust(widths[i]) for i, c in enumerate(r)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def md_table(headers, rows, left=(0,)):
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [headers] + list(rows)]
    rule = [":---" if i in left else "---:" for i in range(len(headers))]
    return "\n".join("| " + " | ".join(r) + " |" for r in [esc[0], rule] + esc[1:])


SUMMARY_HEADERS = ("backend", "good", "failed", "median", "min", "max",
                   "ratio", "95% CI", "verdict")
SUMMARY_LEFT = (0, 8)


def summary_rows(rows):
    """Rows of the per-backend table from Measurement.summarize rows."""
    def v(x, unit):  # "0.1268 s" for wall time: a bare number hides the unit
        return fmt_value(x) + (f" {unit}" if unit and x is not None else "")
    return [(r["backend"], r["n"], r["failed"], v(r["median"], r.get("unit", "")),
             v(r["min"], r.get("unit", "")), v(r["max"], r.get("unit", "")),
             fmt_ratio(r["ratio"]),
             fmt_ci(r["ci_low"], r["ci_high"]), r["verdict"]) for r in rows]


def check_prefix(prefix):
    """Create PREFIX's folder now, so a bad --out fails before any run."""
    folder = os.path.dirname(os.path.abspath(prefix))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {prefix}: cannot create {folder}: {e.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise UsageError(f"--out {prefix}: {folder} is not writable")
    if os.path.isdir(prefix):
        raise UsageError(f"--out {prefix}: is a folder; give a file prefix such as {prefix}/result")
    return prefix


def _open(path):
    try:
        return open(path, "w", encoding="utf-8", newline="")
    except OSError as e:
        raise ToolError(f"cannot write {path}: {e.strerror}") from None


def write_text(path, text):
    with _open(path) as f:
        f.write(text if text.endswith("\n") else text + "\n")
    return path


def write_json(path, obj):
    with _open(path) as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    return path


def unique_columns(columns):
    """A column named twice (an --extra-key seconds beside the run's own
    seconds) gets "json:" before its later occurrences."""
    seen, out = set(), []
    for c in columns:
        out.append(f"json:{c}" if c in seen else c)
        seen.add(c)
    return out


def write_csv(path, columns, rows):
    with _open(path) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(unique_columns(columns))
        for r in rows:
            w.writerow(["" if c is None else c for c in r])
    return path


RUN_COLUMNS = ("round", "position", "backend", "value", "exit_status", "seconds", "status")


def run_rows(runs, with_group=False, keys=()):
    """CSV rows of measured runs (warm-ups excluded), in execution order;
    columns RUN_COLUMNS (after the group if with_group), then the keys."""
    out = []
    for r in runs:
        if r.warmup:
            continue
        row = (r.round, r.position, r.backend, r.value, r.exit_status,
               None if r.seconds is None else round(r.seconds, 6), r.status)
        row += tuple(r.extras.get(k) for k in keys)
        out.append(((r.group,) + row) if with_group else row)
    return out
