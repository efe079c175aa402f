"""C++ call sites (tests/stats/progs/names/cxx_sites.cc, built at -O0 and at
-O2): `lockswap report` names the program's function and file:line, never
a frame of the standard library's lock wrappers (gthr-default.h,
std_mutex.h, std_thread.h ...), with the wrapper in brackets and the
template arguments shortened in its tables; the pprof profile keeps the
whole names.  And a wait timed once shows one time as p50, p99 and max."""
import gzip
import json
import os
import re

from checks import report

SYSTEM_LINE = re.compile(r"\((gthr-default\.h|std_mutex\.h|unique_lock\.h|std_thread\.h|"
                         r"condition_variable|shared_mutex|mutex|invoke\.h):\d+\)")


def marked_line(repo, mark):
    with open(os.path.join(repo, "tests", "stats", "progs", "names", "cxx_sites.cc")) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f"// site: {mark}"):
                return n
    return None


def test_cxx_sites(run, env, run_report, repo, tmp):
    put = f"store::Cache<\u2026>::put(...) (cxx_sites.cc:{marked_line(repo, 'put')}) [std::lock_guard]"
    await_lock = (f"store::Cache<\u2026>::await() (cxx_sites.cc:{marked_line(repo, 'await lock')}) "
                  "[std::unique_lock]")
    await_cv = (f"store::Cache<\u2026>::await() (cxx_sites.cc:{marked_line(repo, 'await')}) "
                "[std::condition_variable::wait]")
    for opt in ("O0", "O2"):
        tag = f"cxx sites -{opt}"
        jpath = os.path.join(tmp, f"{opt}.json")
        p = run(f"stats_cxx_sites_{opt}", [200], env("futex", STATS="full", STATS_FILE=jpath))
        if not report(p.returncode == 0 and os.path.exists(jpath), f"{tag}: runs", p.stderr[-300:]):
            continue
        r = run_report([jpath])
        put_row = next((line for line in r.stdout.splitlines() if f"mutex at {put}" in line), "")
        report(r.returncode == 0 and put_row and not SYSTEM_LINE.search(put_row),
               f"{tag}: report names the contended mutex after the program's function and "
               f"line, {put!r}", r.stdout[-900:] + r.stderr[-300:])
        r = run_report([jpath, "--by", "site"])
        rows = r.stdout.split("\n\n", 1)[-1].splitlines()[1:]
        waiting = [re.split(r"\s{2,}", row)[0] for row in rows if row.strip()]
        report(r.returncode == 0 and put in waiting and
               not any(SYSTEM_LINE.search(w) or "<long>" in w for w in waiting),
               f"{tag}: report --by site's waiters are the program's lines ({put!r} among "
               "them), no wrapper frame, no template argument", rows[-12:])
        if opt == "O2":  # -O0 keeps one return address in the wrapper for an uncontended lock
            r = run_report([jpath])
            report(f"mutex at {await_lock}" in r.stdout and f"condvar at {await_cv}" in r.stdout,
                   f"{tag}: the uncontended mutex's and the condvar's first uses, inlined, are "
                   "the program's lines", r.stdout[-900:])
        out = os.path.join(tmp, f"{opt}.pb.gz")
        r = run_report([jpath, "--pprof", out])
        pb = open(out, "rb").read() if os.path.exists(out) else b""
        text = gzip.decompress(pb) if pb else b""
        report(r.returncode == 0 and r.stdout.startswith(f"wrote {out}: ") and
               re.search(r": [1-9][0-9]* named, [1-9][0-9]* with file:line", r.stdout) and
               b"store::Cache<long>::put(long, long, bool)" in text and
               b"std::mutex::lock()" in text and "\u2026".encode() not in text,
               f"{tag}: report --pprof says what it wrote; the profile keeps the whole names, "
               "wrappers included", r.stdout[-300:] + r.stderr[-300:])
        doc = json.load(open(jpath))
        once = [(lk["id"], lk["wait"]) for lk in doc["locks"]
                if lk.get("wait", {}).get("samples") == 1]
        report(once and all(w["p50_ns"] == w["p99_ns"] == w["p999_ns"] == w["max_ns"] > 0
                            for _, w in once),
               f"{tag}: a wait timed once (the condvar's) has p50 = p99 = p99.9 = max", once)
