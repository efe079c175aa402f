"""Readable call sites (tests/stats, stats_names.cc and the stripped
library of tests/stats/progs/names/): C++ names demangled in the stderr
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


def site_line(repo, source=("tests", "stats", "progs", "stats_names.cc")):
    """The line of a test program that takes the lock (marked in the source)."""
    with open(os.path.join(repo, *source)) as f:
        for n, line in enumerate(f, 1):
            if "the site of the test" in line:
                return n
    return None


def readelf_build_id(path):
    """The GNU build ID as binutils' readelf prints it (the check does not
    share the CLI's ELF reader)."""
    p = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", p.stdout)
    return m.group(1) if m else None


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
    test_build_ids(doc, jpath, want, off, stripped, run_report, repo, prog_dir, tmp)
    # A file written by an older lockswap: mangled names, demangled by the
    # CLI, and no build IDs (its objects are read as they are on disk).
    old = json.loads(open(jpath).read().replace(json.dumps(FULL), json.dumps(MANGLED)))
    old.pop("objects", None)
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


def test_build_ids(doc, jpath, want, off, stripped, run_report, repo, prog_dir, tmp):
    """The JSON's build IDs (stats/build_ids.c), and what lockswap report
    does with them: the stripped library's lines from its separate debug
    file (mk/stats.mk puts it under build/stats-debug/.build-id), and no
    lines from a program that is not the file that ran."""
    ids = {o["path"]: o["build_id"] for o in doc.get("objects", [])}
    lib = os.path.join(repo, "liblockswap.so")
    prog = doc["program"]
    expect = {"/proc/self/exe": readelf_build_id(prog), stripped: readelf_build_id(stripped),
              lib: readelf_build_id(lib)}
    report(all(expect.values()) and all(ids.get(k) == v for k, v in expect.items()),
           "names: the JSON's objects give the program's, the stripped library's and "
           "liblockswap.so's build IDs as readelf -n prints them",
           {k: (ids.get(k), v) for k, v in expect.items()})
    debug = os.path.join(os.path.dirname(prog_dir), "stats-debug")
    line = site_line(repo, ("tests", "stats", "progs", "names", "stripped.c"))
    hidden = f"hidden_work (stripped.c:{line})"
    r = run_report([jpath, "--debug-dir", debug])
    report(r.returncode == 0 and hidden in r.stdout and want in r.stdout and
           f"?? (libstripped.so+{off})" not in r.stdout and not any(w in r.stdout for w in WRONG),
           f"names: lockswap report --debug-dir names the stripped library's site {hidden!r} "
           "from its separate debug file (found by build ID)", r.stdout[-800:] + r.stderr[-300:])
    named = r.stdout
    r = run_report([jpath, "--by", "site"])
    report(r.returncode == 0 and "?? (object+offset): no symbol" in r.stdout and
           "--debug-dir" in r.stdout and "?? (object+offset)" not in named,
           "names: a report with unknown frames ends with how to name them, one whose "
           "frames are all named does not", r.stdout[-400:])
    r = run_report([jpath, "--debug-dir", debug, "--by", "site"])
    report(r.returncode == 0 and hidden in r.stdout, "names: --debug-dir in --by site too",
           r.stdout[-600:])
    # The program rebuilt since the run: its recorded ID no longer matches.
    moved = json.loads(open(jpath).read())
    for o in moved["objects"]:
        if o["path"] == "/proc/self/exe":
            o["build_id"] = "00" * 20
    mpath = os.path.join(tmp, "rebuilt.json")
    with open(mpath, "w") as f:
        json.dump(moved, f)
    r = run_report([mpath])
    report(r.returncode == 0 and SHORT in r.stdout and want not in r.stdout and
           "stats_names.cc:" not in r.stdout and
           f"{prog} is not the file that ran (build ID {'00' * 20} in the run, "
           f"{expect['/proc/self/exe']} on disk)" in r.stderr,
           "names: a program whose build ID differs from the run's gets no file:line, its "
           "name stays, and stderr says why", r.stdout[-500:] + r.stderr[-400:])
    r = run_report([jpath, "--debug-dir", os.path.join(tmp, "no-such-dir")])
    report(r.returncode == 2 and "--debug-dir" in r.stderr and "not a directory" in r.stderr
           and len(r.stderr.strip().splitlines()) == 1,
           "names: --debug-dir of a missing folder is a one-line usage error (exit 2)",
           r.stderr[-300:])
