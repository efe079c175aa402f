"""Reading a statistics file (the JSON that LOCKSWAP_STATS_FILE writes,
docs/stats-schema.json) and naming what is in it: what `lockswap report`
and the fleet reports (by_arm, fleet*) build on, apart from both so that
neither imports the other's module."""
import json
import os

from .errors import UsageError
from . import callsite
from . import symbolize

SCHEMA = "lockswap-stats"
SCHEMA_VERSION = 1


HOW_TO_PROFILE = ("a statistics file is what a program writes under LOCKSWAP_STATS=summary "
                  "LOCKSWAP_STATS_FILE=FILE.json (or lockswap run --stats summary --set "
                  "STATS_FILE=FILE.json -- CMD)")


def not_statistics(path, doc):
    """Why DOC (parsed from PATH) is not a statistics file, in one line:
    what it is, if it is another lockswap output, and what to do."""
    if isinstance(doc, dict) and doc.get("schema") == "lockswap-fleet":
        return (f"{path} is a fleet comparison (lockswap report --by-arm --out), not a "
                f"statistics file: its table is in {os.path.splitext(path)[0]}.md; {HOW_TO_PROFILE}")
    invocation = doc.get("invocation") if isinstance(doc, dict) else None
    if isinstance(invocation, str) and "runs" in doc:
        tool = " ".join(invocation.split()[:2])
        return (f"{path} is the result of `{tool}` (its table is in "
                f"{os.path.splitext(path)[0]}.md, its runs in \"runs\"), not a statistics "
                f"file; {HOW_TO_PROFILE}")
    return (f"{path} is not a lockswap statistics file (no \"schema\": \"{SCHEMA}\"); "
            f"{HOW_TO_PROFILE}")


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    except ValueError as e:  # not text
        raise UsageError(f"{path} is not JSON: {e}") from None
    if not text.strip():
        raise UsageError(f"{path} is empty: not a file the library wrote (it writes "
                         "LOCKSWAP_STATS_FILE whole, at exit or on LOCKSWAP_STATS_SIGNAL, under a "
                         "temporary name that it renames)")
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise UsageError(f"{path} is not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise UsageError(not_statistics(path, doc))
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise UsageError(f"{path} has schema_version {doc.get('schema_version')}; "
                         f"this lockswap reads version {SCHEMA_VERSION}")
    doc["_path"] = path
    symbolize.annotate(doc)
    doc["_stacks"] = {s["id"]: s["frames"] for s in doc.get("stacks", [])}
    site_stacks(doc)
    return doc


def fmt_ns(ns):
    if ns is None:
        return "-"
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "\u00b5s")):
        v = ns / scale
        if v >= 1:
            return f"{v:.2f} {unit}" if v < 10 else f"{v:.1f} {unit}" if v < 100 else f"{v:.0f} {unit}"
    return f"{ns:.0f} ns"


def stack_text(frames, source=True):
    """The user's site in FRAMES (innermost first; callsite.py):
    `ns::f(...) (file.cc:33) [std::lock_guard]`, with the lock wrapper it
    went through; `ns::f(...)` without debug information (or SOURCE
    false, which leaves out the wrapper too), `?? (libfoo.so+0x1234)`
    when the name is unknown (never a guess)."""
    f, name, location, wrapper = callsite.user_frame(frames)
    if name:
        text = symbolize.short_name(name)
        if source and location:
            text += f" ({os.path.basename(location)})"
        if source and wrapper:
            text += f" [{wrapper}]"
        return text
    if f.get("object"):
        name = os.path.basename(f.get("_object") or f["object"])
        return f"?? ({name}+{f['offset']})"
    return f["addr"]


def frame_text(f, source=True):
    """One frame as stack_text names it."""
    return stack_text([f], source)


def frame_full_name(f):
    """A frame's whole name (parameters kept), else `?? (object+offset)`."""
    if f.get("symbol"):
        return f["symbol"]
    return frame_text(f)


def site_text(lock):
    """A lock's first-use site; where that lies in a wrapper (-O0's
    __gthread_mutex_lock, shared by every std::mutex), its caller from
    the lock's own waiter stacks (site_stacks)."""
    return stack_text(lock.get("_site_stack") or [lock["site"]])


def site_stacks(doc):
    """Give each lock whose first-use site is all lock wrapper the waiter
    stack of its most frequent contention event that starts there: the
    only record of who called the wrapper (the library keeps one return
    address per lock)."""
    for lock in doc["locks"]:
        site = lock.get("site") or {}
        if not site.get("offset") or callsite.user_level(site)[0] is not False:
            continue
        best = None
        for e in lock.get("contention", []):
            frames = doc["_stacks"].get(e.get("waiter_stack")) or []
            if frames and (frames[0].get("object"), frames[0].get("offset")) == \
                    (site.get("object"), site.get("offset")):
                if best is None or e["count"] > best[0]:
                    best = (e["count"], frames)
        if best:
            lock["_site_stack"] = best[1]


def lock_label(lock):
    """How a lock is known across runs: its variable, else its first-use site."""
    return lock["name"] or f"{lock['type']} at {site_text(lock)}"


def timed(t, key):
    return t[key] if t and t.get("samples") else None


def event_scale(lock, event):
    """Sampled wait -> estimated wait, per lock (an rwlock's, per mode)."""
    w = lock[event["mode"]]["wait"] if "mode" in event else lock["wait"]
    return w["estimated_total_ns"] / w["sampled_total_ns"] if w["sampled_total_ns"] else 1.0


def mutexes(doc):
    return [l for l in doc["locks"] if l["type"] == "mutex"]


def condvars(doc):
    return [l for l in doc["locks"] if l["type"] == "condvar"]
