#!/usr/bin/python3
"""measure-prom-writer.py [--interval S] -- CMD ARGS

What the LOCKSWAP_STATS_PROM writer thread costs a running program, in
CPU time: runs CMD under liblockswap.so with LOCKSWAP_STATS=summary and
the export every S seconds (default 1), samples every 20 ms the CPU time
of the writer thread ("lockswap-prom", /proc/PID/task/TID/schedstat, in
ns) and of the whole process, and counts the writes (each rename leaves a
new inode).  Prints the writer's CPU time per write and its share of the
process's CPU time.  CPU time, not wall time: a loaded machine slows both
sides alike, which is why this complements the interleaved A/B.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def task_cpu(pid):
    """{tid: (comm, cpu ns)} of the live threads of pid."""
    out = {}
    base = f"/proc/{pid}/task"
    for tid in os.listdir(base):
        try:
            with open(f"{base}/{tid}/comm") as f:
                comm = f.read().strip()
            with open(f"{base}/{tid}/schedstat") as f:
                out[tid] = (comm, int(f.read().split()[0]))
        except OSError:
            pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interval", type=int, default=1)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command")
    with tempfile.TemporaryDirectory(dir="/dev/shm") as d:
        path = os.path.join(d, "x.prom")
        env = dict(os.environ, LD_PRELOAD=os.path.join(REPO, "liblockswap.so"),
                   LOCKSWAP_STATS="summary", LOCKSWAP_STATS_TOP="0",
                   LOCKSWAP_STATS_PROM=path, LOCKSWAP_STATS_INTERVAL=str(a.interval))
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
        writer_ns, threads_ns, inodes, size = 0, {}, set(), 0
        while p.poll() is None:
            try:
                cpu = task_cpu(p.pid)
                st = os.stat(path)
                inodes.add(st.st_ino)
                size = st.st_size
            except OSError:
                cpu = {}
            for tid, (comm, ns) in cpu.items():
                threads_ns[tid] = ns
                if comm == "lockswap-prom":
                    writer_ns = ns
            time.sleep(0.02)
    total = sum(threads_ns.values())
    writes = len(inodes)
    if not writes or not total:
        print("measure-prom-writer: no write or no CPU time seen", file=sys.stderr)
        return 1
    print(f"writes seen {writes} (every {a.interval} s), file {size} bytes")
    print(f"writer CPU {writer_ns / 1e6:.2f} ms in all, {writer_ns / writes / 1e3:.0f} us per write")
    print(f"process CPU {total / 1e6:.0f} ms; writer share {100.0 * writer_ns / total:.3f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
