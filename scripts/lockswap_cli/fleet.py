"""The processes of a fleet experiment: every statistics file read once,
labelled with the arm it ran, and, with --metric, paired with the
application's own number.

Arm of a file: its top-level "arm" object (written by the library when
LOCKSWAP_ARMS chose the arm), else its top-level "backend" - so profiles
of processes started with plain LOCKSWAP_BACKEND=... compare the same way.

Application metric: the library cannot know the application's throughput
or latency, so the application (or whatever starts it) writes it next to
the statistics file: X.json -> X.app.json (see app_path).  That file is
either one JSON object or the program's JSON-lines output as is; --metric
KEY is a dotted path looked up the way `lockswap ab --json-key` does.
"""
import json
import os

from . import fleet_measures, fleet_sites, metrics
from .errors import UsageError
from .stats_file import load, mutexes

APP_SUFFIX = ".app.json"


def app_path(stats_path):
    stem = stats_path[:-len(".json")] if stats_path.endswith(".json") else stats_path
    return stem + APP_SUFFIX


def is_app_file(path):
    """A metric file among the FILES: `dir/*.json` matches both kinds."""
    return path.endswith(APP_SUFFIX)


def app_value(path, key):
    """The number at key in path, or None when the file or the key is
    missing; a UsageError for a file that exists but is not JSON."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    try:
        value = metrics.lookup(json.loads(text), key)
    except ValueError:
        # Not one JSON document: JSON lines, as `ab --json-key` reads stdout.
        try:
            value = metrics.find_key(key, text)
        except metrics.MetricError:
            raise UsageError(f"{path} is neither JSON nor JSON lines") from None
    if value is metrics._MISSING:
        return None
    try:
        return metrics.to_float(value, f"{key!r} in {path}")
    except metrics.MetricError as e:
        raise UsageError(str(e)) from None


class Process:
    """One statistics file: its arm and its measures."""

    def __init__(self, path, metric_key=None):
        self.doc = load(path)
        self.path = path
        try:
            self._read(metric_key)
        except (KeyError, TypeError, ZeroDivisionError) as e:
            # load() checked the schema's name and version, not every field
            raise UsageError(f"{path}: not a valid statistics file ({type(e).__name__}: {e})") \
                from None

    def _read(self, metric_key):
        path = self.path
        self.pid = self.doc["pid"]
        arm = self.doc.get("arm")
        if arm is not None:
            if not isinstance(arm, dict) or not isinstance(arm.get("name"), str):
                raise UsageError(f"{path}: \"arm\" has no name")
            self.arm = arm["name"]
            self.arm_index = arm.get("index")
            self.settings = arm.get("settings")
        else:
            self.arm = self.doc["backend"]
            self.arm_index = None
            self.settings = None
        for lock in mutexes(self.doc):
            fleet_sites.check_fields(lock)
        self.values = {
            "contended_share": fleet_measures.contended_share(self.doc),
            "p99_wait_ns": fleet_measures.p99_wait_ns(self.doc),
            "min_share": fleet_measures.min_share(self.doc),
        }
        if metric_key is not None:
            self.values["metric"] = app_value(app_path(path), metric_key)


def load_fleet(paths, metric_key=None):
    """Processes of the statistics files among paths (metric files skipped,
    a file named twice read once)."""
    seen = set()
    procs = []
    for p in paths:
        real = os.path.realpath(p)
        if is_app_file(p) or real in seen:
            continue
        seen.add(real)
        procs.append(Process(p, metric_key))
    if not procs:
        raise UsageError("no statistics files given (only *.app.json metric files)")
    return procs


def check_settings(procs):
    """One arm name must mean one configuration: a fleet whose arm changed
    settings mid-experiment would be compared as if it had not."""
    first = {}
    for p in procs:
        if p.settings is None:
            continue
        other = first.setdefault(p.arm, p)
        if other.settings != p.settings:
            raise UsageError(f"arm {p.arm} has settings {other.settings!r} in {other.path} "
                             f"but {p.settings!r} in {p.path}")


def group(procs):
    """{arm: [Process]}, arms in LOCKSWAP_ARMS order (their "index"), then
    by name for files grouped by backend."""
    arms = {}
    for p in procs:
        arms.setdefault(p.arm, []).append(p)
    order = sorted(arms, key=lambda a: (min((p.arm_index for p in arms[a]
                                             if p.arm_index is not None), default=1 << 30), a))
    return {a: arms[a] for a in order}


def pick_baseline(arms, wanted=None):
    if wanted is not None:
        if wanted not in arms:
            raise UsageError(f"--baseline {wanted}: no such arm (arms: {', '.join(arms)})")
        return wanted
    if any(p.arm_index is not None for ps in arms.values() for p in ps):
        return next(iter(arms))
    return "glibc" if "glibc" in arms else next(iter(arms))
