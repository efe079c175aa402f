"""Getting one number per run out of a program's stdout.

Three kinds of metric:
  --metric REGEX   the first match in stdout; its first capture group if the
                   pattern has one, else the whole match, read as a float
  --json-key KEY   a dotted path (a.b.0.c; numbers index lists) into the last
                   line of stdout that is a JSON object and has that path
  (neither)        the run's wall-clock seconds, lower is better
"""
import json
import math
import re

from .errors import UsageError


class MetricError(Exception):
    """The metric is not in a run's output: that run counts as failed."""


def to_float(text, what):
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise MetricError(f"{what} is {text!r}, not a number") from None
    if not math.isfinite(value):
        raise MetricError(f"{what} is {text!r}, not a finite number")
    return value


def from_regex(pattern, text):
    rx = re.compile(pattern, re.MULTILINE) if isinstance(pattern, str) else pattern
    m = rx.search(text)
    if not m:
        raise MetricError(f"no match for /{rx.pattern}/ in stdout")
    found = m.group(1) if rx.groups else m.group(0)
    if found is None:
        raise MetricError(f"/{rx.pattern}/ matched but its first group did not")
    return to_float(found.strip(), f"the match of /{rx.pattern}/")


def json_lines(text):
    """Every line of text that is a JSON object, last first."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield obj


_MISSING = object()


def lookup(obj, path):
    """obj at dotted path, or _MISSING."""
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.lstrip("-").isdigit() and -len(obj) <= int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return _MISSING
    return obj


def find_key(key, text):
    """The value at key in the last JSON object line that has it, or
    _MISSING; MetricError if stdout has no JSON object line at all."""
    seen = False
    for obj in json_lines(text):
        seen = True
        value = lookup(obj, key)
        if value is not _MISSING:
            return value
    if not seen:
        raise MetricError("no JSON object line in stdout")
    return _MISSING


def from_json_key(key, text):
    value = find_key(key, text)
    if value is _MISSING:
        raise MetricError(f"no key {key!r} in the JSON lines of stdout")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise MetricError(f"JSON key {key!r} is {json.dumps(value)}, not a number")
    return to_float(value, f"JSON key {key!r}")


def optional_key(key, text):
    """Like from_json_key, but None when absent or not a number."""
    try:
        return from_json_key(key, text)
    except MetricError:
        return None


class Metric:
    """What to measure and which way is better."""

    def __init__(self, regex=None, json_key=None, lower_is_better=False):
        if regex is not None and json_key is not None:
            raise UsageError("give --metric or --json-key, not both")
        self.regex = self.json_key = None
        if regex is not None:
            try:
                self.regex = re.compile(regex, re.MULTILINE)
            except re.error as e:
                raise UsageError(f"--metric {regex!r}: bad regular expression ({e})") from None
        elif json_key is not None:
            if not json_key or any(not p for p in json_key.split(".")):
                raise UsageError(f"--json-key {json_key!r}: expected a dotted path like a.b")
            self.json_key = json_key
        self.wall_time = regex is None and json_key is None
        self.lower_is_better = lower_is_better or self.wall_time

    def extract(self, stdout, seconds):
        if self.regex is not None:
            return from_regex(self.regex, stdout)
        if self.json_key is not None:
            return from_json_key(self.json_key, stdout)
        return seconds

    @property
    def name(self):
        if self.regex is not None:
            return f"/{self.regex.pattern}/"
        if self.json_key is not None:
            return self.json_key
        return "seconds"

    def describe(self):
        how = ("regex " if self.regex is not None else
               "JSON key " if self.json_key is not None else "wall-clock ")
        better = "lower" if self.lower_is_better else "higher"
        return f"{how}{self.name} ({better} is better)"

    @property
    def label(self):
        """Short: the name and which way is better (plot axes, tables)."""
        return f"{self.name} ({'lower' if self.lower_is_better else 'higher'} is better)"

    @property
    def unit(self):
        """" s" for wall-clock seconds, else "" (the program's own number)."""
        return " s" if self.wall_time else ""

    @property
    def plot_suffix(self):
        """File suffix of the metric-vs-threads plot: -throughput.png only
        for a higher-is-better metric; -seconds.png for wall time."""
        if self.wall_time:
            return "-seconds.png"
        return "-metric.png" if self.lower_is_better else "-throughput.png"

    def to_json(self):
        return {"kind": "regex" if self.regex is not None else
                "json-key" if self.json_key is not None else "wall-time",
                "name": self.name, "lower_is_better": self.lower_is_better}


def add_arguments(parser):
    g = parser.add_argument_group("metric", "What number each run yields (default: its "
                                  "wall-clock seconds, lower\nis better).")
    x = g.add_mutually_exclusive_group()
    x.add_argument("--metric", metavar="REGEX",
                   help="first match in stdout: group 1 if any, else the whole match")
    x.add_argument("--json-key", metavar="KEY",
                   help="dotted path into the last JSON-object line of stdout that has it")
    g.add_argument("--lower-is-better", action="store_true",
                   help="smaller values are better (time, latency)")
