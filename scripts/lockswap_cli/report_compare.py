"""`lockswap report A.json B.json`: two profiles side by side, their
mutexes matched by label (stats_file.lock_label), with the ratio B/A of
each one's total wait and of all mutexes'."""
from .output import text_table
from .report_tables import brief, header
from .stats_file import fmt_ns, lock_label, mutexes, timed


def ratio(a, b):
    return f"{b / a:.2f}" if a and b is not None else "-"


def compare(a, b, top):
    la = {lock_label(l): l for l in mutexes(a)}
    lb = {lock_label(l): l for l in mutexes(b)}
    names = sorted(set(la) | set(lb), key=lambda n: -max(
        la[n]["wait"]["estimated_total_ns"] if n in la else 0,
        lb[n]["wait"]["estimated_total_ns"] if n in lb else 0))[:top]
    rows = []
    for n in names:
        x, y = la.get(n), lb.get(n)
        wx = timed(x["wait"], "estimated_total_ns") if x else None
        wy = timed(y["wait"], "estimated_total_ns") if y else None
        rows.append((brief(n), x["acquisitions"] if x else "-", y["acquisitions"] if y else "-",
                     x["contended"] if x else "-", y["contended"] if y else "-",
                     fmt_ns(wx), fmt_ns(wy), ratio(wx, wy),
                     fmt_ns(timed(x["wait"], "p99_ns")) if x else "-",
                     fmt_ns(timed(y["wait"], "p99_ns")) if y else "-",
                     f"{x['fairness']['jain']:.3f}" if x and x["fairness"]["threads"] else "-",
                     f"{y['fairness']['jain']:.3f}" if y and y["fairness"]["threads"] else "-"))
    tot = [sum(l["wait"]["estimated_total_ns"] for l in mutexes(d)) for d in (a, b)]
    acq = [sum(l["acquisitions"] for l in mutexes(d)) for d in (a, b)]
    lines = [f"A = {header(a)}", f"B = {header(b)}", "",
             text_table(("lock", "acq A", "acq B", "cont A", "cont B", "wait A", "wait B",
                         "wait B/A", "p99 A", "p99 B", "jain A", "jain B"), rows),
             "", f"all mutexes: acquisitions A {acq[0]}, B {acq[1]}; total wait A {fmt_ns(tot[0])}, "
                 f"B {fmt_ns(tot[1])} (B/A {ratio(tot[0], tot[1])})"]
    return "\n".join(lines)
