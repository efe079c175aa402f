"""Readable call sites for `lockswap report`, resolved at report time
(the library never reads debug information inside the host program).

- Names: the library demangles C++ names when the program has a C++
  runtime; files written before it did (or by a C program with a C++
  plugin it could not reach) still hold `_Z...` names, demangled here with
  binutils' c++filt, in one batch.
- `file:line`: binutils' addr2line, one batch per object file, on the
  frame's object and offset (the stable key of a frame, which is never
  changed here).  A frame is a return address, so `offset - 1` is looked
  up: the call instruction, as the library does.  With inlining (-i) the
  whole chain is kept ("inlined", innermost first), from which the
  report picks the user's level (callsite.py); "source" is the outermost
  line, in the function the code physically lies in.
- Never a guess: addr2line without debug information falls back to the
  nearest symbol of the file, which in a stripped library can be another
  function.  Its answer is only used when it comes with a line, i.e. from
  debug information; a frame the library could not name stays unknown.
- The file that ran: the statistics file lists each loaded object's GNU
  build ID ("objects", written by the library from the notes in memory).
  An object on disk with another ID (rebuilt or upgraded since the run) or
  none is not looked up: its frames keep object+offset, with one note on
  stderr, rather than lines of other code.
- Separate debug information, found by that ID: `--debug-dir DIR`'s
  DIR/.build-id/xx/rest.debug, then /usr/lib/debug's (where Debian's
  -dbgsym packages put it), then debuginfod's cache
  (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client/ID/debuginfo).
  It gives a stripped library its lines, and the object itself need not
  be on this machine.

Without binutils the frames keep what the file has (one note on stderr).
The file's "program" is the object of frames written as /proc/self/exe.
A file written before the library listed the objects has no IDs: its
objects are looked up as they are on disk (a rebuilt program then gives
wrong lines; the report cannot tell).
"""
import os
import shutil
import struct
import subprocess
import sys

from . import lock_order_frames

TIMEOUT = 60
_lines = {}       # (object, offset) -> (function, "file:line") or None
_demangled = {}   # mangled -> readable
_warned = set()
_debug_dirs = []  # --debug-dir, searched before the system's
SYSTEM_DEBUG_DIR = "/usr/lib/debug"
NT_GNU_BUILD_ID = 3
SHT_NOTE = 7
PT_NOTE = 4


def set_debug_dirs(dirs):
    """The folders of --debug-dir (each holding .build-id/xx/rest.debug)."""
    _debug_dirs[:] = list(dirs or [])


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


def _notes_build_id(data, little, align):
    """The GNU build ID (hex) among the ELF notes in DATA, padded to ALIGN
    (4, or 8 in a section or segment aligned to 8), else None."""
    e = "<" if little else ">"
    pad = (lambda n: (n + 7) & ~7) if align == 8 else (lambda n: (n + 3) & ~3)
    at = 0
    while at + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from(e + "III", data, at)
        name_at = at + 12
        desc_at = name_at + pad(namesz)
        nxt = desc_at + pad(descsz)
        if nxt > len(data):
            return None
        if kind == NT_GNU_BUILD_ID and data[name_at:name_at + namesz] == b"GNU\0" and descsz:
            return data[desc_at:desc_at + descsz].hex()
        at = nxt
    return None


# The ELF headers read here, by class (64-bit or not): the file header's
# (phoff, shoff) and (phentsize, phnum, shentsize, shnum) with their
# offsets; a section header (type, offset, size, alignment at indexes 1,
# 4, 5, 8); a program header (type, offset, size, alignment).
_FILE_HEADER = {False: ("II", 28, "HHHH", 42), True: ("QQ", 32, "HHHH", 54)}
_SECTION = {False: "IIIIIIIIII", True: "IIQQQQIIQQ"}
_SEGMENT = {False: "IIIIIIII", True: "IIQQQQQQ"}


def _section_note(h):
    return (h[4], h[5], h[8]) if h[1] == SHT_NOTE else None


def _segment_note(h, wide):
    if h[0] != PT_NOTE:
        return None
    return (h[2], h[5], h[7]) if wide else (h[1], h[4], h[7])  # offset, file size, align


def file_build_id(path):
    """The GNU build ID of the ELF file at PATH (hex, as readelf -n prints
    it), or None: not ELF, not readable, or no ID.  From its note sections,
    else (section headers stripped) its note segments."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2):
                return None
            wide, little = head[4] == 2, head[5] == 1
            e = "<" if little else ">"
            offs, at, sizes, at2 = _FILE_HEADER[wide]
            phoff, shoff = struct.unpack_from(e + offs, head, at)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(e + sizes, head, at2)

            def headers(table, count, entsize, fmt):
                need = struct.calcsize(e + fmt)
                for i in range(count if table and entsize >= need else 0):
                    f.seek(table + i * entsize)
                    raw = f.read(need)
                    if len(raw) == need:
                        yield struct.unpack(e + fmt, raw)

            places = [n for n in (_section_note(h) for h in
                                  headers(shoff, shnum, shentsize, _SECTION[wide])) if n]
            if not places:
                places = [n for n in (_segment_note(h, wide) for h in
                                      headers(phoff, phnum, phentsize, _SEGMENT[wide])) if n]
            for off, size, align in places:
                if size > 1 << 20:
                    continue
                f.seek(off)
                found = _notes_build_id(f.read(size), little, align)
                if found:
                    return found
    except (OSError, struct.error):
        return None
    return None


def debug_file(build_id):
    """The separate debug information of the object with BUILD_ID: in
    --debug-dir's folders, /usr/lib/debug, debuginfod's cache; or None."""
    if not build_id or len(build_id) < 4:
        return None
    rel = os.path.join(".build-id", build_id[:2], build_id[2:] + ".debug")
    cands = [os.path.join(d, rel) for d in _debug_dirs + [SYSTEM_DEBUG_DIR]]
    cache = os.environ.get("DEBUGINFOD_CACHE_PATH") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "debuginfod_client")
    cands.append(os.path.join(cache, build_id, "debuginfo"))
    return next((c for c in cands if os.path.isfile(c) and os.access(c, os.R_OK)), None)


def lookup_file(obj, recorded):
    """Where to look up lines for frames of OBJ, whose build ID in the run
    was RECORDED (None: the file did not say): its separate debug file,
    else OBJ itself if it is the file that ran, else None (with a note)."""
    if not recorded:
        return obj
    found = debug_file(recorded)
    if found:
        return found
    on_disk = file_build_id(obj) if os.path.isfile(obj) else None
    if on_disk == recorded:
        return obj
    if os.path.isabs(obj) and obj not in _warned:
        _warned.add(obj)
        now = f"{on_disk} on disk" if on_disk else ("none on disk" if os.path.exists(obj)
                                                    else "the file is not on this machine")
        print(f"lockswap report: {obj} is not the file that ran (build ID {recorded} in the "
              f"run, {now}): no file:line for its frames (their names and object+offset stay)",
              file=sys.stderr)
    return None


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
    ids = build_ids(doc)
    for obj, fs in by_obj.items():
        target = lookup_file(obj, ids.get(obj))
        if target is None:
            continue
        found = source_lines(target, [int(f["offset"], 16) for f in fs])
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
