"""`lockswap report`'s files for other tools: folded stacks of wait time
(--folded, flamegraph.pl's input) and the pprof profile (--pprof, written
by pprof.py).  The waits are sampled, so each event's wait is scaled by its
lock's estimated over sampled total (event_scale)."""
from . import pprof
from .errors import ToolError
from .stats_file import event_scale, frame_full_name, frame_text, lock_label


def folded_lines(doc, holders=False):
    lines = {}
    for l in doc["locks"]:
        for e in l["contention"]:
            scale = event_scale(l, e)
            sid = e["holder_stack"] if holders else e["waiter_stack"]
            frames = doc["_stacks"].get(sid) if sid else None
            names = [frame_text(f, False) for f in frames] if frames else \
                [frame_text(e["holder_site"] if holders else e["waiter_site"], False)]
            stack = ";".join(n.replace(";", "_") for n in reversed(names))
            key = f"{stack};[{l['type']} {l['id']} {lock_label(l).replace(';', '_')}]"
            lines[key] = lines.get(key, 0) + e["wait_ns"] * scale
    return [f"{k} {round(v)}" for k, v in lines.items() if round(v) > 0]


def write_pprof(path, doc, holders):
    """Write the profile; returns the line that says what it holds."""
    try:
        counts = pprof.write(path, doc, holders, frame_full_name, event_scale, lock_label)
        return (f"{path}: {counts.text()} (view: go tool pprof -top {path}, "
                f"or -list FUNCTION for the source lines)")
    except OSError as e:
        raise ToolError(f"cannot write {path}: {e.strerror}") from None


def write_folded(path, doc, holders=False):
    text = "".join(line + "\n" for line in folded_lines(doc, holders))
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise ToolError(f"cannot write {path}: {e.strerror}") from None
