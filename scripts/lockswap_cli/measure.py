"""What `ab` and `sweep` share: their flags, checking everything before the
first run, running the interleaved plan, and describing what was measured."""
import argparse
import datetime
import os
import platform
import random
import shlex

from . import campaign, library, metrics, output, settings
from .errors import UsageError
from .library import open_library
from .progress import Progress


def positive_int(text):
    return _number(text, int, 1, "a whole number >= 1")


def natural_int(text):
    return _number(text, int, 0, "a whole number >= 0")


# A run of a benchmark takes seconds; a backend that makes it take more
# than ten minutes is a result in itself (it fails, and is listed), not a
# reason to keep a person waiting for hours.
DEFAULT_TIMEOUT = 600


def timeout_seconds(text):
    """--timeout: seconds > 0, or 0 for no limit (None)."""
    value = _number(text, float, 0, "a number of seconds >= 0 (0 = no limit)")
    return value or None


def _number(text, kind, least, what):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if value < least or value != value:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


PAIRED_HEADERS = ("backend", "rounds", "paired ratio", "95% CI", "verdict")


def add_backend_arguments(parser):
    """-b and -r, the first flags of `ab` and `sweep`."""
    parser.add_argument("-b", "--backend", dest="backends", action="append", default=[],
                        metavar="NAME[,VAR=VALUE...]",
                        help="a backend to compare (`default`: the library's default; `none`: "
                             "the program without lockswap, what loading it costs; repeat; "
                             "the first is the baseline of the ratios); VAR=VALUE pairs give "
                             "this one its own options, e.g. futex,SPIN=0; LIB=PATH runs it "
                             "under that build of liblockswap.so")
    parser.add_argument("-r", "--rwlock", dest="rwlocks", action="append", default=[],
                        metavar="NAME[,VAR=VALUE...]",
                        help="an rwlock backend to compare (LOCKSWAP_RWLOCK; repeat); with -b, "
                             "every -b runs with every -r, labelled B/R")


def add_arguments(parser, runs, warmup):
    """The flags `ab` and `sweep` share after their own: the runs, the
    metric and the options."""
    g = parser.add_argument_group("runs")
    g.add_argument("--runs", type=positive_int, default=runs, metavar="N",
                   help=f"measured rounds; each runs every backend once (default {runs})")
    g.add_argument("--warmup", type=natural_int, default=warmup, metavar="W",
                   help=f"discarded rounds before them (default {warmup})")
    g.add_argument("--seed", type=natural_int, metavar="S",
                   help="seed of the run order and of the bootstrap (default: random, "
                        "printed, so a run can be repeated)")
    g.add_argument("--timeout", type=timeout_seconds, default=DEFAULT_TIMEOUT, metavar="SEC",
                   help="a run taking longer is killed (with its children) and counts as "
                        f"failed (default {DEFAULT_TIMEOUT} s; 0 = no limit)")
    g.add_argument("--out", metavar="PREFIX",
                   help="also write PREFIX.md, PREFIX.csv and PREFIX.json (folders are created)")
    g.add_argument("--extra-key", dest="extra_keys", action="append", default=[], metavar="KEY",
                   help="also record this JSON key of each run and show its medians (repeatable)")
    g.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    metrics.add_arguments(parser)
    settings.add_option_flags(parser)


def prepare(args, groups, commands, least=2, extra_keys=()):
    """Check everything (backends, options, metric, commands, --out) before
    anything runs; return a Measurement.  commands: group -> argv."""
    lib = open_library(args)
    variants = settings.parse_variants(args.backends, getattr(args, "rwlocks", []), lib)
    if len(variants) < least:
        raise UsageError(f"{args.subcommand} needs at least {least} backends (-b A -b B, or -r A -r B)")
    metric = metrics.Metric(args.metric, args.json_key, args.lower_is_better)
    settings.check_variants(lib, args, variants)
    envs = campaign.environments(lib.path, variants)
    # The preload check against a loaded arm's library (-b none has none).
    loaded = next((v for v in variants if not v.unloaded), variants[0])
    for cmd in commands.values():
        settings.resolve_command(cmd, envs[loaded.label])
    if args.out:
        output.check_prefix(args.out)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    keys = list(dict.fromkeys(list(extra_keys) + args.extra_keys))
    return Measurement(args, lib, variants, metric, groups, commands, envs, seed, keys)


class Measurement:
    def __init__(self, args, lib, variants, metric, groups, commands, envs, seed, extra_keys):
        self.args, self.lib, self.variants, self.metric = args, lib, variants, metric
        self.groups, self.commands, self.envs = groups, commands, envs
        self.seed, self.extra_keys = seed, extra_keys
        self.labels = [v.label for v in variants]
        self.started = self.load = None

    def execute(self, stop_without_baseline=False):
        runs = campaign.plan(self.groups, self.variants, self.args.runs, self.args.warmup,
                             random.Random(self.seed))
        progress = Progress(len(runs), quiet=self.args.quiet, runs=runs,
                            timeout=self.args.timeout)
        self.started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        before = os.getloadavg()[0]
        campaign.Campaign(self.commands, self.envs, self.metric, self.args.timeout,
                          self.extra_keys, progress,
                          baseline=self.labels[0] if stop_without_baseline else None
                          ).run_all(runs)
        self.load = (before, os.getloadavg()[0])
        return runs

    def good(self, runs, group, label, key=None):
        return [(r.value if key is None else r.extras[key]) for r in runs
                if not r.warmup and r.ok and r.group == group and r.backend == label
                and (key is None or key in r.extras)]

    def summarize(self, runs, group):
        """stats.compare rows for one group, each with its count of
        failed measured runs added."""
        from . import stats
        gi = self.groups.index(group)
        rows = stats.compare({l: self.good(runs, group, l) for l in self.labels},
                             self.metric.lower_is_better, (self.seed, gi))
        for row in rows:
            row["unit"] = self.metric.unit.strip()
            row["failed"] = sum(1 for r in runs if not r.warmup and not r.ok
                                and r.group == group and r.backend == row["backend"])
        return rows

    def paired(self, runs, group):
        """stats.paired rows for one group: every backend against the
        baseline, round by round."""
        from . import stats
        rounds = {}
        for r in runs:
            if not r.warmup and r.ok and r.group == group:
                rounds.setdefault(r.round, {})[r.backend] = r.value
        return stats.paired(rounds, self.labels, self.metric.lower_is_better,
                            (self.seed, self.groups.index(group), 1))

    def paired_title(self):
        return (f"paired by round (each run over the {self.labels[0]} run of its own round; "
                "median, 95% CI by\nbootstrap over rounds): cancels what changes between "
                "rounds, such as other jobs' load")

    def paired_table(self, rows, render=output.text_table):
        gap = "\n\n" if render is output.md_table else "\n"
        return self.paired_title() + gap + render(
            PAIRED_HEADERS, [(r["backend"], r["rounds"], output.fmt_ratio(r["ratio"]),
                              output.fmt_ci(r["ci_low"], r["ci_high"]), r["verdict"])
                             for r in rows], left=(0, 4))

    def extras_table(self, runs, group, render=output.text_table):
        """Medians of the --extra-key values, or "" if none was found."""
        from . import stats
        keys = [k for k in self.extra_keys
                if any(k in r.extras for r in runs if r.group == group)]
        if not keys:
            return ""
        rows = [[l] + [output.fmt_value(stats.describe(self.good(runs, group, l, k))["median"])
                       for k in keys] for l in self.labels]
        gap = "\n\n" if render is output.md_table else "\n"
        return "medians of other keys:" + gap + render(["backend"] + keys, rows)

    def header(self, name):
        a = self.args
        warm = f" (+{a.warmup} warm-up round{'s' * (a.warmup != 1)})" if a.warmup else ""
        n = len(self.groups)
        groups = f" x {n} thread count{'s' * (n != 1)}" if self.groups != [None] else ""
        load = f"; load average {self.load[0]:.2f} -> {self.load[1]:.2f}" if self.load else ""
        return "\n".join([
            f"lockswap {name}: {len(self.labels)} backend{'s' * (len(self.labels) != 1)}"
            f"{groups}, {a.runs} round{'s' * (a.runs != 1)}"
            f"{warm}, seed {self.seed}{load}",
            f"metric: {self.metric.describe()}",
            f"command: {self.command_text()}"])

    def command_text(self):
        return shlex.join(self.args.command)

    def invocation(self):
        return shlex.join(["lockswap"] + list(getattr(self.args, "argv", [])))

    def ratio_note(self):
        return (f"ratio = median / median of {self.labels[0]}; 95% CI of the ratio by bootstrap "
                f"over runs\n(2000 resamples); faster/slower only when the CI excludes 1.0")

    def failure_report(self, runs):
        """The failed runs with their stderr, then the backends left
        without a verdict for want of good runs; "" if neither."""
        failed, short = [], []
        for r in runs:
            if r.ok:
                continue
            kind = f"warm-up {r.round} (not counted)" if r.warmup else f"round {r.round}"
            where = f", threads={r.group}" if r.group is not None else ""
            failed.append(f"  {kind}, {r.backend}{where}: {r.status} ({r.seconds:.2f} s)")
            failed += [f"    stderr| {line}" for line in r.stderr_tail]
        for group in self.groups:
            for label in self.labels:
                n = len(self.good(runs, group, label))
                if n < 2:
                    where = f" at threads={group}" if group is not None else ""
                    short.append(f"  {label}{where}: {n} good run{'s' * (n != 1)} of "
                                 f"{self.args.runs}")
        parts = []
        if failed:
            parts.append("failed runs (left out of the medians):\n" + "\n".join(failed))
        if short:
            parts.append("no verdict (fewer than 2 good runs):\n" + "\n".join(short))
        return "\n".join(parts)

    def orders(self, runs, group):
        """[(round, [labels in execution order])] of the measured rounds."""
        out = {}
        for r in runs:
            if r.group == group and not r.warmup:
                out.setdefault(r.round, []).append(r.backend)
        return sorted(out.items())

    def context(self):
        return {"lockswap": self.lib.version, "library": self.lib.path,
                "invocation": self.invocation(), "command": list(self.args.command),
                "metric": self.metric.to_json(), "seed": self.seed, "rounds": self.args.runs,
                "warmup_rounds": self.args.warmup, "timeout": self.args.timeout,
                "started": self.started, "host": platform.node(), "cpus": os.cpu_count(),
                "load_average": list(self.load) if self.load else None,
                "backends": [self.backend_json(v) for v in self.variants]}

    def backend_json(self, v):
        out = {"label": v.label, "settings": v.values}
        if v.unloaded:
            out["preload"] = False
        if v.lib_path:
            out["library"] = v.lib_path
            out["lockswap"] = library.load(v.lib_path).version
        return out

    def context_md(self):
        c = self.context()
        load = f"{self.load[0]:.2f} at start, {self.load[1]:.2f} at end" if self.load else "-"
        return "\n".join([
            f"- command: `{self.command_text()}`",
            f"- invocation: `{c['invocation']}`",
            f"- metric: {self.metric.describe()}",
            f"- rounds: {c['rounds']} measured, {c['warmup_rounds']} warm-up; seed {c['seed']}",
            f"- started {c['started']} on {c['host']} ({c['cpus']} CPUs); load average {load}",
            f"- library: {c['library']} (lockswap {c['lockswap']})"] +
            [f"- library of `{b['label']}`: {b['library']} (lockswap {b['lockswap']})"
             for b in c["backends"] if "library" in b] +
            [f"- `{b['label']}`: the program without lockswap (no LD_PRELOAD of it, no "
             "LOCKSWAP_* variable)" for b in c["backends"] if b.get("preload") is False])

    def to_json(self, runs, extra):
        return {**self.context(), **extra, "runs": [r.to_json() for r in runs]}
