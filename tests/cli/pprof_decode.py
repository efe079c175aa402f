"""A minimal reader of the protobuf wire format and of pprof's
profile.proto, written apart from the CLI's encoder (lockswap_cli/pprof.py)
so that the test does not check the encoder against itself: varints and
length-delimited fields only (the wire types profile.proto uses), fields
by number, packed or unpacked repeated integers both accepted."""
import gzip


def read_varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def fields(buf):
    """{field number: [raw values]}: ints for varints, bytes otherwise."""
    out, i = {}, 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(buf, i)
        elif wire == 2:
            n, i = read_varint(buf, i)
            value, i = bytes(buf[i:i + n]), i + n
        else:
            raise ValueError(f"wire type {wire} of field {field} is not used by profile.proto")
        out.setdefault(field, []).append(value)
    return out


def ints(raw):
    """A repeated integer field: packed (bytes) or one varint per value."""
    out = []
    for v in raw:
        if isinstance(v, bytes):
            i = 0
            while i < len(v):
                x, i = read_varint(v, i)
                out.append(x)
        else:
            out.append(v)
    return out


def one(msg, field, default=0):
    return msg.get(field, [default])[-1]


def decode(path):
    """The profile as plain Python: strings resolved, ids kept."""
    p = fields(gzip.decompress(open(path, "rb").read()))
    s = [b.decode() for b in p.get(6, [])]

    def vt(raw):
        m = fields(raw)
        return (s[one(m, 1)], s[one(m, 2)])

    functions = {}
    for raw in p.get(5, []):
        m = fields(raw)
        functions[one(m, 1)] = {"name": s[one(m, 2)], "file": s[one(m, 4)]}
    locations = {}
    for raw in p.get(4, []):
        m = fields(raw)
        lines = [fields(x) for x in m.get(4, [])]
        locations[one(m, 1)] = {
            "mapping": one(m, 2), "address": one(m, 3),
            "lines": [(functions[one(l, 1)]["name"], functions[one(l, 1)]["file"], one(l, 2))
                      for l in lines]}
    mappings = {}
    for raw in p.get(3, []):
        m = fields(raw)
        mappings[one(m, 1)] = {"start": one(m, 2), "limit": one(m, 3), "file": s[one(m, 5)],
                               "build_id": s[one(m, 6)] if 6 in m else None,
                               "has_functions": bool(one(m, 7))}
    samples = []
    for raw in p.get(2, []):
        m = fields(raw)
        labels = {}
        for lraw in m.get(3, []):
            lm = fields(lraw)
            labels[s[one(lm, 1)]] = s[one(lm, 2)] if 2 in lm else one(lm, 3)
        samples.append({"locations": ints(m.get(1, [])), "values": ints(m.get(2, [])),
                        "labels": labels})
    return {"strings": s, "sample_types": [vt(x) for x in p.get(1, [])], "samples": samples,
            "locations": locations, "functions": functions, "mappings": mappings,
            "period_type": vt(p[11][-1]) if 11 in p else None, "period": one(p, 12),
            "duration": one(p, 10), "default_type": s[one(p, 14)],
            "comments": [s[i] for i in ints(p.get(13, []))]}
