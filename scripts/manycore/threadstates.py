#!/usr/bin/python3
"""threadstates.py - what every thread of a process is doing, sampled.

While a program runs, read each of its threads' /proc/PID/task/TID/stat
(scheduler state R/S/D) and /proc/PID/task/TID/syscall (the system call it
is blocked in, with its arguments) every few milliseconds, and summarize
per thread: the share of samples running (state R: on a CPU or runnable),
waiting in a futex (and on which address), in sched_yield, in another
system call; its CPU time and context switches over the run (switches
read every 8th round).  Futex addresses are
named by symbol where a symbol covers them (`nm` of the mapped file, when
nm exists), else by mapping.

Reading another process's `syscall` file needs ptrace access to it (same
user with ptrace_scope 0, or root); a child this script starts itself is
always readable (a parent may trace its child under ptrace_scope 1).

Python 3 standard library only, so that it runs on any test machine.

  threadstates.py [--interval-ms MS] [--json FILE] [--label NAME] -- CMD ARGS...
  threadstates.py --pid PID [--seconds S] ...

With a command, it starts CMD (its stdout passes through unchanged),
samples until it exits, and exits with CMD's status.  The summary goes to
stderr (or --text FILE), the raw counts to --json.
"""
import argparse
import bisect
import json
import os
import platform
import shutil
import subprocess
import sys
import time

# futex(2) and sched_yield(2) numbers per architecture.
SYSCALLS = {
    "x86_64": {"futex": 202, "sched_yield": 24, "nanosleep": 35, "clock_nanosleep": 230},
    "aarch64": {"futex": 98, "sched_yield": 124, "nanosleep": 101, "clock_nanosleep": 115},
}
FUTEX_CMD_MASK = 0x7F  # op without FUTEX_PRIVATE_FLAG / FUTEX_CLOCK_REALTIME
FUTEX_OPS = {0: "wait", 1: "wake", 9: "wait_bitset", 10: "wake_bitset", 5: "wake_op"}


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("ascii", "replace")
    except OSError:
        return None


def sample_thread(task_dir, nrs):
    """(state, what, cpu ticks) of one thread, or None once it is gone.
    what: 'run', 'futex:<op>:<addr>', 'yield', 'sleep', 'sys:<nr>', or
    'blocked'.  One or two small reads, so that the sampler itself takes
    little CPU from the program it watches."""
    stat = read(task_dir + "/stat")
    if stat is None:
        return None
    # comm may hold spaces and parentheses: the state follows the last ')'.
    rest = stat[stat.rfind(")") + 2:].split()
    state, cpu = rest[0], int(rest[11]) + int(rest[12])  # utime + stime
    return state, what(task_dir, state, nrs), cpu


def what(task_dir, state, nrs):
    """The sample's class; R (on a CPU, or runnable and waiting for one) is
    'run': its syscall file would only say 'running'."""
    if state == "R":
        return "run"
    sc = read(task_dir + "/syscall")
    if sc is None:
        return "unreadable"
    fields = sc.split()
    if not fields or fields[0] == "running":
        return "run"
    try:
        nr = int(fields[0])
    except ValueError:
        return "blocked"  # "-1 ..." : not in a system call
    if nr == nrs.get("futex") and len(fields) > 2:
        op = int(fields[2], 16) & FUTEX_CMD_MASK
        return "futex:%s:%s" % (FUTEX_OPS.get(op, str(op)), fields[1])
    if nr == nrs.get("sched_yield"):
        return "yield"
    if nr in (nrs.get("nanosleep"), nrs.get("clock_nanosleep")):
        return "sleep"
    return "sys:%d" % nr


def switches(task_dir):
    st = read(task_dir + "/status") or ""
    v = nv = 0
    for line in st.splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            v = int(line.split()[1])
        elif line.startswith("nonvoluntary_ctxt_switches:"):
            nv = int(line.split()[1])
    return v, nv


class Symbols:
    """Names futex addresses: symbol+offset in a mapped ELF file, else the
    mapping ('[heap]', '[stack:...]', 'anon')."""

    def __init__(self, pid):
        self.maps = []  # (start, end, path)
        self.bases = {}  # path -> lowest mapped address
        text = read("/proc/%d/maps" % pid) or ""
        for line in text.splitlines():
            parts = line.split(None, 5)
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5].strip() if len(parts) > 5 else ""
            self.maps.append((lo, hi, path))
            if path.startswith("/") and (path not in self.bases or lo < self.bases[path]):
                self.bases[path] = lo
        self.maps.sort()
        self.starts = [m[0] for m in self.maps]
        self.syms = {}  # path -> (sorted addrs, names)

    def _symtab(self, path):
        if path in self.syms:
            return self.syms[path]
        addrs, names = [], []
        if shutil.which("nm"):
            try:
                out = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True,
                                     text=True, timeout=20).stdout
            except (OSError, subprocess.TimeoutExpired):
                out = ""
            for line in out.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in "bBdDrRtT":
                    addrs.append(int(p[0], 16))
                    names.append(p[2])
        self.syms[path] = (addrs, names)
        return self.syms[path]

    def name(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i < 0 or addr >= self.maps[i][1]:
            return "unmapped"
        path = self.maps[i][2]
        if not path and i > 0 and self.maps[i - 1][2].startswith("/") and \
                self.maps[i - 1][1] == self.maps[i][0]:
            path = self.maps[i - 1][2]  # .bss past the file's last page
        if path.startswith("/"):
            addrs, names = self._symtab(path)
            rel = addr - self.bases[path]
            j = bisect.bisect_right(addrs, rel) - 1
            if j >= 0:
                return "%s:%s+%d" % (os.path.basename(path), names[j], rel - addrs[j])
            return os.path.basename(path)
        return path or "anon"


def cpu_times():
    """The machine's CPU time so far (/proc/stat 'cpu' line), in ticks:
    {"total", "idle" (idle + iowait), "steal"} (steal: time the hypervisor
    ran someone else while a CPU of this VM had work)."""
    line = (read("/proc/stat") or "cpu 0").splitlines()[0].split()[1:]
    v = [int(x) for x in line] + [0] * 10
    return {"total": sum(v[:8]), "idle": v[3] + v[4], "steal": v[7]}


def runnable_now():
    """Runnable tasks on the machine now (/proc/loadavg's 4th field)."""
    f = (read("/proc/loadavg") or "0 0 0 0/0").split()
    return int(f[3].split("/")[0])


def sample(pid, interval, stop, maps, machine):
    """Sample until stop() or the process is gone; returns per-thread
    counters: {tid: {"comm", "n", "what": {what: count}, ...}}.  maps[0]
    is re-read after 0.2 s, once threads' stacks and heaps are mapped.
    machine gets the CPU time deltas over the sampled window and the
    mean number of runnable tasks outside the program."""
    nrs = SYSCALLS.get(platform.machine(), {})
    threads = {}
    base = "/proc/%d/task" % pid
    samples = 0
    outside = 0
    c0 = cpu_times()
    t0 = time.monotonic()
    while not stop():
        try:
            tids = os.listdir(base)
        except OSError:
            break
        running = runnable_now()
        own = 0
        for tid in tids:
            d = base + "/" + tid
            s = sample_thread(d, nrs)
            if s is None:
                continue
            t = threads.get(tid)
            if t is None:
                comm = (read(d + "/comm") or "?").strip()
                t = threads[tid] = {"comm": comm, "n": 0, "what": {}, "states": {},
                                    "cpu0": s[2], "sw0": switches(d)}
            t["n"] += 1
            own += s[0] == "R"
            t["what"][s[1]] = t["what"].get(s[1], 0) + 1
            t["states"][s[0]] = t["states"].get(s[0], 0) + 1
            t["cpu1"] = s[2]
            if t["n"] % 8 == 0:  # context switches: a larger read, less often
                t["sw1"] = switches(d)
        samples += 1
        outside += max(0, running - own - 1)  # less the sampler itself
        if maps[1] is None and time.monotonic() - t0 > 0.2:
            maps[0], maps[1] = Symbols(pid), True
        time.sleep(interval)
    c1 = cpu_times()
    dt = max(1, c1["total"] - c0["total"])
    machine["idle_share"] = round((c1["idle"] - c0["idle"]) / dt, 4)
    machine["steal_share"] = round((c1["steal"] - c0["steal"]) / dt, 4)
    machine["outside_runnable_mean"] = round(outside / max(1, samples), 3)
    return threads, samples, time.monotonic() - t0


def kind(what):
    """Coarse class of one sample."""
    if what.startswith("futex:wait"):
        return "futex_wait"
    if what.startswith("futex:"):
        return "futex_other"
    return what if what in ("run", "yield", "sleep") else "other"


def places(name, addr):
    """(coarse, exact) names of a futex address: a symbol's buckets are one
    coarse place (a waiting array), a lock outside any symbol (the heap)
    is its own place."""
    if "+" in name:
        return name.split("+")[0], name
    exact = "%s@%#x" % (name, addr)
    return exact, exact


def summarize(threads, samples, secs, names, label, pid, machine):
    hz = os.sysconf("SC_CLK_TCK")
    out = {"label": label, "rounds": samples, "seconds": round(secs, 3), "machine": machine,
           "threads": []}
    by_addr = {}
    for tid, t in sorted(threads.items(), key=lambda kv: int(kv[0])):
        n = t["n"] or 1
        classes = {}
        addrs = {}
        for w, c in t["what"].items():
            k = kind(w)
            classes[k] = classes.get(k, 0) + c
            if k == "futex_wait":
                addr = int(w.split(":")[2], 16)
                coarse, exact = places(names(addr), addr)
                addrs[coarse] = addrs.get(coarse, 0) + c
                by_addr[exact] = by_addr.get(exact, 0) + c
        cpu = None
        if t.get("cpu1") is not None and t.get("cpu0") is not None:
            cpu = round((t["cpu1"] - t["cpu0"]) / hz, 3)
        sw = t.get("sw1", t["sw0"])
        out["threads"].append({
            "tid": int(tid), "comm": t["comm"], "samples": t["n"],
            "share": {k: round(c / n, 4) for k, c in sorted(classes.items())},
            "futex_wait_on": {a: round(c / n, 4) for a, c in
                              sorted(addrs.items(), key=lambda kv: -kv[1])},
            "cpu_s": cpu,
            "voluntary_switches": sw[0] - t["sw0"][0],
            "involuntary_switches": sw[1] - t["sw0"][1],
        })
    out["futex_wait_addresses"] = dict(sorted(by_addr.items(), key=lambda kv: -kv[1]))
    # Totals over every thread but the main one (which, in a benchmark,
    # waits for the others), as shares of their samples.
    workers = [t for t in out["threads"] if t["tid"] != pid] or out["threads"]
    n = sum(t["samples"] for t in workers) or 1
    tot, on = {}, {}
    for t in workers:
        for k, v in t["share"].items():
            tot[k] = tot.get(k, 0) + v * t["samples"]
        for k, v in t["futex_wait_on"].items():
            on[k] = on.get(k, 0) + v * t["samples"]
    out["all"] = {
        "share": {k: round(v / n, 4) for k, v in sorted(tot.items())},
        "futex_wait_on": {k: round(v / n, 4) for k, v in sorted(on.items(), key=lambda kv: -kv[1])},
        "threads": len(workers),
        "cpu_s": round(sum(t["cpu_s"] or 0 for t in workers), 3),
        "voluntary_switches": sum(t["voluntary_switches"] for t in workers),
        "involuntary_switches": sum(t["involuntary_switches"] for t in workers),
    }
    return out


def text(summary):
    m = summary["machine"]
    lines = ["# threadstates %s: %d rounds in %.2f s; machine: idle %.2f, steal %.2f of CPU "
             "time, %.2f runnable tasks outside the program on average" %
             (summary["label"], summary["rounds"], summary["seconds"], m.get("idle_share", 0),
              m.get("steal_share", 0), m.get("outside_runnable_mean", 0)),
             "| tid | comm | samples | run | futex wait | yield | other | cpu s | vol/invol switches | futex wait on |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for t in summary["threads"]:
        s = t["share"]
        other = sum(v for k, v in s.items() if k not in ("run", "futex_wait", "yield"))
        on = ", ".join("%s %.2f" % (a, v) for a, v in list(t["futex_wait_on"].items())[:3])
        lines.append("| %d | %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %d / %d | %s |" % (
            t["tid"], t["comm"], t["samples"], s.get("run", 0), s.get("futex_wait", 0),
            s.get("yield", 0), other, t["cpu_s"], t["voluntary_switches"],
            t["involuntary_switches"], on or "-"))
    a = summary["all"]
    s = a["share"]
    lines.append("| all but main | | | %.2f | %.2f | %.2f | %.2f | %s | %d / %d | %s |" % (
        s.get("run", 0), s.get("futex_wait", 0), s.get("yield", 0),
        sum(v for k, v in s.items() if k not in ("run", "futex_wait", "yield")), a["cpu_s"],
        a["voluntary_switches"], a["involuntary_switches"],
        ", ".join("%s %.2f" % kv for kv in list(a["futex_wait_on"].items())[:3]) or "-"))
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pid", type=int, help="sample this running process")
    ap.add_argument("--seconds", type=float, default=None,
                    help="with --pid: stop after this long (default: until it exits)")
    ap.add_argument("--interval-ms", type=float, default=2.0, help="between rounds (default 2)")
    ap.add_argument("--label", default="", help="a name for the summary")
    ap.add_argument("--json", help="write the summary as JSON to this file")
    ap.add_argument("--text", help="write the table here instead of stderr")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if (a.pid is None) == (not cmd):
        ap.error("give either --pid PID or -- CMD ARGS")
    if a.interval_ms <= 0:
        ap.error("--interval-ms must be positive, got %g" % a.interval_ms)
    proc = None
    if cmd:
        try:
            proc = subprocess.Popen(cmd)
        except OSError as e:
            ap.error("cannot start %s: %s" % (cmd[0], e.strerror))
        pid = proc.pid
        stop = lambda: proc.poll() is not None  # noqa: E731
    else:
        pid = a.pid
        if not os.path.isdir("/proc/%d" % pid):
            ap.error("no process %d" % pid)
        end = time.monotonic() + a.seconds if a.seconds else None
        stop = lambda: end is not None and time.monotonic() >= end  # noqa: E731
    # Names are taken once the program has mapped its libraries.
    time.sleep(min(0.02, a.interval_ms / 1000))
    maps = [Symbols(pid), None]
    machine = {}
    threads, rounds, secs = sample(pid, a.interval_ms / 1000, stop, maps, machine)
    rc = proc.wait() if proc else 0
    summary = summarize(threads, rounds, secs, maps[0].name, a.label, pid, machine)
    table = text(summary)
    if a.text:
        with open(a.text, "w") as f:
            f.write(table)
    else:
        sys.stderr.write(table)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
