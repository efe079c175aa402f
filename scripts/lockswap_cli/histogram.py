"""The log2 buckets of the library's wait and hold histograms
(docs/stats.md): hist[0] counts [0, 2) ns and hist[b] counts
[2^b, 2^(b+1)) ns.  The one place the CLI writes their edges; the fleet
quantiles (fleet_measures.py) and the report's plot (report_plot.py) read
them from here."""


def bucket_bounds(b):
    """(low, high) in ns of bucket b: [low, high)."""
    return (0 if b == 0 else 2 ** b), 2 ** (b + 1)


def edges(n):
    """The n + 1 edges of a histogram of n buckets: 0, 2, 4, ... 2^n."""
    return [bucket_bounds(b)[0] for b in range(n)] + [bucket_bounds(n - 1)[1] if n else 0]
