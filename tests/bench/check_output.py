"""tests/bench/check_output.py - the checker of the benchmarks' JSON output
(bench/mutexbench, bench/leveldb_bench, bench/nativebench), run by
tests/bench/run.sh on each run's stdout and tested by test_check_output.py.
Never timing: shapes, ranges, and the numbers that must follow from others.

  check_output.py mutex MODE THREADS [excl|broken [CS_LINES CLASS_CS...]]
  check_output.py leveldb THREADS WORKLOAD[=all]...
  check_output.py native LOCK THREADS

The output is read on stdin.  Prints the first problem found, or nothing,
and exits 0 either way; a crash of the checker (a missing key, say) is a
problem too, never a pass (run.sh counts any output as a failure).
Environment, for the runs that ask for more: WANT_RULE, WANT_LATE,
WANT_STRETCH_US, WANT_NICE, WANT_LIMIT (mutex), SPIN (native).
"""
import json
import os
import sys


class Problem(Exception):
    """The first thing wrong with the output: the message is the line
    tests/bench/run.sh prints after the check's name."""


def bad(msg):
    raise Problem(msg)

def shares(o, n):
    eps = 1e-3
    if not (0 - eps <= o["min_share"] <= 1 + eps):
        bad("min_share %r outside [0,1]" % o["min_share"])
    if not (1 - eps <= o["max_share"] <= n + eps):
        bad("max_share %r outside [1,threads]" % o["max_share"])
    if not (1.0 / n - eps <= o["jain"] <= 1 + eps):
        bad("jain %r outside [1/threads,1]" % o["jain"])
    pto = o["per_thread_ops"]
    if len(pto) != n or any(not isinstance(x, int) or x < 0 for x in pto):
        bad("per_thread_ops %r does not match threads=%d" % (pto, n))
    if sum(pto) != o["ops"]:
        bad("per_thread_ops sum %d != ops %d" % (sum(pto), o["ops"]))
    if o["ops"] <= 0:
        bad("ops is %r" % o["ops"])

WINDOW_KEYS = {"warmup_s", "window_start_s", "window_end_s", "window_rule", "all_acquired_s",
               "run_seconds", "total_ops", "min_max", "per_thread_ops_share"}
CPU_KEYS = {"per_thread_cpu_ns", "per_thread_cpu_share", "cpu_min_share", "cpu_max_share",
            "voluntary_switches", "involuntary_switches"}
HOLD_KEYS = {"hold_measure", "per_thread_hold", "per_thread_hold_share", "hold_min_share",
             "hold_max_share", "hold_min_max", "hold_jain"}

def window(o):
    """The window lies after the warm-up, inside the run, lasts `seconds`,
    and opened after every thread's first op unless the rule says timeout."""
    eps = 2e-3
    w0, w1 = o["window_start_s"], o["window_end_s"]
    if o["window_rule"] not in ("warmup", "all_acquired", "timeout"):
        bad("window_rule %r" % o["window_rule"])
    if not (o["warmup_s"] - eps <= w0 < w1 <= o["run_seconds"] + eps):
        bad("window %r..%r not after warm-up %r and inside run %r"
            % (w0, w1, o["warmup_s"], o["run_seconds"]))
    if abs((w1 - w0) - o["seconds"]) > eps:
        bad("window %r..%r is not seconds=%r long" % (w0, w1, o["seconds"]))
    if o["window_rule"] != "timeout":
        if o["all_acquired_s"] is None or o["all_acquired_s"] > w0 + eps:
            bad("all_acquired_s %r after the window opened at %r" % (o["all_acquired_s"], w0))
    elif o["all_acquired_s"] is not None and o["all_acquired_s"] < w0 - eps:
        bad("rule timeout, yet every thread had acquired at %r, before %r"
            % (o["all_acquired_s"], w0))
    if os.environ.get("WANT_RULE") and o["window_rule"] != os.environ["WANT_RULE"]:
        bad("window_rule %r, expected %r" % (o["window_rule"], os.environ["WANT_RULE"]))
    late = float(os.environ.get("WANT_LATE", 0))
    if o["window_rule"] != "timeout" and not (w0 >= o["all_acquired_s"] >= late):
        bad("a thread slept %r s before its first op, yet all_acquired_s %r, window at %r"
            % (late, o["all_acquired_s"], w0))
    if o["total_ops"] < o["ops"]:
        bad("total_ops %r < window ops %r" % (o["total_ops"], o["ops"]))
    pto = o["per_thread_ops"]
    if abs(o["min_max"] - min(pto) / max(pto)) > 1e-3:
        bad("min_max %r is not min/max of %r" % (o["min_max"], pto))
    sums_to_one("per_thread_ops_share", o["per_thread_ops_share"], pto)

def sums_to_one(name, shares, amounts):
    if len(shares) != len(amounts) or abs(sum(shares) - 1) > 1e-4:
        bad("%s %r does not sum to 1" % (name, shares))
    total = sum(amounts)
    if any(abs(s - a / total) > 1e-5 for s, a in zip(shares, amounts)):
        bad("%s %r is not %r over its sum" % (name, shares, amounts))

def holds(o, n, cs_work=None):
    eps = 1e-3
    h = o["per_thread_hold"]
    if len(h) != n or any(not isinstance(x, int) or x < 0 for x in h) or sum(h) <= 0:
        bad("per_thread_hold %r" % h)
    sums_to_one("per_thread_hold_share", o["per_thread_hold_share"], h)
    mean = sum(h) / n
    for key, want in (("hold_min_share", min(h) / mean), ("hold_max_share", max(h) / mean),
                      ("hold_min_max", min(h) / max(h)),
                      ("hold_jain", sum(h) ** 2 / (n * sum(x * x for x in h)))):
        if abs(o[key] - want) > eps:
            bad("%s %r, expected %r from per_thread_hold" % (key, o[key], want))
    if o["hold_measure"] not in ("work_units", "tsc_ticks", "ns"):
        bad("hold_measure %r" % o["hold_measure"])

def cpu(o, n):
    """Each thread's CPU time in the window: non-negative ns, some of it
    spent (every thread works through the window), shares and their
    extremes computed from it; the process's context switches counted."""
    c = o["per_thread_cpu_ns"]
    if len(c) != n or any(not isinstance(x, int) or x < 0 for x in c) or sum(c) <= 0:
        bad("per_thread_cpu_ns %r" % c)
    if sum(c) > n * o["seconds"] * 1.05e9:
        bad("per_thread_cpu_ns %r: more CPU time than %d threads can use in %r s"
            % (c, n, o["seconds"]))
    sums_to_one("per_thread_cpu_share", o["per_thread_cpu_share"], c)
    mean = sum(c) / n
    for key, want in (("cpu_min_share", min(c) / mean), ("cpu_max_share", max(c) / mean)):
        if abs(o[key] - want) > 1e-3:
            bad("%s %r, expected %r from per_thread_cpu_ns" % (key, o[key], want))
    for key in ("voluntary_switches", "involuntary_switches"):
        if not isinstance(o[key], int) or o[key] < 0:
            bad("%s %r" % (key, o[key]))

SHORT_KEYS = {"fair_%s_%s" % (w, k) for w in ("1ms", "10ms")
              for k in ("windows", "idle_windows", "min_share", "median_min_share")} | \
             {"longest_stretch_max_us", "longest_stretch_median_us", "per_thread_longest_stretch_us"}
WAIT_KEYS = {"wait_p50_ns", "wait_p99_ns", "wait_p999_ns"}
REQUEST_KEYS = {"requests", "request_p50_ns", "request_p99_ns", "request_p999_ns",
                "request_max_ns", "request_worst_thread_p99_ns", "per_thread_request_p99_ns"}

def short_windows(o, n):
    """Whole 1 ms and 10 ms windows of the steady window (as many as its
    length holds, give or take the edges; the 10 ms ones cut from the same
    milliseconds), each share in [0,1] or null when no window had an
    acquisition, the median at least the min; the longest stretches per
    thread within the window."""
    ms = o["seconds"] * 1000
    w1, w10 = o["fair_1ms_windows"], o["fair_10ms_windows"]
    if not (isinstance(w1, int) and ms - 3 <= w1 <= ms + 1):
        bad("fair_1ms_windows %r for a window of %r ms" % (w1, ms))
    if w10 != w1 // 10:
        bad("fair_10ms_windows %r, expected %r // 10" % (w10, w1))
    for w, count in (("1ms", w1), ("10ms", w10)):
        idle, lo, med = (o["fair_%s_%s" % (w, k)] for k in ("idle_windows", "min_share",
                                                            "median_min_share"))
        if not (isinstance(idle, int) and 0 <= idle <= count):
            bad("fair_%s_idle_windows %r of %r" % (w, idle, count))
        if (lo is None) != (idle == count) or (med is None) != (lo is None):
            bad("fair_%s min/median %r/%r with %r idle of %r windows" % (w, lo, med, idle, count))
        if lo is not None and not (0 <= lo <= med <= 1):
            bad("fair_%s min %r, median %r: not 0 <= min <= median <= 1" % (w, lo, med))
    # Every thread acquired in every busy 1 ms window: no stretch can span
    # a whole window, and none is more than 1 ms before the first or after
    # the last (the end's partial window): under 3 ms.
    st = o["per_thread_longest_stretch_us"]
    if len(st) != n or any(not (0 <= x <= o["seconds"] * 1e6 + 5e3) for x in st):
        bad("per_thread_longest_stretch_us %r" % st)
    srt = sorted(st)
    median = srt[n // 2] if n % 2 else (srt[n // 2 - 1] + srt[n // 2]) / 2
    if abs(o["longest_stretch_max_us"] - max(st)) > 0.1 or \
       abs(o["longest_stretch_median_us"] - median) > 0.1:
        bad("longest_stretch max/median %r/%r of %r" % (o["longest_stretch_max_us"],
                                                        o["longest_stretch_median_us"], st))
    if (o["fair_1ms_min_share"] or 0) > 0 and o["fair_1ms_idle_windows"] == 0 and max(st) >= 3000:
        bad("every thread acquired in every 1 ms window, yet a stretch of %r us" % max(st))
    if n == 1 and o["fair_1ms_min_share"] not in (None, 1.0):
        bad("one thread, yet fair_1ms_min_share %r" % o["fair_1ms_min_share"])
    want = float(os.environ.get("WANT_STRETCH_US", 0))
    if max(st) < want:
        bad("longest stretch %r us, at least %r expected" % (max(st), want))

def requests(o, n):
    """Every request in the window was an op; p50 <= p99 <= p99.9 <= max,
    the worst thread's p99 between the overall p99 (a mixture's quantile is
    at most its worst part's) and the max."""
    if not (isinstance(o["requests"], int) and 0 < o["requests"] <= o["total_ops"]):
        bad("requests %r (total_ops %r)" % (o["requests"], o["total_ops"]))
    p = [o["request_p50_ns"], o["request_p99_ns"], o["request_p999_ns"], o["request_max_ns"]]
    if any(not isinstance(x, int) or x <= 0 for x in p) or p != sorted(p):
        bad("request p50/p99/p99.9/max not ordered positive ints: %r" % p)
    per = o["per_thread_request_p99_ns"]
    if len(per) != n or o["request_worst_thread_p99_ns"] != max(per):
        bad("request_worst_thread_p99_ns %r is not the max of %r"
            % (o["request_worst_thread_p99_ns"], per))
    if not (o["request_p99_ns"] <= o["request_worst_thread_p99_ns"] <= o["request_max_ns"]):
        bad("worst thread's p99 %r outside [p99 %r, max %r]" % (
            o["request_worst_thread_p99_ns"], o["request_p99_ns"], o["request_max_ns"]))
    if n == 1 and o["request_worst_thread_p99_ns"] != o["request_p99_ns"]:
        bad("one thread, yet its p99 %r differs from all requests' %r"
            % (o["request_worst_thread_p99_ns"], o["request_p99_ns"]))
    if o["request_max_ns"] > o["run_seconds"] * 1e9 + 1e7:
        bad("request_max_ns %r longer than the run" % o["request_max_ns"])

def classes(o, n, cs_lines, class_cs):
    """Thread i is in class i % len(class_cs); in work units each section
    holds 1 + cs_work + cs_lines, and the window's edges cut at most one
    section per thread apart from its op count."""
    k = len(class_cs)
    if "classes" not in o:
        if k != 1:
            bad("no classes in the output, expected %r" % class_cs)
        c = []
    else:
        c = o["classes"]
    if c and [x["cs_work"] for x in c] != class_cs:
        bad("classes cs_work %r, expected %r" % ([x["cs_work"] for x in c], class_cs))
    if c and [x["threads"] for x in c] != [len(range(j, n, k)) for j in range(k)]:
        bad("class threads %r" % [x["threads"] for x in c])
    pto, h = o["per_thread_ops"], o["per_thread_hold"]
    for j, x in enumerate(c):
        if x["ops"] != sum(pto[j::k]) or x["hold"] != sum(h[j::k]):
            bad("class %d sums %r/%r differ from its threads'" % (j, x["ops"], x["hold"]))
        equal = x["threads"] / n
        if abs(x["hold_vs_equal"] - x["hold"] / sum(h) / equal) > 1e-3 or \
           abs(x["ops_vs_equal"] - x["ops"] / sum(pto) / equal) > 1e-3:
            bad("class %d vs-equal figures %r" % (j, x))
    rel = [x["hold_vs_equal"] for x in c]
    if c and (abs(o["class_hold_min_vs_equal"] - min(rel)) > 1e-3 or
              abs(o["class_hold_max_vs_equal"] - max(rel)) > 1e-3):
        bad("class_hold_min/max_vs_equal %r/%r" % (o["class_hold_min_vs_equal"],
                                                   o["class_hold_max_vs_equal"]))
    if o["hold_measure"] == "work_units":
        for i in range(n):
            u = 1 + class_cs[i % k] + cs_lines
            if abs(h[i] - pto[i] * u) > u:
                bad("thread %d: hold %r is not ops %r x %r units" % (i, h[i], pto[i], u))



def json_lines(text):
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as e:
        bad("invalid JSON: %s" % e)


def check_mutex(text, argv):
    """mutex MODE THREADS [excl|broken [CS_LINES CLASS_CS...]]"""
    objs = json_lines(text)
    mode, n = argv[2], int(argv[3])
    want_excl = len(argv) < 5 or argv[4] != "broken"
    if len(objs) != 1:
        bad("expected one JSON line, got %d" % len(objs))
    o = objs[0]
    keys = {"bench", "mode", "threads", "locks", "seconds", "ops", "throughput",
            "min_share", "max_share", "jain", "per_thread_ops",
            "exclusion_ok"} | WINDOW_KEYS | HOLD_KEYS | CPU_KEYS | SHORT_KEYS
    keys |= REQUEST_KEYS if mode == "request" else WAIT_KEYS
    if "classes" in o:
        keys |= {"classes", "class_hold_min_vs_equal", "class_hold_max_vs_equal"}
    if os.environ.get("WANT_NICE"):
        keys |= {"per_thread_nice"}
    if os.environ.get("WANT_LIMIT"):
        keys |= {"limit_throughput", "limit_ratio"}
    if mode == "condvar":
        keys |= {"produced", "consumed"}
    if mode == "rwlock":
        keys |= {"read_pct"}
    if set(o) != keys:
        bad("keys differ: extra %s missing %s" % (sorted(set(o) - keys), sorted(keys - set(o))))
    if o["bench"] != "mutexbench" or o["mode"] != mode or o["threads"] != n:
        bad("bench/mode/threads are %r/%r/%r" % (o["bench"], o["mode"], o["threads"]))
    if o["exclusion_ok"] is not want_excl:
        bad("exclusion_ok is %r" % o["exclusion_ok"])
    if not want_excl:
        return
    shares(o, n)
    if not (o["seconds"] > 0 and o["throughput"] > 0):
        bad("seconds/throughput not positive")
    if mode == "request":
        requests(o, n)
    else:
        p = [o["wait_p50_ns"], o["wait_p99_ns"], o["wait_p999_ns"]]
        if any(not isinstance(x, int) or x < 0 for x in p) or p != sorted(p):
            bad("wait percentiles not ordered non-negative ints: %r" % p)
    short_windows(o, n)
    if mode == "condvar" and not (o["produced"] == o["consumed"] > 0):
        bad("produced %r consumed %r" % (o["produced"], o["consumed"]))
    window(o)
    holds(o, n)
    cpu(o, n)
    if os.environ.get("WANT_NICE"):
        # --nice: thread i raised its nice value by INC[i % k] from the
        # main thread's (19 at most: the kernel clamps there).
        inc = [int(x) for x in os.environ["WANT_NICE"].split(",")]
        base = os.getpriority(os.PRIO_PROCESS, 0)
        want = [min(19, base + inc[i % len(inc)]) for i in range(n)]
        if o["per_thread_nice"] != want:
            bad("per_thread_nice %r, expected %r" % (o["per_thread_nice"], want))
    if os.environ.get("WANT_LIMIT"):
        # --limit: one thread alone ran first; the ratio is this run's
        # throughput over its (as printed: 4 decimals).
        if not o["limit_throughput"] > 0:
            bad("limit_throughput %r" % o["limit_throughput"])
        if abs(o["limit_ratio"] - o["throughput"] / o["limit_throughput"]) > 1e-3 * max(1, o["limit_ratio"]):
            bad("limit_ratio %r is not throughput / limit_throughput" % o["limit_ratio"])
    if len(argv) > 5:          # mutex MODE THREADS excl CS_LINES CLASS_CS...
        classes(o, n, int(argv[5]), [int(c) for c in argv[6:]])


def check_leveldb(text, argv):
    """leveldb THREADS WORKLOAD[=all]..."""
    objs = json_lines(text)
    n = int(argv[2])
    want = argv[3:]
    if [o.get("workload") for o in objs] != [w.split("=")[0] for w in want]:
        bad("workloads %r, expected %r" % ([o.get("workload") for o in objs], want))
    keys = {"bench", "workload", "threads", "ops", "seconds", "ops_per_sec",
            "micros_per_op", "min_share", "max_share", "jain", "per_thread_ops", "found"}
    for o, w in zip(objs, want):
        if set(o) != keys:
            bad("%s: keys differ: %s" % (o["workload"], sorted(set(o) ^ keys)))
        if o["bench"] != "leveldb":
            bad("bench is %r" % o["bench"])
        fill = o["workload"].startswith("fill")
        if o["threads"] != (1 if o["workload"] == "fillseq" else n):
            bad("%s: threads %r" % (o["workload"], o["threads"]))
        shares(o, o["threads"])
        if not (o["seconds"] > 0 and o["ops_per_sec"] > 0 and o["micros_per_op"] > 0):
            bad("%s: time fields not positive" % o["workload"])
        if fill:
            if o["found"] is not None:
                bad("%s: found should be null" % o["workload"])
        elif not (isinstance(o["found"], int) and 0 <= o["found"] <= o["ops"]):
            bad("%s: found %r not in [0, ops]" % (o["workload"], o["found"]))
        elif w.endswith("=all") and o["found"] != o["ops"]:
            bad("%s: found %r of %r, expected all" % (o["workload"], o["found"], o["ops"]))


def check_native(text, argv):
    """nativebench --json: one JSON object with every key, the exclusion
    check held (the counter is the calls that returned), and the shares
    match per_thread_ops."""
    try:
        o = json.loads(text)
    except ValueError as e:
        bad("not JSON: %s" % e)
    want = {"lock", "threads", "seconds", "warmup", "cs_work", "ncs_work", "spin", "throughput",
            "window_ops", "total_ops", "counter", "overlaps", "delegated", "exclusive",
            "min_share", "max_share", "per_thread_ops"}
    if want - set(o):
        bad("missing %s" % sorted(want - set(o)))
    lock, n, pto = argv[2], int(argv[3]), o["per_thread_ops"]
    if o["spin"] != int(os.environ.get("SPIN", "-1")):
        bad("spin %r, wanted %s" % (o["spin"], os.environ.get("SPIN", "-1")))
    if o["lock"] != lock or o["threads"] != n or len(pto) != n:
        bad("lock/threads %r/%r/%d" % (o["lock"], o["threads"], len(pto)))
    if not o["exclusive"] or o["counter"] != o["total_ops"] or o["overlaps"] != 0:
        bad("exclusion: counter %r total %r overlaps %r" % (o["counter"], o["total_ops"],
                                                            o["overlaps"]))
    if o["lock"] == "pthread" and o["delegated"] != 0:
        bad("a pthread lock ran %r sections on another thread" % o["delegated"])
    if not 0 <= o["delegated"] <= o["total_ops"]:
        bad("delegated %r of %r" % (o["delegated"], o["total_ops"]))
    if sum(pto) != o["window_ops"] or o["window_ops"] <= 0 or o["total_ops"] < o["window_ops"]:
        bad("ops %r window %r total %r" % (pto, o["window_ops"], o["total_ops"]))
    mean = sum(pto) / n
    if abs(o["min_share"] - min(pto) / mean) > 1e-3 or abs(o["max_share"] - max(pto) / mean) > 1e-3:
        bad("shares %r %r for %r" % (o["min_share"], o["max_share"], pto))
    if abs(o["throughput"] - o["window_ops"] / o["seconds"]) > 1e-3 * o["throughput"] + 1:
        bad("throughput %r is not window_ops / seconds" % o["throughput"])


CHECKS = {"mutex": check_mutex, "leveldb": check_leveldb, "native": check_native}


def problem(argv, text):
    """The first problem of TEXT checked as argv (argv[1] the kind), or None."""
    try:
        CHECKS[argv[1]](text, argv)
    except Problem as e:
        return str(e)
    return None


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        print("usage: check_output.py mutex|leveldb|native ARGS... <OUTPUT")
        sys.exit(2)
    found = problem(sys.argv, sys.stdin.read())
    if found:
        print(found)
