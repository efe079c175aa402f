"""The frames of a statistics file's "lock_order" section (lock_order.py),
apart from it so that symbolize.py, which annotates every frame of a file,
needs nothing that needs it."""


def frames(doc):
    """Every frame of the section, for symbolize.annotate."""
    lo = doc.get("lock_order") or {}

    def lock_frames(l):
        if l and l.get("site"):
            yield l["site"]
    for c in lo.get("cycles", []):
        if c.get("gate"):
            yield from lock_frames(c["gate"])
        for e in c.get("edges", []):
            yield from lock_frames(e.get("from"))
            yield from lock_frames(e.get("to"))
            for key in ("held_site", "request_site"):
                if e.get(key):
                    yield e[key]
            yield from e.get("request_stack") or ()
    for h in lo.get("hangs", []):
        for t in h.get("threads", []):
            for key in ("site", "holder_site"):
                if t.get(key):
                    yield t[key]
    for t in lo.get("now", []):
        for l in t.get("holds", []):
            if l.get("site"):
                yield l["site"]
        w = t.get("waits_for")
        if w and w.get("site"):
            yield w["site"]
