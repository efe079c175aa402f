"""Readable names for the JSON keys that plots put on their axes.

A plot is read by someone who never saw the program's JSON: "min_share"
on an axis says less than "min share (least-served thread / mean)".  The
keys the project's benchmarks print (docs/bench.md) get a sentence; any
other key is spelt with spaces, and a unit suffix (_ns, _us, _s) becomes
the unit in brackets.  Tables, CSV and JSON keep the keys themselves.
"""

KNOWN = {
    "throughput": "throughput (operations/s)",
    "ops_per_sec": "operations/s",
    "micros_per_op": "µs per operation",
    "seconds": "wall-clock seconds",
    "min_share": "min share (least-served thread / mean; 1 = equal)",
    "max_share": "max share (most-served thread / mean)",
    "hold_min_share": "min hold-time share (1 = equal)",
    "cpu_min_share": "min CPU share (1 = equal)",
    "min_max": "least-served / most-served thread",
    "jain": "Jain's fairness index (1 = equal)",
}

UNITS = (("_ns", "ns"), ("_us", "µs"), ("_ms", "ms"), ("_s", "s"))


def readable(key):
    """The axis text for a JSON key (a dotted path, or a metric's name)."""
    key = str(key)
    if key in KNOWN:
        return KNOWN[key]
    if not key.replace("_", "").replace(".", "").isalnum():
        return key                  # a regex metric's "/pattern/": keep it as written
    unit = ""
    for suffix, name in UNITS:
        if key.endswith(suffix) and len(key) > len(suffix):
            key, unit = key[:-len(suffix)], f" ({name})"
            break
    return key.replace(".", " ").replace("_", " ") + unit


def with_direction(key, lower_is_better):
    return f"{readable(key)}, {'lower' if lower_is_better else 'higher'} is better"
