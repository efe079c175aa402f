"""Statistics files whose name is not a regular file (stats/writing.c
ls_stats_file_open): a FIFO and a character device are written where they
are, appended, and stay what they were; a FIFO that nobody reads fails
with a warning instead of holding the program at exit; a chain of
symbolic links to a regular file replaces the file whole and keeps the
links.  Before, every name was written beside and renamed over, so a
LOCKSWAP_STATS_FILE=/dev/null turned /dev/null into a regular file for
every process on the machine.  The device here is a copy of /dev/null made
in the test's own directory (mknod, root only), so that a failure cannot
break the machine's."""
import json
import os
import stat
import threading

from checks import report


def read_all(fd, into):
    with os.fdopen(fd, "rb") as f:  # until every writer has closed it
        into.append(f.read().decode())


def test_targets(run, env, valid, tmp):
    e = env("futex", STATS="summary", STATS_TOP=0)

    # The FIFO has a reader before the program starts, and a writer of
    # the test's own until it ends, so that the reader sees the end of
    # the data only after the program's writes.
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    wfd = os.open(fifo, os.O_WRONLY)
    os.set_blocking(rfd, True)
    got = []
    reader = threading.Thread(target=read_all, args=(rfd, got), daemon=True)
    reader.start()
    try:
        p = run("stats_counts", [], dict(e, LOCKSWAP_STATS_FILE=fifo))
    finally:
        os.close(wfd)
    reader.join(30)
    text = got[0] if got else ""
    ok = p.returncode == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode) and text.startswith("{")
    if report(ok, "STATS_FILE a FIFO: written into it, and it stays a FIFO",
              f"exit {p.returncode}, read {text[:120]!r}, stderr {p.stderr[-200:]!r}"):
        valid(json.loads(text), "STATS_FILE a FIFO")

    lonely = os.path.join(tmp, "lonely-fifo")
    os.mkfifo(lonely)
    p = run("stats_counts", [], dict(e, LOCKSWAP_STATS_FILE=lonely), timeout=60)
    report(p.returncode == 0 and "cannot write the statistics to" in p.stderr,
           "STATS_FILE a FIFO nobody reads: the program exits, with a one-line warning",
           f"exit {p.returncode}, stderr {p.stderr[-200:]!r}")

    # A relative link to a link to a regular file: the file is replaced
    # whole at each run (two runs leave one document), the links stay.
    target = os.path.join(tmp, "target.json")
    os.symlink("target.json", os.path.join(tmp, "inner.json"))
    link = os.path.join(tmp, "link.json")
    os.symlink(os.path.join(tmp, "inner.json"), link)
    open(target, "w").close()
    runs = [run("stats_counts", [], dict(e, LOCKSWAP_STATS_FILE=link)) for _ in range(2)]
    with open(target) as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    ok = (all(p.returncode == 0 for p in runs) and os.path.islink(link) and doc is not None and
          sorted(n for n in os.listdir(tmp) if n.endswith(".json") or ".tmp" in n) ==
          ["inner.json", "link.json", "target.json"])
    if report(ok, "STATS_FILE a chain of symbolic links to a regular file: the file replaced "
              "whole at each run (one JSON document after two), the links kept",
              f"exits {[p.returncode for p in runs]}, link kept {os.path.islink(link)}, "
              f"files {sorted(os.listdir(tmp))}, target {text[:120]!r}"):
        valid(doc, "STATS_FILE a symbolic link")

    if os.geteuid() != 0:
        report(True, "STATS_FILE and STATS_FOLDED a character device # SKIP not root (mknod)")
        return
    null = os.path.join(tmp, "null")
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    p = run("stats_counts", [], dict(e, LOCKSWAP_STATS_FILE=null, LOCKSWAP_STATS_FOLDED=null))
    kept = stat.S_ISCHR(os.lstat(null).st_mode)
    left = [n for n in os.listdir(tmp) if n.startswith("null")]
    report(p.returncode == 0 and kept and left == ["null"] and "cannot write" not in p.stderr,
           "STATS_FILE and STATS_FOLDED a character device (a copy of /dev/null): written, "
           "still a device, no temporary left",
           f"exit {p.returncode}, device kept {kept}, files {left}, stderr {p.stderr[-200:]!r}")
