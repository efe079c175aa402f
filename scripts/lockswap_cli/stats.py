"""Medians, a bootstrap confidence interval for a ratio of medians (and for
the median of per-round ratios), and the verdict drawn from it.

Runs on a shared machine are noisy and not normally distributed (a few runs
hit a busy neighbour), so everything is median-based, and the uncertainty of
"median of B / median of A" comes from resampling: draw each backend's runs
with replacement, RESAMPLES times, and take the middle 95% of the resampled
ratios.  A verdict is given only when that interval excludes 1.0, and only
for backends with at least MIN_RUNS good runs.
"""
import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
MIN_RUNS = 2

NO_DIFFERENCE = "no clear difference"


def describe(values):
    """{n, median, min, max} of good values (None for an empty list)."""
    if len(values) == 0:
        return {"n": 0, "median": None, "min": None, "max": None}
    a = np.asarray(values, dtype=float)
    return {"n": int(a.size), "median": float(np.median(a)),
            "min": float(a.min()), "max": float(a.max())}


def ratio_of_medians(base, other):
    if len(base) == 0 or len(other) == 0:
        return None
    mb = float(np.median(base))
    return float(np.median(other)) / mb if mb != 0 else None


def ratio_ci(base, other, rng, resamples=RESAMPLES, level=LEVEL):
    """(low, high) of the bootstrap distribution of median(other)/median(base),
    or None with fewer than MIN_RUNS values on a side or a zero baseline."""
    base = np.asarray(base, dtype=float)
    other = np.asarray(other, dtype=float)
    if base.size < MIN_RUNS or other.size < MIN_RUNS:
        return None
    mb = resampled_medians(base, rng, resamples)
    mo = resampled_medians(other, rng, resamples)
    if np.any(mb == 0):
        return None
    return middle(mo / mb, level)


def resampled_medians(values, rng, resamples=RESAMPLES):
    """The medians of `resamples` draws, with replacement, of as many of
    `values` (a numpy array) as it holds."""
    return np.median(values[rng.integers(0, values.size, (resamples, values.size))], axis=1)


def middle(samples, level=LEVEL):
    """(low, high): the middle `level` of bootstrap samples."""
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def verdict(ci, lower_is_better):
    """"faster", "slower" or NO_DIFFERENCE for a ratio interval."""
    low, high = ci
    if low > 1.0:
        bigger = True
    elif high < 1.0:
        bigger = False
    else:
        return NO_DIFFERENCE
    return "slower" if bigger == lower_is_better else "faster"


def compare(groups, lower_is_better, seed):
    """One summary row per backend, in the order of groups (a dict label ->
    good values; the first is the baseline).  seed: an int or a tuple of
    ints; each comparison draws from its own generator seeded by seed + i."""
    seed = list(seed) if isinstance(seed, (tuple, list)) else [seed]
    labels = list(groups)
    base = groups[labels[0]]
    rows = []
    for i, label in enumerate(labels):
        values = groups[label]
        row = {"backend": label, **describe(values),
               "ratio": None, "ci_low": None, "ci_high": None, "verdict": None}
        row["ratio"] = ratio_of_medians(base, values)
        if len(values) < MIN_RUNS:
            row["verdict"] = f"no verdict: {len(values)} good run{'s' * (len(values) != 1)}"
        elif i == 0:
            row["verdict"] = "baseline"
        elif len(base) < MIN_RUNS:
            row["verdict"] = "no verdict: too few good baseline runs"
        else:
            rng = np.random.default_rng(seed + [i])
            ci = ratio_ci(base, values, rng)
            if ci is None:
                row["verdict"] = "no verdict: baseline median is 0"
            else:
                row["ci_low"], row["ci_high"] = ci
                row["verdict"] = verdict(ci, lower_is_better)
        rows.append(row)
    return rows


def paired(rounds, labels, lower_is_better, seed):
    """The per-round comparison: one row per label after the first (the
    baseline), from the rounds in which both it and the baseline ran well.
    rounds: {round: {label: value}} of good runs.  Each round runs every
    backend back to back, so the ratio of two runs of one round cancels
    what changes between rounds (other jobs on a shared machine, its
    clock): the row's `ratio` is the median of those ratios, and its
    interval the middle 95% of that median over RESAMPLES resamples of the
    rounds.  seed: as compare's."""
    seed = list(seed) if isinstance(seed, (tuple, list)) else [seed]
    base = labels[0]
    rows = []
    for i, label in enumerate(labels[1:], start=1):
        ratios = np.asarray([r[label] / r[base] for r in rounds.values()
                             if label in r and base in r and r[base] != 0], dtype=float)
        row = {"backend": label, "rounds": int(ratios.size), "ratio": None,
               "ci_low": None, "ci_high": None}
        if ratios.size < MIN_RUNS:
            row["verdict"] = f"no verdict: {ratios.size} round{'s' * (ratios.size != 1)} with both"
        else:
            rng = np.random.default_rng(seed + [i])
            low, high = middle(resampled_medians(ratios, rng))
            row.update(ratio=float(np.median(ratios)), ci_low=low, ci_high=high,
                       verdict=verdict((low, high), lower_is_better))
        rows.append(row)
    return rows


def times_better(row, lower_is_better):
    """(ratio, low, high) of a compare() or paired() row as "times better
    than the baseline", so that > 1 is better whatever the metric: a
    lower-is-better ratio (a latency, a wall time) is inverted, interval
    included.  None where the row has none."""
    r, lo, hi = row["ratio"], row["ci_low"], row["ci_high"]
    if not lower_is_better:
        return r, lo, hi
    inv = lambda x: 1.0 / x if x else None
    return inv(r), inv(hi), inv(lo)
