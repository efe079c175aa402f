"""Comparing the arms of a fleet on each measure, with the statistics of
`lockswap ab` (stats.compare): the unit is one process, the median over an
arm's processes its value, and the ratio of each arm's median to the
baseline's gets a 95% bootstrap interval (processes resampled) and a
verdict, "better" or "worse" when the interval excludes 1.0."""
from . import stats
from .output import fmt_value
from .stats_file import fmt_ns


class Measure:
    """by_difference: compared by arm median - baseline median instead of
    their ratio (a share near 0 makes any ratio huge and meaningless)."""

    def __init__(self, key, name, lower_is_better, fmt, by_difference=False):
        self.key, self.name, self.lower_is_better, self.fmt = key, name, lower_is_better, fmt
        self.by_difference = by_difference

    @property
    def label(self):
        return f"{self.name} ({'lower' if self.lower_is_better else 'higher'} is better)"

    def to_json(self):
        return {"key": self.key, "name": self.name, "lower_is_better": self.lower_is_better}


def percent(v):
    # three significant digits: a fleet's contended shares are often far
    # below 1%, where a fixed two decimals would print 0.00% for all arms
    return "-" if v is None else f"{100 * v:.3g}%"


LOCK_MEASURES = (
    Measure("contended_share", "contended share", True, percent),
    Measure("p99_wait_ns", "p99 wait", True, fmt_ns),
    # significant digits here too: a starved thread's 0.0003 is not 0.000
    # by difference: a starved baseline's 0.0003 would turn 1.06 into a
    # "ratio" of 3527 with a CI of [1.003, 3543.9], nothing a user can act on
    Measure("min_share", "min share", False, lambda v: "-" if v is None else f"{v:.3g}",
            by_difference=True),
)


def measures(metric_key=None, lower_is_better=False):
    extra = (Measure("metric", metric_key, lower_is_better, fmt_value),) if metric_key else ()
    return LOCK_MEASURES + extra


# stats.verdict speaks of speed; a fleet measure may be a share or a latency.
WORDS = {"faster": "better", "slower": "worse"}


def compare(arms, baseline, measure, seed):
    """stats.compare rows for one measure (baseline first), each with the
    arm's process count and "arm" for "backend"."""
    order = [baseline] + [a for a in arms if a != baseline]
    groups = {a: [p.values[measure.key] for p in arms[a] if p.values.get(measure.key) is not None]
              for a in order}
    rows = stats.compare(groups, measure.lower_is_better, seed)
    if measure.by_difference:
        by_difference(rows, groups, measure.lower_is_better, seed)
    for row in rows:
        row["arm"] = row.pop("backend")
        row["processes"] = len(arms[row["arm"]])
        row["verdict"] = WORDS.get(row["verdict"], row["verdict"]) \
            .replace("good runs", "processes").replace("good run", "process") \
            .replace("baseline runs", "baseline processes")
    return rows


def by_difference(rows, groups, lower_is_better, seed):
    """Replace each row's ratio by the difference of medians to the
    baseline ("difference"), with its 95% bootstrap CI in ci_low/ci_high
    and a verdict when the CI excludes 0."""
    import numpy as np
    seed = list(seed) if isinstance(seed, (tuple, list)) else [seed]
    labels = list(groups)
    base = np.asarray(groups[labels[0]], dtype=float)
    for i, row in enumerate(rows):
        values = np.asarray(groups[labels[i]], dtype=float)
        row["ratio"] = None
        row["difference"] = (float(np.median(values) - np.median(base))
                             if values.size and base.size else None)
        if i == 0 or values.size < stats.MIN_RUNS or base.size < stats.MIN_RUNS:
            continue  # the baseline, or stats.compare's "no verdict" stands
        rng = np.random.default_rng(seed + [i])
        mb = stats.resampled_medians(base, rng)
        mo = stats.resampled_medians(values, rng)
        low, high = stats.middle(mo - mb)
        row["ci_low"], row["ci_high"] = low, high
        if low > 0 or high < 0:
            row["verdict"] = "slower" if (low > 0) == lower_is_better else "faster"
        else:
            row["verdict"] = stats.NO_DIFFERENCE


def compare_all(arms, baseline, measure_list, seed):
    """[(measure, rows)]; measure i draws its resamples from seed (seed, i)."""
    return [(m, compare(arms, baseline, m, (seed, i))) for i, m in enumerate(measure_list)]
