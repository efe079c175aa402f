"""PNG line plots of a sweep (matplotlib, Agg backend: no display needed)."""
from .errors import ToolError

DODGE = 0.03
# Past this ratio between the largest and smallest positive median a linear
# axis flattens the slow lines onto zero: switch to a log axis.
LOG_SPAN = 30
MARKERS = "osD^v<>pPhX*"


def pyplot():
    """matplotlib.pyplot on the Agg backend, or a one-line ToolError."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ToolError("plots need matplotlib (Debian: apt-get install python3-matplotlib)") from None
    return plt


def lines(path, series, title, ylabel, xlabel="threads", note=None):
    """One line per label over the thread counts, the median as the point
    and min..max as an error bar; log2 x axis.  The lines are drawn a hair
    apart sideways (DODGE of an octave each) so their bars do not hide
    each other; the ticks stay at the true thread counts.
    series: {label: [(threads, median, low, high), ...]} (None medians skipped)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.5, 5.2), dpi=110)
    xs_all = set()
    mid = (len(series) - 1) / 2
    # tab20 gives every line its own colour up to 20 lines; markers cycle
    # on a different period so colour + marker stays unique further.
    colours = plt.get_cmap("tab20" if len(series) > 10 else "tab10").colors
    medians = [p[1] for pts in series.values() for p in pts if p[1] is not None and p[1] > 0]
    log_y = bool(medians) and max(medians) / min(medians) > LOG_SPAN
    for i, (label, points) in enumerate(series.items()):
        pts = [p for p in points if p[1] is not None]
        if not pts:
            continue
        xs_all.update(p[0] for p in pts)
        xs = [p[0] * 2 ** ((i - mid) * DODGE) for p in pts]
        ys = [p[1] for p in pts]
        err = [[y - p[2] for y, p in zip(ys, pts)], [p[3] - y for y, p in zip(ys, pts)]]
        ax.errorbar(xs, ys, yerr=err, marker=MARKERS[i % len(MARKERS)], markersize=4, capsize=3,
                    color=colours[i % len(colours)], label=legend_label(label))
    ax.set_xscale("log", base=2)
    ticks = sorted(xs_all)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    ax.grid(True, alpha=0.3)
    if log_y:
        ax.set_yscale("log")
        ax.set_ylabel(ylabel + " (log scale)")
    else:
        ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    if note:
        fig.text(0.01, 0.01, note, fontsize=7, color="0.4")
    fig.tight_layout(rect=(0, 0.03 if note else 0, 1, 1))
    return save(plt, fig, path)


def legend_label(text):
    """text as a legend entry: matplotlib hides entries whose label starts
    with "_" (its mark for "no legend"), which C++ mangled names (_ZN...)
    and many C symbols do; a leading space keeps them shown."""
    text = str(text)
    return " " + text if text.startswith("_") else text


def save(plt, fig, path):
    """Write the figure to path (a ToolError naming it if that fails) and
    release it; returns path."""
    try:
        fig.savefig(path)
    except OSError as e:
        raise ToolError(f"cannot write {path}: {e.strerror}") from None
    finally:
        plt.close(fig)
    return path
