"""binutils for `lockswap report`'s call sites: c++filt demangles the
`_Z...` names a file still holds (written before the library demangled,
or by a C program with a C++ plugin it could not reach), addr2line gives
a frame's inline chain of `function` and `file:line`.  Each runs once per
batch (c++filt once for every name, addr2line once per object file), and
their answers are kept for the process.

- A frame is a return address, so `offset - 1` is looked up: the call
  instruction, as the library does.  With inlining (-i) the whole chain
  is kept, innermost first, from which the report picks the user's level
  (callsite.py).
- Never a guess: addr2line without debug information falls back to the
  nearest symbol of the file, which in a stripped library can be another
  function.  Its answer is only used when it comes with a line, i.e. from
  debug information.

Without binutils the frames keep what the file has (one note on stderr
per missing tool).
"""
import os
import shutil
import subprocess
import sys

TIMEOUT = 60
_lines = {}       # (object, offset) -> [(function, "file:line")] or None
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
    """addr2line -a -f -C -i output -> for each address, its inline chain
    [(function, location)], innermost first; the address lines start
    with 0x, then a function line and a location line per level."""
    result, cur = [], None
    lines = out.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("0x"):
            if cur is not None:
                result.append(cur)
            cur = []
            i += 1
            continue
        if line and i + 1 < len(lines) and cur is not None:
            cur.append((line, lines[i + 1].split(" (discriminator")[0]))
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
    """{offset: [(function, "file:line")]} for the return addresses at
    OFFSETS (ints) of OBJ, where its debug information knows them: the
    inline chain, innermost first, its levels of unknown line left out."""
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
            chain = got[i] if len(got) == len(todo) else []
            known = [(fn if fn != "??" else None, loc) for fn, loc in chain if _known(loc)]
            _lines[(obj, o)] = known or None
    return {o: _lines[(obj, o)] for o in offsets if _lines.get((obj, o))}
