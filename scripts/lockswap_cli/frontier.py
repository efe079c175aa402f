"""The fairness-against-throughput picture of `ab` and `sweep`.

One point per backend: x is its speed relative to the baseline (the first
backend), y its fairness (a JSON key of the runs, min_share by default).
The point sits at the medians of the good measured runs; the bars span the
rounds (min..max), x as each run's value over the baseline's median.  The
backends that no other backend beats on both axes form the frontier, drawn
as a dashed line: a user picks from those, and sees at a glance what a
backend's fairness costs in speed.  `sweep` draws one panel per thread count.
"""
from . import stats

DEFAULT_KEY = "min_share"
# Past this ratio between the fastest and slowest point a linear x axis
# squeezes the slow backends onto zero: switch to a log axis.  Decided
# once for all the panels of a figure, so that every panel reads the same
# way (a linear 1-thread panel beside log ones misled).
LOG_SPAN = 30
MAX_PANELS_PER_ROW = 4


def add_argument(parser):
    parser.add_argument("--fairness-key", default=DEFAULT_KEY, metavar="KEY",
                        help=f"JSON key of each run taken as fairness (default {DEFAULT_KEY}); "
                             "with --out, the frontier plot has it as y")


def speed(value, base, lower_is_better):
    """value relative to base, > 1 when faster whichever way the metric
    goes (for a time, base / value)."""
    if base is None or value is None or base == 0 or (lower_is_better and value == 0):
        return None
    return base / value if lower_is_better else value / base


def points(plan, runs, group, key):
    """[{label, x, x_low, x_high, y, y_low, y_high, frontier}] of one group,
    the backends with at least one good run that printed the key; []
    when the baseline has no good run."""
    lower = plan.metric.lower_is_better
    base = stats.describe(plan.good(runs, group, plan.labels[0]))["median"]
    out = []
    for label in plan.labels:
        values = [r.value for r in runs if not r.warmup and r.ok and r.group == group
                  and r.backend == label and key in r.extras]
        fair = plan.good(runs, group, label, key)
        if not values or base is None:
            continue
        xs = [speed(v, base, lower) for v in values]
        if any(x is None for x in xs):
            continue
        x, y = stats.describe(xs), stats.describe(fair)
        out.append({"label": label, "x": x["median"], "x_low": x["min"], "x_high": x["max"],
                    "y": y["median"], "y_low": y["min"], "y_high": y["max"]})
    mark_frontier(out)
    return out


def mark_frontier(pts):
    """Set p["frontier"]: no other point is at least as fast and as fair
    and strictly better on one of the two."""
    for p in pts:
        p["frontier"] = not any(q is not p and q["x"] >= p["x"] and q["y"] >= p["y"]
                                and (q["x"] > p["x"] or q["y"] > p["y"]) for q in pts)
    return pts


def available(runs, key):
    return any(key in r.extras for r in runs if not r.warmup and r.ok)


def grid(n):
    """(rows, columns) for n panels: no empty cell where some layout of at
    most MAX_PANELS_PER_ROW columns has none (4 panels: 2 x 2, not 3 + 1
    with two empty cells), else the fewest empty cells; then the squarest
    (panels wide enough to read in a markdown page), then the fewest rows."""
    import math
    if n <= 3:
        return 1, max(n, 1)
    best = min(range(2, MAX_PANELS_PER_ROW + 1),
               key=lambda c: (math.ceil(n / c) * c - n, abs(math.ceil(n / c) - c),
                              math.ceil(n / c)))
    return math.ceil(n / best), best


def log_x(panels):
    """Whether the figure's x axes are logarithmic: when any panel's
    points span more than LOG_SPAN."""
    for _, pts in panels:
        xs = [v for p in pts for v in (p["x_low"], p["x_high"]) if v > 0]
        if xs and max(xs) / min(xs) > LOG_SPAN:
            return True
    return False


def draw(path, panels, key, plan, note=None):
    """panels: [(title, points)]; writes one PNG, a panel each; returns path."""
    from . import label_place, plot
    import math
    plt = plot.pyplot()
    n = len(panels)
    rows, cols = grid(n)
    logarithmic = log_x(panels)
    width = 5.2 * cols + 0.4
    # the note (the command) wrapped to the figure's width: a long command
    # line would run off the right edge
    note_lines = wrap(note, width) if note else []
    note_h = 0.13 * len(note_lines) + 0.05 if note_lines else 0.0
    height = 4.4 * rows + 0.8 + note_h         # inches: panels, then title, legend, note
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), dpi=110, squeeze=False)
    colours = plt.get_cmap("tab20" if len(plan.labels) > 10 else "tab10").colors
    colour = {label: colours[i % len(colours)] for i, label in enumerate(plan.labels)}
    base = plan.labels[0]
    for ax, (title, pts) in zip(axes.flat, panels):
        panel(ax, title, pts, colour, base, key, logarithmic)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    handles = [plt.Line2D([], [], marker="o", linestyle="", color=colour[l], label=l)
               for l in plan.labels]
    handles.append(plt.Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor=FRONT,
                              linestyle=FRONT_STYLE, color=FRONT, label="frontier"))
    ncol = min(len(handles), 4 * cols)
    legend_rows = math.ceil(len(handles) / ncol)
    fig.legend(handles=handles, fontsize=8, loc="lower center", ncol=ncol, frameon=False,
               bbox_to_anchor=(0.5, note_h / height))
    fig.suptitle(f"fairness against speed relative to {base} (up and right is better)",
                 fontsize=10)
    if note_lines:
        fig.text(0.01, 0.04 / height, "\n".join(note_lines), fontsize=7, color="0.4",
                 va="bottom", linespacing=1.3)
    bottom = (note_h + 0.25 * legend_rows + 0.1) / height
    fig.tight_layout(rect=(0, bottom, 1, 1 - 0.1 / height))
    # labels last: their spots are chosen on the axes' final size and scales
    for ax, (_, pts) in zip(axes.flat, panels):
        label_place.place(ax, [(p["label"], p["x"], p["y"], colour[p["label"]]) for p in pts],
                          obstacles=bars(pts))
    return plot.save(plt, fig, path)


def bars(pts):
    """The error bars of the points, as segments (label_place obstacles)."""
    return [seg for p in pts for seg in (((p["x_low"], p["y"]), (p["x_high"], p["y"])),
                                         ((p["x"], p["y_low"]), (p["x"], p["y_high"])))]


def wrap(text, width_inches, fontsize=7):
    """text in lines that fit width_inches at fontsize (about 0.55 em a
    character), broken at spaces."""
    import textwrap
    return textwrap.wrap(text, max(20, int(width_inches * 72 / (0.55 * fontsize))),
                         break_long_words=True, break_on_hyphens=False)


FRONT = "0.15"          # the frontier's line and the rings of its points
FRONT_STYLE = (0, (4, 2))


def panel(ax, title, pts, colour, base, key, logarithmic=False):
    from . import axis_labels
    for p in pts:
        ax.errorbar([p["x"]], [p["y"]],
                    xerr=[[p["x"] - p["x_low"]], [p["x_high"] - p["x"]]],
                    yerr=[[p["y"] - p["y_low"]], [p["y_high"] - p["y"]]],
                    marker="o", markersize=5, capsize=3, elinewidth=1, alpha=0.9,
                    color=colour[p["label"]], linestyle="", zorder=2)
    front = sorted((p for p in pts if p["frontier"]), key=lambda p: p["x"])
    # Over the points and their bars, not under them (under them it was
    # hidden wherever two frontier points sit close): a dark dashed line,
    # and a dark ring on each frontier point.
    if len(front) > 1:
        ax.plot([p["x"] for p in front], [p["y"] for p in front], linestyle=FRONT_STYLE,
                color=FRONT, linewidth=1.3, zorder=4)
    if front:
        ax.plot([p["x"] for p in front], [p["y"] for p in front], "o", markersize=9,
                markerfacecolor="none", markeredgecolor=FRONT, markeredgewidth=1.2, zorder=4)
    if logarithmic:
        from matplotlib import ticker
        ax.set_xscale("log")
        # plain numbers (0.01, 0.1, 1, and 0.7, 0.8 on a short span), not 10^-1 or 7x10^-1
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        xs = [v for p in pts for v in (p["x_low"], p["x_high"]) if v > 0]
        short = bool(xs) and max(xs) / min(xs) < 10  # under a decade: few ticks, label them
        ax.xaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}") if short
                                     else ticker.NullFormatter())
        ax.tick_params(axis="x", which="minor", labelsize=7)
        ax.tick_params(axis="x", which="major", labelsize=8)
    ax.axvline(1.0, color="0.75", linewidth=0.8, zorder=0)
    ys = [v for p in pts for v in (p["y_low"], p["y_high"])]
    if ys and min(ys) >= 0 and max(ys) <= 1.0:
        ax.set_ylim(0, 1.05)       # a share or an index: the whole [0, 1] range
    ax.set_xlabel(f"speed relative to {base} (median; bars: rounds' min..max)", fontsize=8)
    ax.set_ylabel(axis_labels.readable(key), fontsize=8)
    ax.set_title(title if pts else f"{title}: no runs with {key}", fontsize=9)
    ax.grid(True, alpha=0.3)


def write_sweep(plan, prefix, runs, key):
    """PREFIX-frontier.png, a panel per thread count; [] when no run
    printed the key."""
    if not available(runs, key):
        return []
    panels = [(f"{t} thread{'s' * (t != 1)}", points(plan, runs, t, key)) for t in plan.groups]
    return [draw(prefix + "-frontier.png", panels, key, plan, note=_note(plan))]


def write_ab(plan, prefix, runs, key):
    """PREFIX-frontier.png, one panel; [] when no run printed the key."""
    if not available(runs, key):
        return []
    return [draw(prefix + "-frontier.png", [("", points(plan, runs, None, key))], key, plan,
                 note=_note(plan))]


def _note(plan):
    return f"{plan.command_text()}  ({plan.args.runs} rounds, interleaved)"
