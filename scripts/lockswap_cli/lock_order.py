"""The "lock_order" section of a statistics file (LOCKSWAP_DEADLOCK and
LOCKSWAP_HANG_MS, docs/deadlock.md): what `lockswap report` prints of it,
the potential deadlocks (cycles in the lock order) and the hangs the
watchdog saw, each site named as the report names the others (the user's
frame, file:line where debug information has it).

A held lock's site is one return address; where that lies in a lock
wrapper (a C++ program built without optimisation) or in lockswap itself
(C11's mtx_lock), the request's stack names the user's function instead,
as the library's own report on stderr does.
"""
import os

from . import callsite
from .stats_file import fmt_ns, frame_text, stack_text


def _own(frame):
    return os.path.basename(frame.get("object") or "").startswith("liblockswap")


def _users(frame):
    return bool(frame) and not _own(frame) and callsite.user_level(frame)[0] is not False


def site(frame, stack=()):
    """A one-address site as the user's ("at f (f.c:12)"); else "in" the
    function of the stack's user frame, without a line, which is the
    request's and not the held lock's."""
    if _users(frame):
        return "at " + frame_text(frame)
    users = [f for f in stack or () if not _own(f)]
    if users:
        return "in " + stack_text(users, source=False)
    return "at " + (frame_text(frame) if frame else "?")


def request_site(edge):
    """The request's user frame, and its caller where that is the program's too."""
    stack = [f for f in edge.get("request_stack") or () if not _own(f)]
    if not stack:
        return site(edge.get("request_site"))[3:]
    first, _, _, _ = callsite.user_frame(stack)
    text = stack_text(stack)
    at = stack.index(first) if first in stack else 0
    if at + 1 < len(stack) and _users(stack[at + 1]):
        caller = frame_text(stack[at + 1])
        if not caller.startswith(("std::", "__")):
            text += " < " + caller
    return text


def lock_text(lock):
    """`mutex lock_a`, `rwlock 0x55... (first used at f (f.c:12))`."""
    if lock.get("name"):
        return f"{lock['type']} {lock['name']}"
    where = f" (first used {site(lock['site'])})" if lock.get("site") else ""
    return f"{lock['type']} {lock['addr']}{where}"


def _thread(t):
    return f"thread {t['tid']} \"{t['name']}\"" if t.get("name") else f"thread {t['tid']}"


def _cycle_lines(c):
    if c["gated"]:
        head = (f"gated cycle of {c['length']} locks: every edge was taken holding "
                f"{lock_text(c['gate'])}, so it cannot deadlock")
    else:
        head = (f"potential deadlock: a cycle of {c['length']} locks (each thread can hold its "
                "lock while it waits for the next)")
    out = [head]
    for e in c["edges"]:
        read = lambda l: " for reading" if l.get("read") else ""
        held = site(e.get("held_site"), e.get("request_stack"))
        timed = " (a timed lock)" if e.get("timed") else ""
        out.append(f"  {_thread(e['thread'])} held {lock_text(e['from'])}{read(e['from'])}, taken "
                   f"{held}, and requested {lock_text(e['to'])}{read(e['to'])} at "
                   f"{request_site(e)}{timed}")
    if c["length"] > len(c["edges"]):
        out.append(f"  ... and {c['length'] - len(c['edges'])} more steps")
    return out


def _holder(t):
    if t.get("holder_tid") is None:
        return "held by no thread lockswap could name"
    who = "a thread of the parent process" if t["holder_tid"] < 0 else f"thread {t['holder_tid']}"
    return f"held by {who}, which took it {site(t.get('holder_site'))}"


def _hang_lines(h):
    ts = h["threads"]
    if h["kind"] == "deadlock":
        head = ("deadlock: a thread waits for a lock it holds itself" if len(ts) == 1 else
                f"deadlock: {len(ts)} threads wait for each other")
    else:
        head = "long wait"
    out = [head]
    for t in ts:
        out.append(f"  thread {t['tid']} \"{t['name']}\" waits for {lock_text(t['waits_for'])} "
                   f"{site(t.get('site'))}, for {fmt_ns(t['waited_ns'])}; {_holder(t)}")
    return out


def text(doc):
    """The section as text, or None when the file has none."""
    lo = doc.get("lock_order")
    if not lo:
        return None
    lines = [f"lock order (LOCKSWAP_DEADLOCK={lo['mode']}): {lo['cycles_found']} potential "
             f"deadlocks, {lo['gated_cycles']} cycles ruled out by a gate lock; {lo['locks']} "
             f"locks and {lo['edges']} orders seen"
             + ("; the graph filled up, later orders were not checked" if lo.get("full") else "")]
    for c in sorted(lo["cycles"], key=lambda c: c["gated"]):
        lines.append("")
        lines.extend(_cycle_lines(c))
    lines.append("")
    lines.append(f"hangs (LOCKSWAP_HANG_MS={lo['hang_ms']}): {lo['deadlocks']} deadlocks, "
                 f"{lo['long_waits']} long waits")
    for h in lo["hangs"]:
        lines.extend(_hang_lines(h))
    now = lo.get("now") or []
    if now:
        lines.append("")
        lines.append(f"at this dump, {len(now)} threads held or waited for a lock:")
        for t in now:
            holds = ", ".join(f"{l['type']} {l['lock']} (taken {site(l.get('site'))})"
                              for l in t["holds"])
            w = t.get("waits_for")
            waits = (f"; waits for {w['type']} {w['lock']} {site(w.get('site'))}, for "
                     f"{fmt_ns(w['waited_ns'])}") if w else ""
            lines.append(f"  thread {t['tid']}: holds {holds or 'nothing'}{waits}")
    return "\n".join(lines)
