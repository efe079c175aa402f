"""Merging the locks of many processes by call site: a lock that 300
processes use is one row per arm, its counts summed over the processes.

A lock is known across processes the way `lockswap report A B` matches
two profiles (report.lock_label): its variable name when it lives in one,
else its type and first-use site, symbolised (or object+offset), so that
address-space randomisation does not split it.
"""
from .fleet_measures import hist_quantile, merged_hist
from .stats_file import lock_label, mutexes

COUNTS = ("acquisitions", "contended", "trylock_failures", "timeouts")


def check_fields(lock):
    """KeyError or TypeError now, for a file that lacks what merge reads."""
    lock_label(lock)
    for c in COUNTS:
        int(lock[c])
    len(lock["wait"]["hist"]) + lock["wait"]["estimated_total_ns"]


def merge(arms):
    """{(site, arm): row} over every mutex of every process; a row holds
    processes, the COUNTS summed, estimated wait summed, and the merged
    wait histogram."""
    rows = {}
    for arm, procs in arms.items():
        for p in procs:
            for lock in mutexes(p.doc):
                key = (lock_label(lock), arm)
                row = rows.get(key)
                if row is None:
                    row = rows[key] = {"site": key[0], "arm": arm, "processes": set(),
                                       "wait_ns": 0.0, "hist": [],
                                       **{c: 0 for c in COUNTS}}
                row["processes"].add(p.path)
                for c in COUNTS:
                    row[c] += lock[c]
                row["wait_ns"] += lock["wait"]["estimated_total_ns"]
                row["hist"] = merged_hist([{"wait": {"hist": row["hist"]}}, lock])
    for row in rows.values():
        row["processes"] = len(row["processes"])
        row["p99_wait_ns"] = hist_quantile(row["hist"], 0.99)
    return rows


def ranked(rows, arms):
    """[(site, [row per arm or None])], the most contended site (summed
    over the arms) first."""
    sites = {}
    for (site, arm), row in rows.items():
        sites.setdefault(site, {})[arm] = row
    order = sorted(sites, key=lambda s: (-sum(r["contended"] for r in sites[s].values()),
                                         -sum(r["acquisitions"] for r in sites[s].values()), s))
    return [(s, [sites[s].get(a) for a in arms]) for s in order]


def arm_totals(rows, arms):
    """{arm: {COUNTS summed over every site, wait_ns}}."""
    out = {a: {"wait_ns": 0.0, **{c: 0 for c in COUNTS}} for a in arms}
    for (_, arm), row in rows.items():
        for c in COUNTS + ("wait_ns",):
            out[arm][c] += row[c]
    return out
