#!/usr/bin/python3
"""demo-headline.py - the three lines that open the demo's summary.md.

    demo-headline.py --ab "TITLE=RESULT.json" ... --profile "TITLE=STATS.json"

From `lockswap ab` results (their .json) and one statistics file:

  1. the fastest backend of each comparison: the highest median among the
     backends whose ratio to the baseline, paired by round, is "faster"
     (a higher median with no clear difference is named beside it), or
     that none is clearly faster;
  2. the fairest fast one: among the backends within FAST of the fastest
     median, the one whose runs gave the highest median min_share (the
     least-served thread's acquisitions over the mean, 1 = equal shares),
     next to the fastest's own min_share;
  3. what the profile found: how many mutex acquisitions were contended,
     and the mutex with the most contended wait (or, with none timed, the
     most contended one): its part of that wait, where it was first used
     and where its waiters waited.

A comparison that is missing or has no good baseline run is said to be so,
never left out silently.  Prints markdown on stdout.
"""
import argparse
import json
import statistics
import sys

FAST = 0.8          # "fast": a median at least this fraction of the fastest's
FAIRNESS_KEY = "min_share"


def titled(text):
    title, sep, path = text.rpartition("=")
    if not sep or not title or not path:
        raise argparse.ArgumentTypeError(f"{text!r}: expected TITLE=PATH")
    return title, path


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return str(getattr(e, "strerror", None) or e)


def good_runs(doc, label):
    return [r for r in doc["runs"] if r["backend"] == label and not r["warmup"]
            and r["status"] == "ok"]


def fairness(doc, label):
    values = [r["extras"][FAIRNESS_KEY] for r in good_runs(doc, label)
              if FAIRNESS_KEY in r.get("extras", {})]
    return statistics.median(values) if values else None


def speeds(doc):
    """[(label, ratio to the baseline's median)] of the backends with good
    runs, fastest first (for a lower-is-better metric, the inverse ratio)."""
    lower = doc["metric"]["lower_is_better"]
    out = []
    for row in doc["summary"]:
        r = row.get("ratio")
        if r:
            out.append((row["backend"], 1 / r if lower else r))
    return sorted(out, key=lambda p: -p[1])


def paired_verdict(doc, label):
    for row in doc.get("paired", []):
        if row["backend"] == label:
            return row["verdict"]
    return "baseline"


def fastest(title, doc):
    """The fastest backend that is measurably faster than the baseline: the
    highest median among those whose ratio paired by round is "faster".  A
    higher median with no clear difference is named beside it, never as
    the fastest (a 1.14x that the rounds do not separate from 1 is not a
    win over a 1.11x that they do)."""
    ranked = speeds(doc)
    if not ranked:
        return f"{title}: no good run of the baseline"
    base = doc["backends"][0]["label"]
    label, x = ranked[0]
    if label == base:
        runner = f"; next {ranked[1][0]} at {ranked[1][1]:.2f}x" if len(ranked) > 1 else ""
        return f"{title}: **{label}** (the baseline{runner})"
    clear = [(l, r) for l, r in ranked if l != base and paired_verdict(doc, l) == "faster"]
    if not clear:
        return (f"{title}: none clearly faster than {base} (highest median: {label}, "
                f"{x:.2f}x, {paired_verdict(doc, label)})")
    best, bx = clear[0]
    text = f"{title}: **{best}**, {bx:.2f}x {base} (faster)"
    if best != label:
        text += f"; {label}'s higher {x:.2f}x is {paired_verdict(doc, label)}"
    return text


def fairest_fast(title, doc):
    ranked = speeds(doc)
    if not ranked:
        return f"{title}: no good run of the baseline"
    top_label, top = ranked[0]
    fast = [(l, x, fairness(doc, l)) for l, x in ranked if x >= FAST * top]
    fast = [f for f in fast if f[2] is not None]
    if not fast:
        return f"{title}: no run printed {FAIRNESS_KEY}"
    label, x, share = max(fast, key=lambda f: f[2])
    base = doc["backends"][0]["label"]
    if label == top_label:
        found = f"**{label}**, the highest median, is also the fairest of them ({FAIRNESS_KEY} {share:.2f})"
    else:
        top_share = fairness(doc, top_label)
        than = f" against {top_share:.2f} for {top_label}" if top_share is not None else ""
        found = f"**{label}**, {FAIRNESS_KEY} {share:.2f}{than}, at {x:.2f}x {base}"
    # the price of more fairness, where a slower backend has it
    every = [(l, x2, fairness(doc, l)) for l, x2 in ranked]
    fair_l, fair_x, fair_s = max((f for f in every if f[2] is not None), key=lambda f: f[2])
    if fair_s > share:
        found += f"; fairest of all: {fair_l}, {fair_s:.2f} at {fair_x:.2g}x"
    return f"{title}: {found}"


def site_text(site):
    """A frame as a person reads it: the function without its parameters,
    else object+offset."""
    if not site:
        return "an unknown site"
    if site.get("symbol"):
        return site["symbol"].split("(")[0]
    obj = (site.get("object") or "??").rsplit("/", 1)[-1]
    return f"{obj}+{site.get('offset', '?')}"


def percent(part, whole):
    return f"{100 * part / whole:.2g}%" if whole else "-"


def profile_line(title, doc):
    """The profile's line; the backend it ran under is the file's own
    ("backend"), never the caller's guess."""
    if doc.get("backend"):
        title = f"{title}, under {doc['backend']}"
    mutexes = [l for l in doc.get("locks", []) if l["type"] == "mutex"]
    acquired = sum(l["acquisitions"] for l in mutexes)
    contended = sum(l["contended"] for l in mutexes)
    if not contended:
        return (f"{title}: none of {acquired:,} acquisitions of {len(mutexes)} mutexes was "
                "contended: locks do not limit this run")
    text = (f"{title}: {contended:,} of {acquired:,} acquisitions of {len(mutexes)} mutexes "
            f"contended ({percent(contended, acquired)})")
    if contended < acquired / 1000:
        text += ", so locks hardly limit this run"
    waited = sum(l["wait"]["estimated_total_ns"] for l in mutexes)
    hot = max(mutexes, key=lambda l: (l["wait"]["estimated_total_ns"], l["contended"]))
    where = hot["name"] or f"first used in {site_text(hot['site'])}"
    if waited:
        part = hot["wait"]["estimated_total_ns"] / waited
        text += f"; the mutex {where} has {100 * part:.0f}% of the contended wait"
    else:
        text += (f"; the most contended, {hot['contended']:,} times, is the mutex {where} "
                 "(no contended wait was timed: summary statistics time 1 in 16)")
    events = sorted(hot.get("contention", []), key=lambda e: -e.get("estimated_wait_ns", 0))
    if events:
        text += f"; its waiters mostly wait in {site_text(events[0].get('waiter_site'))}"
    return text


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ab", type=titled, action="append", default=[], metavar="TITLE=JSON",
                   help="a lockswap ab result")
    p.add_argument("--fair", type=titled, action="append", default=[], metavar="TITLE=JSON",
                   help="a lockswap ab result to find the fairest fast backend in")
    p.add_argument("--profile", type=titled, metavar="TITLE=JSON",
                   help="a statistics file (LOCKSWAP_STATS_FILE)")
    args = p.parse_args(argv)
    lines = []
    for what, items, fn in (("Fastest", args.ab, fastest),
                            (f"Fairest of the fast (within {100 - 100 * FAST:.0f}% of the "
                             f"fastest, by {FAIRNESS_KEY})", args.fair, fairest_fast)):
        if not items:
            continue
        parts = []
        for title, path in items:
            doc = load(path)
            parts.append(fn(title, doc) if isinstance(doc, dict) else f"{title}: {path}: {doc}")
        lines.append(f"- **{what}**: " + "; ".join(parts) + ".")
    if args.profile:
        title, path = args.profile
        doc = load(path)
        found = profile_line(title, doc) if isinstance(doc, dict) else f"{title}: {path}: {doc}"
        lines.append(f"- **Profile**: {found}.")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
