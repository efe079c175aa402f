"""lockswap ab: interleaved A/B(/C...) comparison of backends on one command."""
from . import frontier, measure, output

SUMMARY = "compare backends on one command: interleaved runs, medians, bootstrap CI"
TAKES_COMMAND = True
DESCRIPTION = """\
Run CMD under each backend (-b, two or more; the first is the baseline),
--runs rounds, each round running every backend once in a freshly shuffled
order, after --warmup discarded rounds.  Each run yields one number (see
"metric").  Per backend: median, min, max of the good runs, the ratio of its
median to the baseline's with a 95% bootstrap confidence interval, and a
verdict, "faster" or "slower" when the interval excludes 1.0, else "no clear
difference".  Then the same comparison paired by round: the median of each
run's ratio to the baseline's run of the same round, with its own interval
and verdict (rounds resampled); it cancels load that changes between rounds,
so on a shared machine its interval is usually the narrower one.

A run fails when it exits non-zero, times out, or its output lacks the
metric; failed runs are listed with their stderr, never averaged in.  A
backend with fewer than 2 good runs gets no verdict.  When the baseline
fails its first 3 runs without a good one, ab stops there (exit status 1):
nothing could be compared with it.

  lockswap ab -b glibc -b futex --json-key throughput -- \\
      build/bench/mutexbench --threads 8 --json
  lockswap ab -b futex -b futex,SPIN=0 --runs 9 -- make -j2
  lockswap ab -r glibc -r futex -r bravo --json-key throughput -- \\
      build/bench/mutexbench --mode rwlock --read-pct 99 --threads 8 --json

Exit status: 0 if every run succeeded, 1 if any failed, 2 for a usage error
(nothing ran)."""


def add_arguments(parser):
    measure.add_backend_arguments(parser)
    frontier.add_argument(parser)
    measure.add_arguments(parser, runs=5, warmup=1)


def main(args):
    plan = measure.prepare(args, groups=[None], commands={None: args.command}, least=2,
                           extra_keys=[args.fairness_key])
    runs = plan.execute(stop_without_baseline=True)
    rows = plan.summarize(runs, group=None)
    pairs = plan.paired(runs, group=None)
    out = [plan.header("ab"), "", output.text_table(output.SUMMARY_HEADERS,
                                                    output.summary_rows(rows),
                                                    left=output.SUMMARY_LEFT),
           "", plan.ratio_note(), "", plan.paired_table(pairs)]
    extras = plan.extras_table(runs, group=None)
    if extras:
        out += ["", extras]
    problems = plan.failure_report(runs)
    if problems:
        out += ["", problems]
    print("\n".join(out))
    if args.out:
        paths = write(plan, args.out, runs, rows, pairs)
        print("\nwrote " + ", ".join(paths))
    return 1 if any(not r.ok for r in runs if not r.warmup) else 0


def write(plan, prefix, runs, rows, pairs):
    md = [f"# lockswap ab: {plan.metric.describe()}", "", plan.context_md(), "",
          output.md_table(output.SUMMARY_HEADERS, output.summary_rows(rows),
                          left=output.SUMMARY_LEFT),
          "", plan.ratio_note(), "", plan.paired_table(pairs, render=output.md_table)]
    extras = plan.extras_table(runs, None, render=output.md_table)
    if extras:
        md += ["", extras]
    problems = plan.failure_report(runs)
    if problems:
        md += ["", "```", problems, "```"]
    md += ["", "## Runs, in execution order", "",
           output.md_table(("round", "position", "backend", "value", "status", "seconds"),
                           [(r.round, r.position, r.backend, output.fmt_value(r.value), r.status,
                             f"{r.seconds:.3f}") for r in runs if not r.warmup], left=(2, 4)),
           "", "Order of each round: " + "; ".join(
               f"{rnd}: {' '.join(order)}" for rnd, order in plan.orders(runs, None))]
    return [output.write_text(prefix + ".md", "\n".join(md)),
            output.write_csv(prefix + ".csv", output.RUN_COLUMNS + tuple(plan.extra_keys),
                             output.run_rows(runs, keys=plan.extra_keys)),
            output.write_json(prefix + ".json", plan.to_json(runs, {"summary": rows,
                                                                  "paired": pairs}))] + \
        frontier.write_ab(plan, prefix, runs, plan.args.fairness_key)

