"""`lockswap report --pprof OUT.pb.gz`: the sampled contended waits of a
statistics file as a pprof profile (profile.proto, gzipped), for `go tool
pprof`, `pprof` and the tools that read its format.

The shape is Go's mutex profile: two sample types, contentions/count and
delay/nanoseconds (the default), one sample per contention event of the
file (waiter stack, or with --holders the holder's stack published at its
unlock), its values scaled from the sampled waits to all waits as the
folded stacks are (so the totals are the file's estimated totals).  Each
sample carries labels naming its lock ("lock", "lock_id", and "mode" for
an rwlock), for pprof's -tagfocus/-tags.

Locations are the frames' runtime addresses, in mappings rebuilt from
the file's /proc/self/maps (with the object's build ID, where the file
lists it); each has its function's readable name (symbolize.py:
demangled, file:line from debug information), and where debug
information has an inline chain, one line per inlined function,
innermost first (whole names: pprof's own -drop_frames and -focus work
on them; the report's tables skip the lock wrappers, callsite.py).  A
frame without a name gets a function named `?? (object+offset)`, and
every mapping says it has functions, so pprof never symbolizes again
(its fallback would be the nearest symbol, a wrong name in a stripped
library).

The encoder is the protobuf wire format written out (varints and
length-delimited fields, the only two wire types profile.proto uses);
field numbers from profile.proto of github.com/google/pprof.
"""
import gzip
import os

from . import callsite
from . import symbolize

# profile.proto field numbers
P_SAMPLE_TYPE, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRINGS = 1, 2, 3, 4, 5, 6
P_TIME, P_DURATION, P_PERIOD_TYPE, P_PERIOD, P_COMMENT, P_DEFAULT_TYPE = 9, 10, 11, 12, 13, 14
VT_TYPE, VT_UNIT = 1, 2
S_LOCATION, S_VALUE, S_LABEL = 1, 2, 3
L_KEY, L_STR, L_NUM = 1, 2, 3
M_ID, M_START, M_LIMIT, M_OFFSET, M_FILE, M_BUILD_ID, M_HAS_FUNCTIONS, M_HAS_FILES, \
    M_HAS_LINES = 1, 2, 3, 4, 5, 6, 7, 8, 9
LOC_ID, LOC_MAPPING, LOC_ADDRESS, LOC_LINE = 1, 2, 3, 4
LINE_FUNCTION, LINE_LINE = 1, 2
F_ID, F_NAME, F_SYSTEM_NAME, F_FILE = 1, 2, 3, 4


def varint(n):
    n &= (1 << 64) - 1  # an int64 is sent as its two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def f_int(field, value):
    """A varint field; zero is the default and is left out."""
    return varint(field << 3) + varint(value) if value else b""


def f_bytes(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def f_packed(field, values):
    return f_bytes(field, b"".join(varint(v) for v in values)) if values else b""


class Strings:
    """The string table: index 0 is "" as the format requires."""

    def __init__(self):
        self.index = {"": 0}

    def __call__(self, s):
        return self.index.setdefault(s, len(self.index))

    def encode(self):
        return b"".join(f_bytes(P_STRINGS, s.encode()) for s in self.index)


def parse_maps(lines):
    """{path: (start, limit, file offset)}: for each file, the run of
    adjoining ranges of /proc/self/maps (one line ending where the next
    starts) that maps it and holds its code (an executable line), from the
    run's first line.  Only that run: the library maps a file once more,
    read-only, while it reads the file's symbols in a dump
    (stats/symbols.c), and that copy can lie just below the loader's."""
    runs = {}  # path -> [[start, limit, offset, executable], ...]
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) < 6 or not parts[5].startswith("/"):
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        path, offset, code = parts[5].strip(), int(parts[2], 16), "x" in parts[1]
        last = runs.get(path, [None])[-1]
        if last and last[1] == lo:
            last[1], last[3] = hi, last[3] or code
        else:
            runs.setdefault(path, []).append([lo, hi, offset, code])
    return {path: tuple(next((r for r in rs if r[3]), rs[0])[:3]) for path, rs in runs.items()}


def find_mapping(maps, path):
    """PATH's range in MAPS, also where the frames name it by another path
    than /proc/self/maps does (the loader's /lib/x86_64-linux-gnu/libc.so.6,
    the kernel's /usr/lib/x86_64-linux-gnu/libc.so.6 on a merged-/usr
    system; a soname link, the kernel's its target): then PATH's real path
    on this machine, else the one mapped file of the same name; else zeros."""
    if path in maps:
        return maps[path]
    real = os.path.realpath(path)  # a soname link, where this machine has the same files
    if real in maps:
        return maps[real]
    same = [p for p in maps if os.path.basename(p) == os.path.basename(path)]
    return maps[same[0]] if len(same) == 1 else (0, 0, 0)


def source_line(source):
    path, _, line = (source or "").rpartition(":")
    return (path, int(line)) if path and line.isdigit() else ("", 0)


def location_lines(frame, frame_name):
    """[(function, "file:line")] of a location: its inline chain, innermost
    first as profile.proto orders a location's lines (a level addr2line
    could not name is `??`, with its line: addr2line prints the function
    that holds the code there, which is not the inlined one), else the
    frame alone."""
    if not frame.get("inlined"):
        return [(frame_name(frame), frame.get("source"))]
    return [(name or "??", source) for name, source in callsite.levels(frame)]


class Counts:
    """What a profile holds, for the line `report --pprof` prints: samples,
    locations, and of the locations those with a function name and those
    with a source line (file:line from debug information)."""

    def __init__(self):
        self.samples = self.locations = self.named = self.with_lines = 0

    def text(self):
        many = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"
        return (f"{many(self.samples, 'sample')}, {many(self.locations, 'location')}: "
                f"{self.named} named, {self.with_lines} with file:line")


def build(doc, holders, frame_name, scale_of, lock_label, counts=None):
    """The Profile message (bytes, before gzip); counts (a Counts), if
    given, is filled in."""
    counts = Counts() if counts is None else counts
    st = Strings()
    maps = parse_maps(doc.get("maps", []))
    mappings, locations, functions = {}, {}, {}
    body = bytearray()
    build_ids = symbolize.build_ids(doc)  # by the paths the frames resolve to ("_object")

    def mapping_id(frame):
        path = frame.get("_object") or frame.get("object") or ""
        if path not in mappings:
            start, limit, offset = find_mapping(maps, path)
            mid = len(mappings) + 1
            mappings[path] = mid
            body.extend(f_bytes(P_MAPPING, f_int(M_ID, mid) + f_int(M_START, start) +
                                f_int(M_LIMIT, limit) + f_int(M_OFFSET, offset) +
                                f_int(M_FILE, st(path)) +
                                (f_int(M_BUILD_ID, st(build_ids[path])) if build_ids.get(path) else b"") +
                                f_int(M_HAS_FUNCTIONS, 1) +
                                f_int(M_HAS_FILES, 1) + f_int(M_HAS_LINES, 1)))
        return mappings[path]

    def function_id(name, path):
        key = (name, path)
        if key not in functions:
            fid = len(functions) + 1
            functions[key] = fid
            body.extend(f_bytes(P_FUNCTION, f_int(F_ID, fid) + f_int(F_NAME, st(name)) +
                                f_int(F_SYSTEM_NAME, st(name)) + f_int(F_FILE, st(path))))
        return functions[key]

    def location_id(frame):
        addr = int(frame["addr"], 16)
        key = (addr, frame.get("_object") or frame.get("object"))
        if key not in locations:
            lid = len(locations) + 1
            locations[key] = lid
            lines = b""
            levels = location_lines(frame, frame_name)
            counts.locations += 1
            counts.named += any(name and not name.startswith("??") for name, _ in levels)
            counts.with_lines += any(source_line(source)[1] for _, source in levels)
            for name, source in levels:
                path, line = source_line(source)
                lines += f_bytes(LOC_LINE, f_int(LINE_FUNCTION, function_id(name, path)) +
                                 f_int(LINE_LINE, line))
            body.extend(f_bytes(P_LOCATION, f_int(LOC_ID, lid) +
                                f_int(LOC_MAPPING, mapping_id(frame)) + f_int(LOC_ADDRESS, addr) +
                                lines))
        return locations[key]

    def label(key, text=None, num=None):
        return f_bytes(S_LABEL, f_int(L_KEY, st(key)) +
                       (f_int(L_STR, st(text)) if text is not None else f_int(L_NUM, num)))

    def value_type(field, kind, unit):
        return f_bytes(field, f_int(VT_TYPE, st(kind)) + f_int(VT_UNIT, st(unit)))

    if doc.get("program"):
        mapping_id({"object": doc["program"]})  # mapping 1: the main binary, as pprof expects
    head = value_type(P_SAMPLE_TYPE, "contentions", "count") + \
        value_type(P_SAMPLE_TYPE, "delay", "nanoseconds")
    for lock in doc["locks"]:
        for e in lock.get("contention", []):
            scale = scale_of(lock, e)
            sid = e["holder_stack"] if holders else e["waiter_stack"]
            frames = doc["_stacks"].get(sid) if sid else None
            frames = frames or [e["holder_site"] if holders else e["waiter_site"]]
            ids = [location_id(f) for f in frames]  # the leaf first, as pprof wants
            values = [round(e["count"] * scale), round(e["wait_ns"] * scale)]
            labels = label("lock", lock_label(lock)) + label("lock_id", num=lock["id"])
            if "mode" in e:
                labels += label("mode", e["mode"])
            body.extend(f_bytes(P_SAMPLE, f_packed(S_LOCATION, ids) + f_packed(S_VALUE, values) +
                                labels))
            counts.samples += 1
    tail = f_int(P_TIME, doc.get("start_unix_ns", 0)) + \
        f_int(P_DURATION, doc.get("elapsed_ns", 0)) + \
        value_type(P_PERIOD_TYPE, "contentions", "count") + \
        f_int(P_PERIOD, doc.get("sample", 1) if doc.get("mode") == "summary" else 1)
    for c in (f"lockswap {'holder' if holders else 'waiter'} stacks of contended waits",
              f"program {doc.get('program')} pid {doc.get('pid')}",
              f"backend {doc.get('backend')}, mode {doc.get('mode')}" +
              (f", waits scaled from 1 in {doc.get('sample')} timed"
               if doc.get("mode") == "summary" else ", every wait timed")):
        tail += f_int(P_COMMENT, st(c))
    tail += f_int(P_DEFAULT_TYPE, st("delay"))
    return bytes(head + body + tail + st.encode())


def write(path, doc, holders, frame_name, scale_of, lock_label):
    """Write the profile; returns its Counts."""
    counts = Counts()
    data = gzip.compress(build(doc, holders, frame_name, scale_of, lock_label, counts), mtime=0)
    with open(path, "wb") as f:
        f.write(data)
    return counts
