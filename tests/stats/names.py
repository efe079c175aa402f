"""Readable call sites (tests/stats, stats_names.cc and the stripped
library of tests/preload/names/): C++ names demangled in the stderr
summary, the JSON, the folded stacks and the Prometheus site label;
`lockswap report` adds file:line from the -g build and demangles files
with mangled names; a static function of a stripped library is unknown,
with its offset, everywhere - never named after the exported function
laid out just below it (stripped_contend), which is what a
nearest-symbol lookup (addr2line on the stripped file) answers."""
import json
import os
import re
import subprocess

from checks import report

MANGLED = "_ZN4shop4cart6Basket3addElP9Handshake"
FULL = "shop::cart::Basket::add(long, Handshake*)"
SHORT = "shop::cart::Basket::add(...)"
WRONG = ("stripped_contend", "stripped_version")  # the exported neighbours


def site_line(repo):
    """The line of stats_names.cc that takes the lock (marked in the source)."""
    with open(os.path.join(repo, "tests", "preload", "stats_names.cc")) as f:
        for n, line in enumerate(f, 1):
            if "// the site of the test" in line:
                return n
    return None


def all_frames(doc):
    for s in doc["stacks"]:
        yield from s["frames"]
    for lock in doc["locks"]:
        yield lock["site"]
        for e in lock["contention"]:
            yield e["waiter_site"]
            yield e["holder_site"]


def test_names(run, env, valid, run_report, repo, prog_dir, tmp):
    jpath, fpath = os.path.join(tmp, "names.json"), os.path.join(tmp, "names.folded")
    ppath = os.path.join(tmp, "names.prom")
    stripped = os.path.join(prog_dir, "libstripped.so")
    p = run("stats_names", [4, 20000, stripped],
            env("futex", STATS="full", STATS_FILE=jpath, STATS_FOLDED=fpath, STATS_PROM=ppath))
    if not report(p.returncode == 0 and os.path.exists(jpath), "names: stats_names runs",
                  p.stderr[-300:]):
        return
    doc = json.load(open(jpath))
    valid(doc, "names")
    basket = [lk for lk in doc["locks"] if lk["site"]["symbol"] == FULL]
    hidden = [lk for lk in doc["locks"]
              if (lk["site"]["object"] or "").endswith("/libstripped.so")]
    report(len(basket) == 1 and basket[0]["acquisitions"] == 80002,
           f"names: JSON site of the C++ mutex is {FULL!r}",
           [lk["site"] for lk in doc["locks"]])
    mangled = sorted({f["symbol"] for f in all_frames(doc) if (f["symbol"] or "").startswith("_Z")})
    report(not mangled, "names: no frame of the JSON keeps a mangled name", mangled[:3])
    ok = (len(hidden) == 1 and hidden[0]["site"]["symbol"] is None and hidden[0]["name"] is None
          and re.fullmatch(r"0x[0-9a-f]+", hidden[0]["site"]["offset"]))
    report(ok, "names: the stripped library's static site and static mutex are unknown "
           "(symbol null, name null) with object and offset", hidden[:1] and hidden[0]["site"])
    wrong = [f for f in all_frames(doc) if f["symbol"] in WRONG]
    report(not wrong and not any(lk["name"] in WRONG for lk in doc["locks"]),
           "names: no frame or lock is named after the stripped library's exported neighbours",
           wrong[:2])
    off = hidden[0]["site"]["offset"] if hidden else "?"
    err = p.stderr
    report(SHORT in err and MANGLED not in err and f"?? (libstripped.so+{off})" in err and
           not any(w in err for w in WRONG),
           f"names: the stderr summary prints {SHORT}, ?? (libstripped.so+{off}), no mangled "
           "or wrong name", err[-600:])
    folded = open(fpath).read() if os.path.exists(fpath) else ""
    # stats_names makes one contended wait at the C++ site certain; the
    # stripped library's waits are left to the scheduler.
    hidden_waits = bool(hidden and hidden[0]["contention"])
    report(f";{SHORT};" in folded and MANGLED not in folded and
           (not hidden_waits or f";?? (libstripped.so+{off});" in folded) and
           not any(w in folded for w in WRONG),
           "names: the folded stacks name the C++ frame (and mark the stripped one unknown)",
           folded[:400])
    prom = open(ppath).read() if os.path.exists(ppath) else ""
    sites = set(re.findall(r'site="([^"]*)"', prom))
    report(any(s.startswith(SHORT + "+0x") for s in sites) and
           f"libstripped.so+{off}" in sites and not any(w in s for s in sites for w in WRONG),
           "names: the Prometheus site labels are the demangled name and the stripped "
           "library's module+offset", sites)

    line = site_line(repo)
    r = run_report([jpath])
    want = f"{SHORT} (stats_names.cc:{line})"
    report(r.returncode == 0 and want in r.stdout and f"?? (libstripped.so+{off})" in r.stdout
           and not any(w in r.stdout for w in WRONG),
           f"names: lockswap report shows {want!r} and the stripped site unknown "
           "(addr2line's nearest-symbol guess refused)", r.stdout[-800:] + r.stderr[-300:])
    r = run_report([jpath, "--by", "site"])
    report(r.returncode == 0 and want in r.stdout, "names: lockswap report --by site too",
           r.stdout[-600:])
    # A file written by an older lockswap: mangled names, demangled by the CLI.
    old = json.loads(open(jpath).read().replace(json.dumps(FULL), json.dumps(MANGLED)))
    opath = os.path.join(tmp, "old.json")
    with open(opath, "w") as f:
        json.dump(old, f)
    r = run_report([opath])
    report(r.returncode == 0 and want in r.stdout and MANGLED not in r.stdout,
           "names: lockswap report demangles a file with mangled names (c++filt)",
           r.stdout[-600:])
    r = run_report([jpath, "--folded", os.path.join(tmp, "cli.folded")])
    cli = open(os.path.join(tmp, "cli.folded")).read() if r.returncode == 0 else ""
    report(f";{SHORT};" in cli and MANGLED not in cli and not any(w in cli for w in WRONG),
           "names: lockswap report --folded names the frames the same way", cli[:400])
