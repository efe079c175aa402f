"""The exit summary reaches the standard error the program started with
(stats/stderr_keep.c), whatever the program did to its own fd 2 first:
tests/stats/progs/stats_stderr.c in each of its modes, and GNU sort, which
closes stderr at exit (gnulib's close_stdout)."""
import os
import shutil
import subprocess

from checks import report

HEAD = "lockswap stats (exit):"


def summaries(text):
    return text.count(HEAD)


def test_stderr(run, env, lib, tmp):
    e = env("futex", STATS="summary")
    p = run("stats_stderr", ["keep"], e)
    report(p.returncode == 0 and summaries(p.stderr) == 1,
           "stderr kept: one summary on stderr", p.stderr[-300:])

    p = run("stats_stderr", ["close"], e)
    report(p.returncode == 0 and summaries(p.stderr) == 1 and "done 40000" in p.stdout,
           "stderr closed at exit (as gnulib's close_stdout): the summary still reaches it",
           f"exit {p.returncode}, stderr {p.stderr[-300:]!r}")

    data = os.path.join(tmp, "data")
    p = run("stats_stderr", ["close-reuse", data], e)
    with open(data) as f:
        kept = f.read()
    report(p.returncode == 0 and summaries(p.stderr) == 1 and kept == "data\n",
           "stderr closed and its number reused for the program's file: the summary goes to "
           "the original stderr, the file keeps only the program's data",
           f"exit {p.returncode}, file {kept[:200]!r}, stderr {p.stderr[-200:]!r}")

    log = os.path.join(tmp, "log")
    p = run("stats_stderr", ["redirect", log], e)
    with open(log) as f:
        logged = f.read()
    report(p.returncode == 0 and summaries(p.stderr) == 1 and summaries(logged) == 0,
           "stderr redirected by the program: the summary goes where the program was started",
           f"exit {p.returncode}, log {logged[:200]!r}, stderr {p.stderr[-200:]!r}")

    p = run("stats_stderr", ["close-all"], e)
    report(p.returncode == 0 and "done 40000" in p.stdout and summaries(p.stderr) == 0,
           "every descriptor closed: no summary, no crash, exit status kept",
           f"exit {p.returncode}, stdout {p.stdout[-100:]!r}")

    sort = shutil.which("sort")
    if not sort:
        report(False, "GNU sort (coreutils) on PATH")
        return
    src = os.path.join(tmp, "lines")
    with open(src, "w") as f:
        f.writelines(f"{(i * 7919) % 200003}\n" for i in range(200000))
    out = os.path.join(tmp, "sorted")
    ee = dict(e, LD_PRELOAD=lib)
    p = subprocess.run([sort, "--parallel=2", "-S", "2M", "-n", src, "-o", out], env=ee,
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    with open(out) as f:
        first = f.readline().strip()
    report(p.returncode == 0 and summaries(p.stderr) == 1 and first == "0",
           "GNU sort --parallel=2 (closes stderr at exit): its summary is printed",
           f"exit {p.returncode}, first line {first!r}, stderr {p.stderr[-300:]!r}")
