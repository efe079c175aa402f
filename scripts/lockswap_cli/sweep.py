"""lockswap sweep: backends x thread counts, with tables and plots."""
from . import axis_labels, measure, output
from .errors import UsageError

SUMMARY = "run a command over backends x thread counts; tables, CSV/JSON and plots"
TAKES_COMMAND = True
PLACEHOLDER = "{threads}"
DESCRIPTION = """\
For each thread count of --threads, run CMD with {threads} replaced by it,
under every backend, --runs rounds (each round in a freshly shuffled order).
Prints a table of medians (rows: threads, columns: backends) and the ratio
of each backend's median to the first backend's, with its 95% bootstrap CI
and verdict.  With --out, also writes PREFIX.csv, PREFIX.json, PREFIX.md,
PREFIX-throughput.png (the metric against threads; -seconds.png for wall
time, -metric.png for another lower-is-better metric) and, when the runs print
the --fairness-key in their JSON output, PREFIX-fairness.png and
PREFIX-frontier.png (fairness against speed, a point per backend).

  lockswap sweep -b glibc -b futex --threads 1,2,4,8 --json-key throughput \\
      --out out/sweep -- build/bench/mutexbench --threads {threads} --json

Exit status: 0 if every run succeeded, 1 if any failed, 2 for a usage error
(nothing ran)."""


def thread_list(text):
    import argparse
    try:
        counts = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        counts = []
    if counts and any(c < 1 for c in counts):
        low = min(counts)
        raise argparse.ArgumentTypeError(f"{text!r}: thread count {low} is not allowed; "
                                         "counts start at 1 (e.g. 1,2,4,8)")
    if not counts:
        raise argparse.ArgumentTypeError(f"{text!r}: expected thread counts like 1,2,4,8")
    return list(dict.fromkeys(counts))


def add_arguments(parser):
    measure.add_backend_arguments(parser)
    parser.add_argument("--threads", type=thread_list, required=True, metavar="LIST",
                        help="thread counts, comma separated, substituted for {threads}")
    parser.add_argument("--fairness-key", default="min_share", metavar="KEY",
                        help="JSON key plotted as fairness when present (default min_share)")
    measure.add_arguments(parser, runs=3, warmup=0)


def main(args):
    if not args.command:
        raise UsageError("sweep: no command to run: give it after `--`")
    if not any(PLACEHOLDER in w for w in args.command):
        raise UsageError(f"sweep: the command has no {PLACEHOLDER} to replace")
    commands = {t: [w.replace(PLACEHOLDER, str(t)) for w in args.command] for t in args.threads}
    plan = measure.prepare(args, groups=list(args.threads), commands=commands, least=1,
                           extra_keys=[args.fairness_key])
    runs = plan.execute()
    grid = {t: plan.summarize(runs, t) for t in args.threads}
    fair = recorded(plan, runs, args.fairness_key)
    extra = others(plan, runs, args.fairness_key)
    text = [plan.header("sweep"), "",
            tables(plan, grid, output.text_table, fair, full=False, extra=extra)]
    problems = plan.failure_report(runs)
    if problems:
        text += ["", problems]
    print("\n".join(text))
    if args.out:
        paths = write(plan, args.out, runs, grid, fair, extra)
        print("\nwrote:\n" + "\n".join("  " + p for p in paths))
    return 1 if any(not r.ok for r in runs if not r.warmup) else 0


def points(plan, runs, key=None):
    """{label: [(threads, median, min, max)]} of the metric, or of a JSON
    key recorded with the runs."""
    from . import stats
    out = {}
    for label in plan.labels:
        out[label] = []
        for t in plan.groups:
            d = stats.describe(plan.good(runs, t, label, key))
            out[label].append((t, d["median"], d["min"], d["max"]))
    return out


def recorded(plan, runs, key):
    """points() of a JSON key recorded with the runs, or None when no run
    printed it."""
    return points(plan, runs, key) if any(key in r.extras for r in runs) else None


def others(plan, runs, fairness_key):
    """{key: recorded()} of each --extra-key that some run printed, the
    fairness key apart (it has its own table)."""
    found = {k: recorded(plan, runs, k) for k in plan.extra_keys if k != fairness_key}
    return {k: pts for k, pts in found.items() if pts is not None}


MARKS = {"faster": "+", "slower": "-", "no clear difference": "="}


def ratio_cell(row, full):
    """"1.274 [1.132, 1.528] faster" (full) or "1.274 +" (compact)."""
    if full:
        return (f"{output.fmt_ratio(row['ratio'])} {output.fmt_ci(row['ci_low'], row['ci_high'])}"
                f" {row['verdict']}")
    return f"{output.fmt_ratio(row['ratio'])} {MARKS.get(row['verdict'], '?')}"


def tables(plan, grid, render, fair, full, extra=None):
    """The medians, ratios (and fairness, and each --extra-key's medians)
    tables, rendered by `render` (output.text_table or output.md_table);
    the ratios with their CI and verdict in words when full, else with a
    one-character mark."""
    labels, base = plan.labels, plan.labels[0]
    medians = [[t] + [output.fmt_value(row["median"]) for row in grid[t]] for t in plan.groups]
    parts = [f"median {plan.metric.label}:",
             render(["threads"] + labels, medians, left=())]
    if len(labels) > 1:
        ratios = [[t] + [ratio_cell(row, full) for row in grid[t][1:]] for t in plan.groups]
        title = (f"ratio to {base} [95% CI] verdict:" if full else
                 f"ratio to {base} (+ faster, - slower, = no clear difference, ? no verdict;"
                 f" 95% CIs in the --out files):")
        parts += ["", title, render(["threads"] + labels[1:], ratios,
                                    left=tuple(range(1, len(labels))) if full else ())]
    named = ([(plan.args.fairness_key, fair)] if fair else []) + list((extra or {}).items())
    for key, pts in named:
        rows = [[t] + [output.fmt_value(pts[l][i][1]) for l in labels]
                for i, t in enumerate(plan.groups)]
        parts += ["", f"median {key}:", render(["threads"] + labels, rows, left=())]
    return "\n".join(parts)


def write(plan, prefix, runs, grid, fair, extra):
    from . import frontier, plot
    key = plan.args.fairness_key
    pairs = {t: plan.paired(runs, t) for t in plan.groups} if len(plan.labels) > 1 else {}
    md = [f"# lockswap sweep: {plan.metric.describe()}", "", plan.context_md(), "",
          tables(plan, grid, output.md_table, fair, full=True, extra=extra).replace(":\n|", ":\n\n|"),
          "",
          plan.ratio_note()]
    if pairs:
        md += ["", plan.paired_title() + ":", "",
               output.md_table(["threads"] + plan.labels[1:],
                               [[t] + [ratio_cell(row, True) for row in pairs[t]]
                                for t in plan.groups], left=tuple(range(1, len(plan.labels))))]
    problems = plan.failure_report(runs)
    if problems:
        md += ["", "```", problems, "```"]
    md += ["", "## Runs, in execution order", "",
           output.md_table(("threads", "round", "position", "backend", "value", key, "status",
                            "seconds"),
                           [(r.group, r.round, r.position, r.backend, output.fmt_value(r.value),
                             output.fmt_value(r.extras.get(key)), r.status, f"{r.seconds:.3f}")
                            for r in runs if not r.warmup], left=(3, 6))]
    summary = [{"threads": t, **row} for t in plan.groups for row in grid[t]]
    paired = [{"threads": t, **row} for t in pairs for row in pairs[t]]
    paths = [output.write_text(prefix + ".md", "\n".join(md)),
             output.write_csv(prefix + ".csv", ("threads",) + output.RUN_COLUMNS + tuple(plan.extra_keys),
                              output.run_rows(runs, with_group=True, keys=plan.extra_keys)),
             output.write_json(prefix + ".json", plan.to_json(runs, {"threads": plan.groups,
                                                                     "summary": summary,
                                                                     "paired": paired}))]
    note = f"{plan.command_text()}  (median of {plan.args.runs} runs; bars: min..max)"
    name = plan.metric.name
    paths.append(plot.lines(prefix + plan.metric.plot_suffix, points(plan, runs),
                            f"{axis_labels.readable(name)} vs threads",
                            axis_labels.with_direction(name, plan.metric.lower_is_better),
                            note=note))
    if fair:
        paths.append(plot.lines(prefix + "-fairness.png", fair,
                                f"{axis_labels.readable(key)} vs threads",
                                axis_labels.readable(key), note=note))
    return paths + frontier.write_sweep(plan, prefix, runs, key)
