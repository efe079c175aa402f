"""The numbers one process contributes to a fleet comparison, each computed
from one statistics file (docs/stats-schema.json) alone.

  contended share  contended / acquisitions, summed over every mutex
  p99 wait         99th percentile of the contended waits of every mutex,
                   from their merged log2 histograms
  min share        fairness of the hottest mutex (most contended
                   acquisitions) among the threads that competed for it
                   (had a contended acquisition): the least-served one's
                   acquisitions over the mean of them, so 1.0 = even shares
                   whatever the thread count, 0 = starved.  Threads that
                   never waited are left out: a main thread that took the
                   lock once at start-up is not a victim of unfairness,
                   and would pin the measure at 0 for every arm.  Files
                   that mark the competing threads (per_thread "competing",
                   docs/stats.md "Fairness": waited at least 1/16 of the
                   mean waiting time) use that mark instead, which also
                   leaves out a thread that found the lock held once.

A measure a process cannot give (no acquisitions, no timed waits) is None:
that process is left out of that measure only.
"""
from .histogram import bucket_bounds
from .stats_file import mutexes


def contended_share(doc):
    acquired = sum(l["acquisitions"] for l in mutexes(doc))
    if not acquired:
        return None
    return sum(l["contended"] for l in mutexes(doc)) / acquired


def merged_hist(locks):
    """Element-wise sum of the locks' wait histograms.  Summary mode times
    the same 1 in N waits of every lock, so the sum stays a fair sample."""
    total = []
    for l in locks:
        hist = l["wait"]["hist"]
        if len(hist) > len(total):
            total += [0] * (len(hist) - len(total))
        for b, n in enumerate(hist):
            total[b] += n
    return total


def hist_quantile(hist, q):
    """The q-quantile (0 < q <= 1) of a log2 histogram, interpolated
    linearly inside its bucket (what Prometheus' histogram_quantile does),
    so that two arms whose tails fall in the same bucket still differ.
    None for an empty histogram."""
    total = sum(hist)
    if not total:
        return None
    rank = q * total
    seen = 0
    for b, n in enumerate(hist):
        if n and seen + n >= rank:
            low, high = bucket_bounds(b)
            return low + (high - low) * (rank - seen) / n
        seen += n
    return float(bucket_bounds(len(hist) - 1)[1])


def p99_wait_ns(doc):
    return hist_quantile(merged_hist(mutexes(doc)), 0.99)


def hottest_mutex(doc):
    taken = [l for l in mutexes(doc) if l["contended"]]
    if not taken:
        return None
    return max(taken, key=lambda l: (l["contended"], l["acquisitions"]))


def min_share(doc):
    """None without a mutex that two threads or more competed for."""
    lock = hottest_mutex(doc)
    if lock is None:
        return None
    shares = [t["acquisitions"] for t in lock["per_thread"]
              if t.get("competing", t["contended"] > 0) and t["acquisitions"]]
    if len(shares) < 2 or not sum(shares):
        return None
    return min(shares) * len(shares) / sum(shares)
