"""`lockswap report FILE.json`'s tables of one statistics file: the top
mutexes and condvars (--by lock), the contended call sites (--by site),
the threads (--by thread), and the header line that says what the file is."""
import os

from . import callsite
from .output import text_table
from .stats_file import (condvars, event_scale, fmt_ns, lock_label, mutexes, site_text,
                         stack_text, timed)


def header(doc):
    mode = ("full (every event timed)" if doc["mode"] == "full"
            else f"summary (times sampled 1 in {doc['sample']})")
    return (f"{doc['_path']}: {os.path.basename(doc['program'])} pid {doc['pid']}, backend "
            f"{doc['backend']}, {mode}, {fmt_ns(doc['elapsed_ns'])}, {len(mutexes(doc))} mutexes, "
            f"{len(condvars(doc))} condvars, {len(doc['threads'])} threads ({doc['reason']} dump)")



def brief(text):
    """A name as a table shows it: template arguments shortened."""
    return callsite.short_templates(text)


def by_lock(doc, top):
    rows = []
    for l in sorted(mutexes(doc), key=lambda l: -l["wait"]["estimated_total_ns"])[:top]:
        f = l["fairness"]
        acq = l["acquisitions"]
        rows.append((l["id"], brief(lock_label(l)), acq, l["contended"],
                     f"{100 * l['contended'] / acq:.2f}" if acq else "-",
                     fmt_ns(timed(l["wait"], "estimated_total_ns")), fmt_ns(timed(l["wait"], "p50_ns")),
                     fmt_ns(timed(l["wait"], "p99_ns")), fmt_ns(timed(l["wait"], "p999_ns")),
                     fmt_ns(timed(l["hold"], "p50_ns")), fmt_ns(timed(l["hold"], "p99_ns")),
                     l["owner_changes"], f["threads"],
                     f"{100 * f['min_share']:.1f}" if f["threads"] else "-",
                     f"{100 * f['max_share']:.1f}" if f["threads"] else "-",
                     f"{f['jain']:.3f}" if f["threads"] else "-", l["served_by"], brief(site_text(l))))
    out = [text_table(("id", "lock", "acquired", "contended", "cont%", "wait total", "wait p50",
                       "wait p99", "wait p99.9", "hold p50", "hold p99", "owner chg", "thr",
                       "min%", "max%", "jain", "served", "first used at"), rows, left=(1, 16, 17))]
    conds = sorted(condvars(doc), key=lambda l: -l["waits"])[:top]
    if conds:
        ids = {l["id"]: brief(lock_label(l)) for l in mutexes(doc)}
        rows = [(l["id"], brief(lock_label(l)), l["waits"], l["timeouts"], l["signals"], l["broadcasts"],
                 fmt_ns(timed(l["wait"], "p50_ns")), fmt_ns(timed(l["wait"], "p99_ns")),
                 ids.get(l["mutex"], "-"), brief(site_text(l))) for l in conds]
        out += ["", text_table(("id", "condvar", "waits", "timeouts", "signals", "broadcasts",
                                "wait p50", "wait p99", "mutex", "first used at"), rows,
                               left=(1, 8, 9))]
    return "\n".join(out)


def site_of(doc, stack_id, fallback):
    frames = doc["_stacks"].get(stack_id) if stack_id else None
    return stack_text(frames or [fallback])


def by_site(doc, top):
    sites = {}
    for l in doc["locks"]:
        for e in l["contention"]:
            scale = event_scale(l, e)
            key = site_of(doc, e["waiter_stack"], e["waiter_site"])
            s = sites.setdefault(key, {"count": 0, "wait": 0.0, "locks": set(), "holders": {}})
            s["count"] += e["count"] * scale
            s["wait"] += e["estimated_wait_ns"]
            s["locks"].add(lock_label(l))
            h = site_of(doc, e["holder_stack"], e["holder_site"])
            s["holders"][h] = s["holders"].get(h, 0) + e["estimated_wait_ns"]
    total = sum(s["wait"] for s in sites.values()) or 1
    rows = []
    for name, s in sorted(sites.items(), key=lambda kv: -kv[1]["wait"])[:top]:
        holder = max(s["holders"].items(), key=lambda kv: kv[1])[0] if s["holders"] else "-"
        rows.append((brief(name), f"{s['count']:.0f}", fmt_ns(s["wait"]), f"{100 * s['wait'] / total:.1f}",
                     ", ".join(brief(n) for n in sorted(s["locks"])), brief(holder)))
    if not rows:
        return "no sampled contended waits"
    return text_table(("waiting at", "waits (est.)", "wait (est.)", "wait%", "locks",
                       "mostly blocked by"), rows, left=(0, 4, 5))


def by_thread(doc, top):
    threads = {t["id"]: {"t": t, "acq": 0, "cont": 0, "locks": 0, "waits": 0} for t in doc["threads"]}
    for l in doc["locks"]:
        for p in l["per_thread"]:
            r = threads.setdefault(p["thread"], {"t": {"id": p["thread"], "tid": "?", "name": "?",
                                                      "alive": False},
                                                "acq": 0, "cont": 0, "locks": 0, "waits": 0})
            if l["type"] == "mutex":
                r["acq"] += p["acquisitions"]
                r["cont"] += p["contended"]
                r["locks"] += 1
            elif l["type"] == "condvar":
                r["waits"] += p["waits"]
    rows = [(r["t"]["id"], r["t"]["tid"], r["t"]["name"], "yes" if r["t"]["alive"] else "no",
             r["acq"], r["cont"], f"{100 * r['cont'] / r['acq']:.2f}" if r["acq"] else "-",
             r["locks"], r["waits"])
            for r in sorted(threads.values(), key=lambda r: -r["acq"])[:top]]
    return text_table(("thread", "tid", "name", "alive", "acquired", "contended", "cont%",
                       "mutexes", "cond waits"), rows, left=(2, 3))
