"""lockswap report: read the JSON that LOCKSWAP_STATS_FILE writes and show
it - the top locks, call sites or threads, an A/B comparison of two
profiles, flame-graph input, a plot of the wait-time histograms."""
import os

from .errors import ToolError, UsageError
from .output import text_table
from . import by_arm
from . import callsite
from . import debug_hint
from . import lock_order
from . import plot as plots
from . import pprof
from . import symbolize
from .measure import natural_int
# Reading a statistics file is stats_file's; the names stay here too.
from .stats_file import (SCHEMA, SCHEMA_VERSION, condvars, fmt_ns, frame_full_name,  # noqa: F401
                         frame_text, load, lock_label, mutexes, site_text, stack_text,
                         timed)

SUMMARY = "show or compare lock statistics files (LOCKSWAP_STATS_FILE)"
DESCRIPTION = """\
Render the statistics a program wrote with LOCKSWAP_STATS=summary|full and
LOCKSWAP_STATS_FILE=FILE.json (see docs/stats.md):

  lockswap report FILE.json                  top mutexes by total wait
  lockswap report FILE.json --by site        contended call sites
  lockswap report FILE.json --by thread      threads and their acquisitions
  lockswap report A.json B.json              compare two profiles (A/B)
  lockswap report FILE.json --folded OUT     flame-graph input (waiter stacks)
  lockswap report FILE.json --pprof OUT.pb.gz  pprof profile (go tool pprof -top OUT.pb.gz)
  lockswap report FILE.json --plot OUT.png   wait-time histograms of the top locks
  lockswap report --by-arm FILES...          compare the arms of a fleet (docs/fleet.md)

Counts are exact; times are sampled (1 in `sample`) and totals scaled.
Exit status: 0, 1 if an output file cannot be written, 2 for a bad file
or flag."""

def add_arguments(parser):
    parser.add_argument("files", nargs="+", metavar="FILE.json",
                        help="one statistics file, or two (A B) to compare, or with --by-arm "
                             "any number")
    parser.add_argument("--top", type=int, default=10, metavar="N",
                        help="rows to show (default 10)")
    parser.add_argument("--by", choices=("lock", "site", "thread"), default="lock",
                        help="group by lock (default), by contended call site, or by thread")
    parser.add_argument("--folded", metavar="OUT",
                        help="write folded stacks of wait time (flamegraph.pl input) to OUT")
    parser.add_argument("--pprof", metavar="OUT.pb.gz",
                        help="write the contended waits as a gzipped pprof profile (sample types "
                             "contentions/count and delay/nanoseconds, as Go's mutex profile)")
    parser.add_argument("--holders", action="store_true",
                        help="with --folded or --pprof: the holders' stacks instead of the "
                             "waiters'")
    parser.add_argument("--plot", metavar="PNG", help="write the wait-time histograms of the top locks")
    parser.add_argument("--debug-dir", action="append", default=[], metavar="DIR",
                        help="separate debug information for file:line, as DIR/.build-id/xx/"
                             "rest.debug (repeatable; searched before /usr/lib/debug and "
                             "debuginfod's cache)")
    fleet = parser.add_argument_group(
        "fleet comparison", "--by-arm: many processes' files grouped by their arm (LOCKSWAP_ARMS)\n"
        "or backend; see docs/fleet.md.")
    fleet.add_argument("--by-arm", action="store_true",
                       help="compare arms: per-arm medians, ratio to the baseline with a 95%% "
                            "bootstrap CI and a verdict, and locks merged by call site")
    fleet.add_argument("--baseline", metavar="ARM",
                       help="the arm the others are compared with (default: the first arm of "
                            "LOCKSWAP_ARMS, else glibc, else the first by name)")
    fleet.add_argument("--metric", metavar="KEY",
                       help="also compare the application's number KEY (a dotted path) read "
                            "from X.app.json next to each X.json")
    fleet.add_argument("--lower-is-better", action="store_true",
                       help="with --metric: smaller values are better (latency, time)")
    fleet.add_argument("--out", metavar="PREFIX",
                       help="also write PREFIX.md, PREFIX.csv, PREFIX.json and PREFIX.png")
    fleet.add_argument("--seed", type=natural_int, default=1, metavar="S",
                       help="seed of the bootstrap (default 1)")


def header(doc):
    mode = ("full (every event timed)" if doc["mode"] == "full"
            else f"summary (times sampled 1 in {doc['sample']})")
    return (f"{doc['_path']}: {os.path.basename(doc['program'])} pid {doc['pid']}, backend "
            f"{doc['backend']}, {mode}, {fmt_ns(doc['elapsed_ns'])}, {len(mutexes(doc))} mutexes, "
            f"{len(condvars(doc))} condvars, {len(doc['threads'])} threads ({doc['reason']} dump)")


# ---- one file ----

def brief(text):
    """A name as a table shows it: template arguments shortened."""
    return callsite.short_templates(text)


def by_lock(doc, top):
    rows = []
    for l in sorted(mutexes(doc), key=lambda l: -l["wait"]["estimated_total_ns"])[:top]:
        f = l["fairness"]
        acq = l["acquisitions"]
        rows.append((l["id"], brief(lock_label(l)), acq, l["contended"],
                     f"{100 * l['contended'] / acq:.2f}" if acq else "-",
                     fmt_ns(timed(l["wait"], "estimated_total_ns")), fmt_ns(timed(l["wait"], "p50_ns")),
                     fmt_ns(timed(l["wait"], "p99_ns")), fmt_ns(timed(l["wait"], "p999_ns")),
                     fmt_ns(timed(l["hold"], "p50_ns")), fmt_ns(timed(l["hold"], "p99_ns")),
                     l["owner_changes"], f["threads"],
                     f"{100 * f['min_share']:.1f}" if f["threads"] else "-",
                     f"{100 * f['max_share']:.1f}" if f["threads"] else "-",
                     f"{f['jain']:.3f}" if f["threads"] else "-", l["served_by"], brief(site_text(l))))
    out = [text_table(("id", "lock", "acquired", "contended", "cont%", "wait total", "wait p50",
                       "wait p99", "wait p99.9", "hold p50", "hold p99", "owner chg", "thr",
                       "min%", "max%", "jain", "served", "first used at"), rows, left=(1, 16, 17))]
    conds = sorted(condvars(doc), key=lambda l: -l["waits"])[:top]
    if conds:
        ids = {l["id"]: brief(lock_label(l)) for l in mutexes(doc)}
        rows = [(l["id"], brief(lock_label(l)), l["waits"], l["timeouts"], l["signals"], l["broadcasts"],
                 fmt_ns(timed(l["wait"], "p50_ns")), fmt_ns(timed(l["wait"], "p99_ns")),
                 ids.get(l["mutex"], "-"), brief(site_text(l))) for l in conds]
        out += ["", text_table(("id", "condvar", "waits", "timeouts", "signals", "broadcasts",
                                "wait p50", "wait p99", "mutex", "first used at"), rows,
                               left=(1, 8, 9))]
    return "\n".join(out)


def event_scale(lock, event):
    """Sampled wait -> estimated wait, per lock (an rwlock's, per mode)."""
    w = lock[event["mode"]]["wait"] if "mode" in event else lock["wait"]
    return w["estimated_total_ns"] / w["sampled_total_ns"] if w["sampled_total_ns"] else 1.0


def site_of(doc, stack_id, fallback):
    frames = doc["_stacks"].get(stack_id) if stack_id else None
    return stack_text(frames or [fallback])


def by_site(doc, top):
    sites = {}
    for l in doc["locks"]:
        for e in l["contention"]:
            scale = event_scale(l, e)
            key = site_of(doc, e["waiter_stack"], e["waiter_site"])
            s = sites.setdefault(key, {"count": 0, "wait": 0.0, "locks": set(), "holders": {}})
            s["count"] += e["count"] * scale
            s["wait"] += e["estimated_wait_ns"]
            s["locks"].add(lock_label(l))
            h = site_of(doc, e["holder_stack"], e["holder_site"])
            s["holders"][h] = s["holders"].get(h, 0) + e["estimated_wait_ns"]
    total = sum(s["wait"] for s in sites.values()) or 1
    rows = []
    for name, s in sorted(sites.items(), key=lambda kv: -kv[1]["wait"])[:top]:
        holder = max(s["holders"].items(), key=lambda kv: kv[1])[0] if s["holders"] else "-"
        rows.append((brief(name), f"{s['count']:.0f}", fmt_ns(s["wait"]), f"{100 * s['wait'] / total:.1f}",
                     ", ".join(brief(n) for n in sorted(s["locks"])), brief(holder)))
    if not rows:
        return "no sampled contended waits"
    return text_table(("waiting at", "waits (est.)", "wait (est.)", "wait%", "locks",
                       "mostly blocked by"), rows, left=(0, 4, 5))


def by_thread(doc, top):
    threads = {t["id"]: {"t": t, "acq": 0, "cont": 0, "locks": 0, "waits": 0} for t in doc["threads"]}
    for l in doc["locks"]:
        for p in l["per_thread"]:
            r = threads.setdefault(p["thread"], {"t": {"id": p["thread"], "tid": "?", "name": "?",
                                                      "alive": False},
                                                "acq": 0, "cont": 0, "locks": 0, "waits": 0})
            if l["type"] == "mutex":
                r["acq"] += p["acquisitions"]
                r["cont"] += p["contended"]
                r["locks"] += 1
            elif l["type"] == "condvar":
                r["waits"] += p["waits"]
    rows = [(r["t"]["id"], r["t"]["tid"], r["t"]["name"], "yes" if r["t"]["alive"] else "no",
             r["acq"], r["cont"], f"{100 * r['cont'] / r['acq']:.2f}" if r["acq"] else "-",
             r["locks"], r["waits"])
            for r in sorted(threads.values(), key=lambda r: -r["acq"])[:top]]
    return text_table(("thread", "tid", "name", "alive", "acquired", "contended", "cont%",
                       "mutexes", "cond waits"), rows, left=(2, 3))


# ---- two files ----

def ratio(a, b):
    return f"{b / a:.2f}" if a and b is not None else "-"


def compare(a, b, top):
    la = {lock_label(l): l for l in mutexes(a)}
    lb = {lock_label(l): l for l in mutexes(b)}
    names = sorted(set(la) | set(lb), key=lambda n: -max(
        la[n]["wait"]["estimated_total_ns"] if n in la else 0,
        lb[n]["wait"]["estimated_total_ns"] if n in lb else 0))[:top]
    rows = []
    for n in names:
        x, y = la.get(n), lb.get(n)
        wx = timed(x["wait"], "estimated_total_ns") if x else None
        wy = timed(y["wait"], "estimated_total_ns") if y else None
        rows.append((brief(n), x["acquisitions"] if x else "-", y["acquisitions"] if y else "-",
                     x["contended"] if x else "-", y["contended"] if y else "-",
                     fmt_ns(wx), fmt_ns(wy), ratio(wx, wy),
                     fmt_ns(timed(x["wait"], "p99_ns")) if x else "-",
                     fmt_ns(timed(y["wait"], "p99_ns")) if y else "-",
                     f"{x['fairness']['jain']:.3f}" if x and x["fairness"]["threads"] else "-",
                     f"{y['fairness']['jain']:.3f}" if y and y["fairness"]["threads"] else "-"))
    tot = [sum(l["wait"]["estimated_total_ns"] for l in mutexes(d)) for d in (a, b)]
    acq = [sum(l["acquisitions"] for l in mutexes(d)) for d in (a, b)]
    lines = [f"A = {header(a)}", f"B = {header(b)}", "",
             text_table(("lock", "acq A", "acq B", "cont A", "cont B", "wait A", "wait B",
                         "wait B/A", "p99 A", "p99 B", "jain A", "jain B"), rows),
             "", f"all mutexes: acquisitions A {acq[0]}, B {acq[1]}; total wait A {fmt_ns(tot[0])}, "
                 f"B {fmt_ns(tot[1])} (B/A {ratio(tot[0], tot[1])})"]
    return "\n".join(lines)


# ---- files ----

def folded_lines(doc, holders=False):
    lines = {}
    for l in doc["locks"]:
        for e in l["contention"]:
            scale = event_scale(l, e)
            sid = e["holder_stack"] if holders else e["waiter_stack"]
            frames = doc["_stacks"].get(sid) if sid else None
            names = [frame_text(f, False) for f in frames] if frames else \
                [frame_text(e["holder_site"] if holders else e["waiter_site"], False)]
            stack = ";".join(n.replace(";", "_") for n in reversed(names))
            key = f"{stack};[{l['type']} {l['id']} {lock_label(l).replace(';', '_')}]"
            lines[key] = lines.get(key, 0) + e["wait_ns"] * scale
    return [f"{k} {round(v)}" for k, v in lines.items() if round(v) > 0]


def write_pprof(path, doc, holders):
    """Write the profile; returns the line that says what it holds."""
    try:
        counts = pprof.write(path, doc, holders, frame_full_name, event_scale, lock_label)
        return (f"{path}: {counts.text()} (view: go tool pprof -top {path}, "
                f"or -list FUNCTION for the source lines)")
    except OSError as e:
        raise ToolError(f"cannot write {path}: {e.strerror}") from None


def write_text(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise ToolError(f"cannot write {path}: {e.strerror}") from None


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
            xs = [max(1, 2 ** b) for b in range(len(hist))] + [2 ** len(hist)]
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


FLEET_ONLY = ("baseline", "metric", "lower_is_better", "out")


def main(args):
    if args.top < 1:
        raise UsageError("--top must be at least 1")
    for d in args.debug_dir:
        if not os.path.isdir(d):
            raise UsageError(f"--debug-dir {d}: not a directory")
    symbolize.set_debug_dirs(args.debug_dir)
    if args.by_arm:
        if args.folded or args.pprof or args.plot or args.by != "lock":
            raise UsageError("--by-arm takes none of --by, --folded, --pprof, --plot (see --out)")
        return by_arm.main(args)
    used = [f"--{k.replace('_', '-')}" for k in FLEET_ONLY if getattr(args, k)]
    if used:
        raise UsageError(f"{used[0]} goes with --by-arm")
    if len(args.files) > 2:
        raise UsageError("give one statistics file, or two to compare (or many with --by-arm)")
    if args.holders and not (args.folded or args.pprof):
        raise UsageError("--holders goes with --folded or --pprof")
    docs = [load(p) for p in args.files]
    if args.folded:
        write_text(args.folded, "".join(line + "\n" for line in folded_lines(docs[-1], args.holders)))
    said = write_pprof(args.pprof, docs[-1], args.holders) if args.pprof else None
    if args.plot:
        plot(docs, args.plot, args.top)
    if args.folded or args.pprof or args.plot:  # a file was asked for, not the report
        print("wrote " + ", ".join(said if p == args.pprof else p
                                   for p in (args.folded, args.pprof, args.plot) if p))
        return 0
    if len(docs) == 2:
        print(compare(docs[0], docs[1], args.top))
        return 0
    doc = docs[0]
    body = {"lock": by_lock, "site": by_site, "thread": by_thread}[args.by](doc, args.top)
    print(header(doc))
    print()
    print(body)
    order = lock_order.text(doc)
    if order:
        print()
        print(order)
    hint = debug_hint.note(doc, body)
    if hint:
        print()
        print("\n".join(hint))
    return 0
