"""Synthetic statistics files of a fleet for test_fleet.py: the shape of
test_report's profiles (checked there against docs/stats-schema.json),
with a top-level "arm" object and the numbers each test needs."""
import json
import os

import test_report as base


def arm_object(name, index, arms=3, settings=None, key_value="0"):
    return {"name": name, "index": index, "arms": arms, "key": "SHARD",
            "key_value": key_value, "seed": None, "settings": settings or name}


def heap_mutex(id_, acq, contended, addr, symbol=None, shares=(1,)):
    """A mutex in no variable: known by its first-use site only, at a
    different address in every process (address-space randomisation)."""
    m = base.mutex(id_, None, acq, contended, contended * 100, shares=shares)
    m["site"] = base.frame(addr, symbol)
    m["site"]["offset"] = hex(0x4242)   # same code, wherever it was mapped
    return m


def competing_mutex(id_, name, contended, shares):
    """A mutex its threads all waited for at least once (so every one of
    them counts in min share); acquisitions = sum(shares)."""
    m = base.mutex(id_, name, sum(shares), contended, contended * 100, shares=shares)
    for t in m["per_thread"]:
        t["contended"] = max(1, contended // len(shares))
    return m


def process(pid, locks, arm=None, backend="futex"):
    doc = base.profile(backend=backend, locks=locks)
    doc["pid"] = pid
    if arm is not None:
        doc["arm"] = arm
    return doc


def write(folder, name, doc, app=None):
    """folder/name.json, and folder/name.app.json when app (a dict, or a
    str written as is) is given; returns the statistics file's path."""
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    if app is not None:
        with open(os.path.join(folder, name + ".app.json"), "w") as f:
            f.write(app if isinstance(app, str) else json.dumps(app))
    return path
