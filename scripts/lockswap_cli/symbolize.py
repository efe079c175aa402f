"""Readable call sites for `lockswap report`, resolved at report time
(the library never reads debug information inside the host program): the
frames of a statistics file get demangled names, and "source" (the
outermost `file:line`, in the function the code physically lies in) with
the inline chain "inlined" (innermost first) where debug information has
them.  The frame's object and offset, its stable key, are never changed.

The jobs are apart: binutils.py runs c++filt and addr2line, debug_files.py
picks the file to read each object's lines from (by the build ID the run
recorded), elf.py reads build IDs.  The file's "program" is the object of
frames written as /proc/self/exe.
"""
from . import binutils, debug_files, lock_order_frames


def frames_of(doc):
    """Every frame dict of a statistics document."""
    for s in doc.get("stacks", []):
        yield from s["frames"]
    for lock in doc.get("locks", []):
        if lock.get("site"):
            yield lock["site"]
        for e in lock.get("contention", []):
            for key in ("waiter_site", "holder_site"):
                if e.get(key):
                    yield e[key]
    yield from lock_order_frames.frames(doc)


def object_path(doc, frame):
    obj = frame.get("object")
    return doc.get("program") if obj == "/proc/self/exe" else obj


def build_ids(doc):
    """{object path, as object_path gives it: build ID} from the file's
    "objects" (none in files written before the library listed them)."""
    return {object_path(doc, {"object": o.get("path")}): o.get("build_id")
            for o in doc.get("objects", []) if isinstance(o, dict)}


def annotate(doc):
    """Demangle the frames' names and add "source": "file:line" and the
    inline chain "inlined" where debug information has them (and a name
    from it, where the library had none)."""
    frames = list(frames_of(doc))
    names = binutils.demangle([f.get("symbol") for f in frames])
    by_obj = {}
    for f in frames:
        if f.get("symbol"):
            f["symbol"] = names.get(f["symbol"], f["symbol"])
        obj = object_path(doc, f)
        if obj:
            f["_object"] = obj
        if obj and f.get("offset"):
            by_obj.setdefault(obj, []).append(f)
    ids = build_ids(doc)
    for obj, fs in by_obj.items():
        target = debug_files.lookup_file(obj, ids.get(obj))
        if target is None:
            continue
        found = binutils.source_lines(target, [int(f["offset"], 16) for f in fs])
        for f in fs:
            chain = found.get(int(f["offset"], 16))
            if chain:
                f["inlined"] = [list(level) for level in chain]
                f["source"] = chain[-1][1]
                if not f.get("symbol") and chain[-1][0]:
                    f["symbol"] = chain[-1][0]
    return doc


def short_name(name):
    """`ns::f(int, char const*) const` -> `ns::f(...) const` (as the
    library's summary prints it)."""
    close = name.rfind(")")
    if close < 0 or name.startswith("_Z") or name.endswith("..."):
        return name
    depth = 0
    for i in range(close, -1, -1):
        if name[i] == ")":
            depth += 1
        elif name[i] == "(":
            depth -= 1
            if depth == 0:
                if i == 0 or i + 1 == close:
                    return name
                return f"{name[:i]}(...){name[close + 1:]}"
    return name
