"""Running a program many times under several backends, interleaved.

A campaign is a list of groups (one for `ab`; one per thread count for
`sweep`), each with its own command.  Within a group come the warm-up rounds
(results kept apart, never counted), then the measured rounds; every round
runs each backend once, in an order freshly shuffled by a seeded
random.Random, so slow drift of a shared machine (another tenant, thermal
state, page cache) spreads over all backends instead of landing on one.
The whole schedule is drawn before the first run and recorded as run.
"""
import os
import signal
import subprocess
import sys
import time

from .metrics import MetricError, optional_key
from .output import fmt_value
from .settings import child_env

STDERR_TAIL = 5


class Run:
    """One planned, then executed, run of one backend."""

    FIELDS = ("group", "round", "position", "backend", "value", "status",
              "exit_status", "seconds", "warmup", "extras", "stderr_tail")

    def __init__(self, group, rnd, position, variant, warmup):
        self.group, self.round, self.position = group, rnd, position
        self.variant, self.warmup = variant, warmup
        self.backend = variant.label
        self.value = self.exit_status = self.seconds = None
        self.status = "not run"
        self.extras = {}
        self.stderr_tail = []

    @property
    def ok(self):
        return self.status == "ok"

    def to_json(self):
        return {f: getattr(self, f) for f in self.FIELDS}


def plan(groups, variants, rounds, warmup, rng):
    """Runs in execution order.  groups: list of group keys (None for ab)."""
    out = []
    for group in groups:
        for r in range(warmup + rounds):
            order = list(variants)
            rng.shuffle(order)
            is_warm = r < warmup
            rnd = r + 1 if is_warm else r - warmup + 1
            out += [Run(group, rnd, pos + 1, v, is_warm) for pos, v in enumerate(order)]
    return out


def execute(cmd, env, timeout=None):
    """(exit status or None, stdout, stderr, seconds, problem or None).
    The program gets its own session, so a timeout kills it and its
    children; stdin is /dev/null."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return None, "", "", time.monotonic() - start, f"cannot run: {e.strerror}"
    problem = None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        problem = f"timeout after {timeout:g} s"
        _kill(proc)
        out, err = proc.communicate()
    except BaseException:
        _kill(proc)
        proc.wait()
        raise
    seconds = time.monotonic() - start
    text = (out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    return (None if problem else proc.returncode), text[0], text[1], seconds, problem


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def exit_problem(code):
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"


class Progress:
    """One line on stderr: rewritten in place on a terminal, one line per
    run otherwise; the time left is the mean run time so far times the
    runs left."""

    def __init__(self, total, stream=None, quiet=False):
        self.total, self.done, self.spent = total, 0, 0.0
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()

    def note(self, text):
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(f"lockswap: {text}\n")
        self.stream.flush()

    def step(self, run):
        self.done += 1
        self.spent += run.seconds or 0.0
        if self.quiet:
            return
        left = self.spent / self.done * (self.total - self.done)
        where = f"{run.backend}" + (f" threads={run.group}" if run.group is not None else "")
        kind = "warm-up" if run.warmup else "round"
        shown = fmt_value(run.value) if run.ok else run.status
        line = (f"[{self.done}/{self.total}] {kind} {run.round} {where}: {shown}; "
                f"~{fmt_duration(left)} left")
        if self.tty:
            self.stream.write("\r\033[K" + line[:max(10, _columns() - 1)])
            if self.done == self.total:
                self.stream.write("\r\033[K")
        else:
            self.stream.write(f"lockswap: {line}\n")
        self.stream.flush()


def _columns():
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        columns = 0
    return columns if columns >= 20 else 80


def fmt_duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Campaign:
    """Runs a plan: commands per group, environment per backend."""

    def __init__(self, commands, envs, metric, timeout=None, extra_keys=(), progress=None):
        self.commands = commands      # group -> argv
        self.envs = envs              # label -> environment
        self.metric = metric
        self.timeout = timeout
        self.extra_keys = tuple(extra_keys)
        self.progress = progress

    def run_one(self, run):
        cmd = self.commands[run.group]
        code, out, err, run.seconds, problem = execute(cmd, self.envs[run.backend], self.timeout)
        run.exit_status = code
        run.stderr_tail = err.rstrip("\n").splitlines()[-STDERR_TAIL:]
        if problem is None and code != 0:
            problem = exit_problem(code)
        if problem is None:
            try:
                run.value = self.metric.extract(out, run.seconds)
            except MetricError as e:
                problem = f"metric not found: {e}"
        run.status = problem or "ok"
        for key in self.extra_keys:
            value = optional_key(key, out)
            if value is not None:
                run.extras[key] = value
        return run

    def run_all(self, runs):
        for run in runs:
            self.run_one(run)
            if self.progress:
                if not run.ok:
                    where = f" threads={run.group}" if run.group is not None else ""
                    kind = "warm-up" if run.warmup else "round"
                    self.progress.note(f"{kind} {run.round}, {run.backend}{where}: {run.status}")
                self.progress.step(run)
        return runs


def environments(lib_path, variants):
    """label -> environment of the program for each checked backend."""
    return {v.label: child_env(lib_path, v.values) for v in variants}
