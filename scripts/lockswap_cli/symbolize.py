"""Readable call sites for `lockswap report`, resolved at report time
(the library never reads debug information inside the host program).

- Names: the library demangles C++ names when the program has a C++
  runtime; files written before it did (or by a C program with a C++
  plugin it could not reach) still hold `_Z...` names, demangled here with
  binutils' c++filt, in one batch.
- `file:line`: binutils' addr2line, one batch per object file, on the
  frame's object and offset (the stable key of a frame, which is never
  changed here).  A frame is a return address, so `offset - 1` is looked
  up: the call instruction, as the library does.  With inlining (-i), the
  line kept is the outermost one: the line of the function the code
  physically lies in, where the user's call was written.
- Never a guess: addr2line without debug information falls back to the
  nearest symbol of the file, which in a stripped library can be another
  function.  Its answer is only used when it comes with a line, i.e. from
  debug information; a frame the library could not name stays unknown.

Without binutils the frames keep what the file has (one note on stderr).
The file's "program" is the object of frames written as /proc/self/exe.
The objects must be the files that ran: a rebuilt program gives wrong
lines (the report cannot tell).
"""
import os
import shutil
import subprocess
import sys

TIMEOUT = 60
_lines = {}       # (object, offset) -> (function, "file:line") or None
_demangled = {}   # mangled -> readable
_warned = set()


def _warn_once(tool):
    if tool not in _warned:
        _warned.add(tool)
        print(f"lockswap report: {tool} not found (Debian package binutils): "
              "call sites are shown without it", file=sys.stderr)


def _run(args, stdin):
    try:
        r = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def demangle(names):
    """{name: readable} for the `_Z` names among NAMES (c++filt, batched)."""
    todo = sorted({n for n in names if n and n.startswith("_Z") and n not in _demangled})
    if todo:
        tool = shutil.which("c++filt")
        out = _run([tool], "\n".join(todo) + "\n") if tool else None
        if tool is None:
            _warn_once("c++filt")
        got = out.split("\n") if out else []
        for i, n in enumerate(todo):
            _demangled[n] = got[i] if i < len(got) and got[i] else n
    return {n: _demangled.get(n, n) for n in names if n}


def _parse_addr2line(out):
    """addr2line -a -f -C -i output -> [(function, location) of each
    address, outermost inline level]; the address lines start with 0x."""
    result, cur = [], None
    lines = out.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("0x"):
            if cur is not None:
                result.append(cur)
            cur = None
            i += 1
            continue
        if line and i + 1 < len(lines):
            cur = (line, lines[i + 1])  # later pairs are the outer levels
            i += 2
            continue
        i += 1
    if cur is not None:
        result.append(cur)
    return result


def _known(location):
    path, _, line = location.rpartition(":")
    return bool(path) and not path.startswith("??") and line.split(" ")[0] not in ("", "?", "0")


def source_lines(obj, offsets):
    """{offset: (function, "file:line")} for the return addresses at OFFSETS
    (ints) of OBJ, where its debug information knows them."""
    todo = sorted({o for o in offsets if (obj, o) not in _lines})
    if todo:
        tool = shutil.which("addr2line")
        if tool is None:
            _warn_once("addr2line")
        out = None
        if tool and os.path.isfile(obj) and os.access(obj, os.R_OK):
            out = _run([tool, "-a", "-f", "-C", "-i", "-e", obj] +
                       [hex(max(o - 1, 0)) for o in todo], "")
        got = _parse_addr2line(out) if out else []
        for i, o in enumerate(todo):
            fn, loc = got[i] if len(got) == len(todo) else ("??", "??:0")
            loc = loc.split(" (discriminator")[0]
            _lines[(obj, o)] = (fn if fn != "??" else None, loc) if _known(loc) else None
    return {o: _lines[(obj, o)] for o in offsets if _lines.get((obj, o))}


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


def object_path(doc, frame):
    obj = frame.get("object")
    return doc.get("program") if obj == "/proc/self/exe" else obj


def annotate(doc):
    """Demangle the frames' names and add "source": "file:line" where debug
    information has it (and a name from it, where the library had none)."""
    frames = list(frames_of(doc))
    names = demangle([f.get("symbol") for f in frames])
    by_obj = {}
    for f in frames:
        if f.get("symbol"):
            f["symbol"] = names.get(f["symbol"], f["symbol"])
        obj = object_path(doc, f)
        if obj:
            f["_object"] = obj
        if obj and f.get("offset"):
            by_obj.setdefault(obj, []).append(f)
    for obj, fs in by_obj.items():
        found = source_lines(obj, [int(f["offset"], 16) for f in fs])
        for f in fs:
            hit = found.get(int(f["offset"], 16))
            if hit:
                f["source"] = hit[1]
                if not f.get("symbol") and hit[0]:
                    f["symbol"] = hit[0]
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
