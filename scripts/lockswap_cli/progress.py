"""Progress of an interleaved campaign on stderr, for a person waiting.

Backends can differ by 1000x in run time (a FIFO lock with more threads
than cores), so the time left is estimated per backend: each remaining
run costs the mean of its own backend's runs so far (the mean of all runs
for a backend not run yet).  Once every backend has run once (the warm-up
round, or the first round) lockswap prints the per-backend times and the
total left, and warns about a backend more than SLOW_FACTOR times slower
than the fastest.  A run expected to take longer than LONG_RUN seconds is
announced before it starts, so the terminal never sits silent for
minutes.  On a terminal the status line is rewritten in place; otherwise
one line per event.
"""
import os
import sys

from .output import fmt_value

SLOW_FACTOR = 10
LONG_RUN = 2.0


def fmt_duration(seconds):
    if seconds < 10:
        return f"{seconds:.1f} s" if seconds >= 0.05 else f"{seconds:.2f} s"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    def __init__(self, total, stream=None, quiet=False, runs=None, timeout=None):
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self.runs = list(runs or [])
        self.timeout = timeout
        self.times = {}          # backend label -> [seconds of its runs]
        self.estimated = False   # the per-backend line was printed
        self.warned = set()

    def _write_line(self, line):
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(f"lockswap: {line}\n")
        self.stream.flush()

    def mean(self, label):
        t = self.times.get(label)
        if t:
            return sum(t) / len(t)
        every = [s for ts in self.times.values() for s in ts]
        return sum(every) / len(every) if every else 0.0

    def left(self):
        """Estimated seconds for the runs not done yet."""
        return sum(self.mean(r.backend) for r in self.runs[self.done:])

    def start(self, run):
        """Before a run: announce it if it is expected to be long."""
        if self.quiet or run.backend not in self.times:
            return
        expected = self.mean(run.backend)
        if expected < LONG_RUN:
            return
        line = (f"[{self.done + 1}/{self.total}] {self._what(run)}: running, "
                f"~{fmt_duration(expected)} expected")
        if self.tty:
            self.stream.write("\r\033[K" + line[:max(10, _columns() - 1)])
            self.stream.flush()
        else:
            self._write_line(line)

    def _what(self, run):
        where = run.backend + (f" threads={run.group}" if run.group is not None else "")
        return f"{'warm-up' if run.warmup else 'round'} {run.round} {where}"

    def step(self, run):
        self.done += 1
        self.times.setdefault(run.backend, []).append(run.seconds or 0.0)
        if self.quiet:
            return
        shown = fmt_value(run.value) if run.ok else run.status
        line = (f"[{self.done}/{self.total}] {self._what(run)}: {shown}; "
                f"~{fmt_duration(self.left())} left")
        # A failed run keeps its line on a terminal too: it is the one
        # report of that failure until the final table.
        if self.tty and run.ok:
            self.stream.write("\r\033[K" + line[:max(10, _columns() - 1)])
            if self.done == self.total:
                self.stream.write("\r\033[K")
            self.stream.flush()
        else:
            self._write_line(line)
        # After the run's own line: the estimate follows the run it is based on.
        labels = {r.backend for r in self.runs}
        if not self.estimated and labels and labels <= set(self.times):
            self.estimated = True
            self._estimate(labels)

    def _estimate(self, labels):
        """Once every backend has run: its time per run, the time left,
        and a warning for each backend far slower than the fastest."""
        per = {l: self.mean(l) for l in sorted(labels, key=self.mean)}
        self._write_line("time per run: " + ", ".join(
            f"{l} {fmt_duration(t)}" for l, t in per.items())
            + f"; ~{fmt_duration(self.left())} left")
        fastest, fast = next(iter(per.items()))
        for label, t in per.items():
            if label in self.warned or fast <= 0 or t <= SLOW_FACTOR * fast:
                continue
            self.warned.add(label)
            n = sum(1 for r in self.runs[self.done:] if r.backend == label)
            cap = (f"--timeout {self.timeout:g} s caps each run" if self.timeout
                   else "--timeout SEC caps each run")
            self._write_line(
                f"warning: {label} is {t / fast:.0f}x slower than {fastest} "
                f"({fmt_duration(t)} against {fmt_duration(fast)} a run): its {n} runs left "
                f"need ~{fmt_duration(n * t)}; {cap}, or leave {label} out")


def _columns():
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        columns = 0
    return columns if columns >= 20 else 80
