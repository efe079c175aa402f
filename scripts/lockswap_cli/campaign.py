"""Running a program many times under several backends, interleaved.

A campaign is a list of groups (one for `ab`; one per thread count for
`sweep`), each with its own command.  Within a group come the warm-up rounds
(results kept apart, never counted), then the measured rounds; every round
runs each backend once, in an order freshly shuffled by a seeded
random.Random, so slow drift of a shared machine (another tenant, thermal
state, page cache) spreads over all backends instead of landing on one.
The whole schedule is drawn before the first run and recorded as run.
"""
import difflib
import os
import signal
import subprocess
import time

from . import signals
from .errors import ToolError
from .metrics import MetricError, json_lines, optional_key
from .settings import child_env, needs_rseq_off, unloaded_env

STDERR_TAIL = 5
# A baseline that failed this many runs, and never succeeded, stops `ab`:
# every ratio needs it, so the rounds left could only fail to compare.
BASELINE_TRIES = 3


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
    proc, problem = None, None
    try:
        try:
            with signals.held():
                proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        start_new_session=True,
                                        preexec_fn=signals.unblock_in_child)
        except OSError as e:
            return None, "", "", time.monotonic() - start, f"cannot run: {e.strerror}"
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        problem = f"timeout after {timeout:g} s"
        _kill(proc)
        out, err = proc.communicate()
    except BaseException:
        # Ctrl-C, SIGTERM, SIGHUP (signals.Terminated): the program and
        # its children end with lockswap.
        if proc is not None:
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


class Campaign:
    """Runs a plan: commands per group, environment per backend."""

    def __init__(self, commands, envs, metric, timeout=None, extra_keys=(), progress=None,
                 baseline=None):
        self.commands = commands      # group -> argv
        self.envs = envs              # label -> environment
        self.metric = metric
        self.timeout = timeout
        self.extra_keys = tuple(extra_keys)
        self.progress = progress
        self.baseline = baseline      # label: stop when it keeps failing (None: never)

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
                run.found = found_in(out)
        run.status = problem or "ok"
        for key in self.extra_keys:
            value = optional_key(key, out)
            if value is not None:
                run.extras[key] = value
        return run

    def run_all(self, runs):
        first_round = len({r.backend for r in runs})
        for i, run in enumerate(runs):
            if self.progress:
                self.progress.start(run)
            self.run_one(run)
            if i + 1 == first_round:
                self.stop_if_metric_missing(runs[:first_round])
            if self.progress:
                self.progress.step(run)
            if run.backend == self.baseline and not run.ok and i + 1 < len(runs):
                self.stop_if_baseline_fails(runs[:i + 1], len(runs))
        return runs

    def stop_if_baseline_fails(self, done, planned):
        """The baseline failed its first BASELINE_TRIES runs: stop, naming
        how it failed, rather than run every round for nothing."""
        mine = [r for r in done if r.backend == self.baseline]
        if len(mine) < BASELINE_TRIES or any(r.ok for r in mine):
            return
        last = mine[-1]
        said = f"; its stderr ended: {last.stderr_tail[-1].strip()[:120]!r}" \
            if last.stderr_tail else ""
        raise ToolError(f"the baseline {self.baseline} failed its first {len(mine)} runs "
                        f"({last.status}{said}); every ratio needs it, so lockswap stopped "
                        f"after {len(done)} of {planned} runs (fix the command, or put "
                        f"another backend first)")


    def stop_if_metric_missing(self, first):
        """After the first round (the warm-up, if any): when no run printed
        the metric, every later run would fail the same way; stop now and
        say what the program did print."""
        if not all(r.status.startswith("metric not found") for r in first):
            return
        found = sorted({k for r in first for k in getattr(r, "found", ())})
        what = (f"--json-key {self.metric.json_key}" if self.metric.json_key else
                f"--metric {self.metric.name}")
        seen = (f"the JSON keys it printed: {', '.join(found)}" if found and self.metric.json_key
                else f"the last line of its stdout: {found[0]!r}" if found
                else "its stdout was empty")
        near = nearest_key(self.metric.json_key, found) if self.metric.json_key else None
        tail = f"; did you mean {near}? ({seen})" if near else f"; {seen}"
        raise ToolError(f"{what}: not in the output of any run of the first round "
                        f"({len(first)} runs; stopped, nothing measured){tail}")


def nearest_key(key, keys):
    """The printed JSON key closest to a misspelt --json-key (compared
    whole, then by the last dotted part: `thruput` finds `throughput` and
    `stats.throughput`), or None."""
    near = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    if near:
        return near[0]
    last = {k.rsplit(".", 1)[-1]: k for k in reversed(keys)}
    near = difflib.get_close_matches(key.rsplit(".", 1)[-1], list(last), n=1, cutoff=0.6)
    return last[near[0]] if near else None


def found_in(out):
    """What a run's stdout offers instead of the metric: the keys (dotted
    for nested objects) of its JSON object lines, else its last line."""
    keys = []
    for obj in json_lines(out):
        keys += dotted_keys(obj)
    if keys:
        return list(dict.fromkeys(keys))
    lines = [l for l in out.splitlines() if l.strip()]
    return [lines[-1][:80]] if lines else []


def dotted_keys(obj, prefix=""):
    out = []
    for k, v in obj.items():
        if isinstance(v, dict):
            out += dotted_keys(v, f"{prefix}{k}.")
        else:
            out.append(f"{prefix}{k}")
    return out


def environments(lib_path, variants):
    """label -> environment of the program for each checked backend (under
    its own LIB= build where it names one; -b none without lockswap).  If
    any runs ces, every one runs with glibc's rseq registration off
    (settings.child_env)."""
    rseq_off = any(needs_rseq_off(v.values) for v in variants)
    libs = {lib_path} | {v.lib_path for v in variants if v.lib_path}
    return {v.label: unloaded_env(libs, rseq_off=rseq_off) if v.unloaded
            else child_env(v.lib_path or lib_path, v.values, rseq_off=rseq_off)
            for v in variants}
