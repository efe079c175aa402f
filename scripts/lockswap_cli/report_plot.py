"""`lockswap report --plot OUT.png`: the wait-time histograms of the top
locks (of file A; with two files, B's dashed beside A's solid)."""
from . import plot as plots
from .histogram import edges
from .report_tables import brief
from .stats_file import lock_label, mutexes


def plot(docs, path, top):
    plt = plots.pyplot()
    first = sorted(mutexes(docs[0]), key=lambda l: -l["wait"]["estimated_total_ns"])
    labels = [lock_label(l) for l in first if l["wait"]["samples"]][:top]
    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=110)
    styles = ("-", "--")
    for k, doc in enumerate(docs):
        locks = {lock_label(l): l for l in mutexes(doc)}
        for i, name in enumerate(labels):
            l = locks.get(name)
            if not l or not l["wait"]["samples"]:
                continue
            hist = l["wait"]["hist"]
            xs = [max(1, x) for x in edges(len(hist))]  # 1: the axis is logarithmic
            ax.stairs(hist, xs, linestyle=styles[k % 2], color=f"C{i % 10}",
                      label=plots.legend_label(
                          f"{brief(name)}" + (f" ({'AB'[k]}: {doc['backend']})" if len(docs) > 1 else "")))
    ax.set_xscale("log")
    ax.set_xlabel("wait time (ns, log2 buckets)")
    ax.set_ylabel("sampled contended waits")
    ax.set_title("lock wait-time histograms" + (" - A solid, B dashed" if len(docs) > 1 else ""),
                 fontsize=11)
    ax.grid(True, alpha=0.3)
    if labels:
        ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, "no sampled contended waits", transform=ax.transAxes, ha="center")
    fig.tight_layout()
    plots.save(plt, fig, path)
