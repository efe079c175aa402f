"""lockswap report: read the JSON that LOCKSWAP_STATS_FILE writes and show
it - the top locks, call sites or threads, an A/B comparison of two
profiles, flame-graph input, a plot of the wait-time histograms.

This module holds the command's flags and picks the output; each output is
a module of its own: report_tables (one file), report_compare (two),
report_exports (--folded, --pprof), report_plot (--plot), by_arm (--by-arm)."""
import os

from .errors import UsageError
from . import by_arm
from . import debug_files
from . import debug_hint
from . import lock_order
from .measure import natural_int
from .report_compare import compare
from .report_exports import write_folded, write_pprof
from .report_plot import plot
from .report_tables import by_lock, by_site, by_thread, header
from .stats_file import load

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


FLEET_ONLY = ("baseline", "metric", "lower_is_better", "out")


def main(args):
    if args.top < 1:
        raise UsageError("--top must be at least 1")
    for d in args.debug_dir:
        if not os.path.isdir(d):
            raise UsageError(f"--debug-dir {d}: not a directory")
    debug_files.set_debug_dirs(args.debug_dir)
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
        write_folded(args.folded, docs[-1], args.holders)
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
