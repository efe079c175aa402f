"""PNG of a fleet comparison: one panel per measure, one column of dots per
arm (one dot per process, spread sideways so equal values stay visible),
the arm's median as a bar and its verdict under the arm's name."""
from . import axis_labels, plot

SPREAD = 0.28


def spread(n):
    """Sideways offsets of n dots, evenly over [-SPREAD, SPREAD] (not random,
    so the same files give the same picture)."""
    if n < 2:
        return [0.0] * n
    return [-SPREAD + 2 * SPREAD * i / (n - 1) for i in range(n)]


def panel(ax, arms, measure, rows):
    names = [r["arm"] for r in rows]
    for x, row in enumerate(rows):
        values = sorted(p.values[measure.key] for p in arms[row["arm"]]
                        if p.values.get(measure.key) is not None)
        ax.scatter([x + d for d in spread(len(values))], values, s=12, alpha=0.7,
                   color=f"C{x % 10}", zorder=3)
        if row["median"] is not None:
            ax.hlines(row["median"], x - 0.4, x + 0.4, color="black", linewidth=2, zorder=4)
    ax.set_xticks(range(len(rows)))
    # "no clear difference" on two lines, or neighbouring labels overlap.
    ax.set_xticklabels([f"{n}\n" + (r["verdict"] or "").replace("no clear ", "no clear\n")
                        for n, r in zip(names, rows)], fontsize=7)
    better = "lower" if measure.lower_is_better else "higher"
    ax.set_title(f"{axis_labels.readable(measure.name)} ({better} is better)", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    if measure.key == "p99_wait_ns":
        ax.set_ylabel("ns")
    # Across a fleet a measure can span orders of magnitude; on a linear axis
    # most processes then sit on zero (plot.LOG_SPAN, as the sweep plots do).
    shown = [p.values[measure.key] for r in rows for p in arms[r["arm"]]
             if p.values.get(measure.key) is not None]
    if shown and min(shown) > 0 and max(shown) / min(shown) > plot.LOG_SPAN:
        ax.set_yscale("log")


def footnote(measures):
    """What a verdict means, for the measures shown: most are compared by
    ratio, a share near 0 by difference (fleet_compare.Measure)."""
    by_diff = [m.name for m in measures if m.by_difference]
    text = ("one dot per process; bar = median; verdict: the 95% bootstrap CI of the ratio to "
            "the baseline's median excludes 1.0")
    if by_diff:
        text += (f" (for {', '.join(by_diff)}: the CI of the difference from the baseline's "
                 "median excludes 0)")
    return text


def draw(path, arms, results, title):
    """results: [(Measure, compare rows)] as fleet_compare.compare_all gives."""
    plt = plot.pyplot()
    cols = len(results)
    fig, axes = plt.subplots(1, cols, figsize=(3.6 * cols, 4.4), dpi=110, squeeze=False)
    for ax, (measure, rows) in zip(axes[0], results):
        panel(ax, arms, measure, rows)
    fig.suptitle(title, fontsize=10)
    fig.text(0.01, 0.01, footnote([m for m, _ in results]), fontsize=7, color="0.4")
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    return plot.save(plt, fig, path)
