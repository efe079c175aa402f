"""lockswap report: rendering, comparing, folding and plotting statistics
files (docs/stats-schema.json).  Synthetic profiles check the arithmetic;
one real profile (when the statistics programs are built) checks that what
the library writes is what the command reads."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import LIB, REPO, CliAssertions, clean_env, lockswap

sys.path.insert(0, os.path.join(REPO, "tests", "stats"))
import schema_lite  # noqa: E402



def read(path):
    with open(path) as f:
        return f.read()


SCHEMA = json.loads(read(os.path.join(REPO, "docs", "stats-schema.json")))


def frame(addr, symbol=None):
    return {"addr": hex(addr), "symbol": symbol, "object": "/bin/prog", "offset": hex(addr - 0x1000)}


def timing(samples=0, total=0, hist=()):
    return {"samples": samples, "sampled_total_ns": total, "estimated_total_ns": total,
            "max_ns": total, "mean_ns": total / samples if samples else 0, "p50_ns": 0,
            "p99_ns": 0, "p999_ns": 0, "hist": list(hist)}


def mutex(id_, name, acq, contended=0, wait=0, shares=(), events=(), site="worker"):
    per = [{"thread": i + 1, "acquisitions": a, "trylock_failures": 0, "contended": 0,
            "owner_changes": 0} for i, a in enumerate(shares)]
    total = sum(shares) or 1
    return {"id": id_, "type": "mutex", "address": hex(0x5000 + 64 * id_), "name": name,
            "served_by": "futex", "destroyed": False, "site": frame(0x1100 + id_, site),
            "kind": "normal", "flags": [], "acquisitions": acq, "contended": contended,
            "trylock_failures": 0, "timeouts": 0, "owner_changes": 0,
            "wait": timing(contended, wait, [0] * 10 + [contended]), "hold": timing(),
            "fairness": {"threads": len(shares), "min_share": min(shares, default=0) / total,
                         "max_share": max(shares, default=0) / total, "jain": 1.0 if shares else 0},
            "per_thread": per, "contention": list(events)}


def event(count, wait, wstack, hstack):
    return {"count": count, "wait_ns": wait, "estimated_wait_ns": wait, "waiter_stack": wstack,
            "holder_stack": hstack, "waiter_site": frame(0x1200, "caller"),
            "holder_site": frame(0x1300, "holder_fn")}


def profile(backend="futex", locks=None):
    locks = locks if locks is not None else [
        mutex(1, "big_lock", 1000, 40, 4_000_000, shares=(500, 500),
              events=[event(30, 3_000_000, 1, 2), event(10, 1_000_000, 3, None)]),
        mutex(2, None, 50, 0, 0, shares=(50,), site="init_fn"),
        {"id": 3, "type": "condvar", "address": "0x6000", "name": "cv", "served_by": backend,
         "destroyed": False, "site": frame(0x1400, "waiter"), "waits": 7, "timeouts": 2,
         "signals": 5, "broadcasts": 1, "wait": timing(), "mutex": 1, "mixed_mutexes": False,
         "per_thread": [{"thread": 1, "signals": 5, "broadcasts": 1, "waits": 7, "timeouts": 2}],
         "contention": []},
    ]
    return {"schema": "lockswap-stats", "schema_version": 1, "reason": "exit", "dump": 1,
            "pid": 42, "program": "/bin/prog", "backend": backend, "mode": "full", "sample": 1,
            "unwinder": "libgcc", "clock": "CLOCK_MONOTONIC", "start_unix_ns": 0,
            "elapsed_ns": 2_000_000_000,
            "histogram": {"unit": "ns", "scale": "log2", "buckets": 48, "bucket": "log2"},
            "untracked_objects": False, "events_dropped": 0, "threads_folded": 0,
            "threads": [{"id": 1, "tid": 100, "name": "main", "alive": True},
                        {"id": 2, "tid": 101, "name": "worker", "alive": False}],
            "locks": locks,
            "stacks": [{"id": 1, "frames": [frame(0x1200, "hot_path"), frame(0x1210, "main")]},
                       {"id": 2, "frames": [frame(0x1300, "slow_path"), frame(0x1310, "main")]},
                       {"id": 3, "frames": [frame(0x1250, "other_path"), frame(0x1210, "main")]}],
            "maps": ["00001000-00002000 r-xp 00000000 00:00 0 /bin/prog"]}


class Report(CliAssertions, unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, doc, name="p.json"):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_synthetic_profile_matches_the_schema(self):
        self.assertEqual(schema_lite.errors(profile(), SCHEMA), [])

    def test_by_lock(self):
        p = lockswap("report", self.write(profile()))
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertIn("backend futex", lines[0])
        row = next(l for l in lines if l.startswith(" 1") or l.startswith("1 "))
        self.assertIn("big_lock", row)
        self.assertIn("4.00 ms", row)   # the estimated total wait
        self.assertIn("4.00", row)      # contended percentage
        self.assertIn("mutex at init_fn", p.stdout)  # an unnamed lock is known by its site
        self.assertIn("cv", p.stdout)
        self.assertEqual(p.stderr, "")

    def test_top_limits_rows(self):
        p = lockswap("report", self.write(profile()), "--top", "1")
        self.assertNotIn("init_fn", p.stdout)

    def test_by_site(self):
        p = lockswap("report", self.write(profile()), "--by", "site")
        self.assertEqual(p.returncode, 0, p.stderr)
        first = p.stdout.splitlines()[3]
        self.assertTrue(first.startswith("hot_path"), p.stdout)
        self.assertIn("75.0", first)       # 3 ms of 4 ms
        self.assertIn("slow_path", first)  # the holder's stack
        self.assertIn("holder_fn", p.stdout)  # no holder stack: the holder's call site

    def test_by_thread(self):
        p = lockswap("report", self.write(profile()), "--by", "thread")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"\n\s+1\s+100\s+main\s+yes\s+550\s")

    def test_compare(self):
        b = profile("glibc")
        b["locks"][0]["wait"] = timing(40, 8_000_000, [1])
        p = lockswap("report", self.write(profile(), "a.json"), self.write(b, "b.json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("backend glibc", p.stdout)
        row = next(l for l in p.stdout.splitlines() if l.startswith("big_lock"))
        self.assertIn("2.00", row)  # B waits twice as long
        self.assertIn("B/A 2.00", p.stdout)

    def test_folded(self):
        out = os.path.join(self.tmp.name, "out.folded")
        p = lockswap("report", self.write(profile()), "--folded", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = sorted(read(out).splitlines())
        self.assertEqual(lines, ["main;hot_path;[mutex 1 big_lock] 3000000",
                                 "main;other_path;[mutex 1 big_lock] 1000000"])
        lockswap("report", self.write(profile()), "--folded", out, "--holders")
        self.assertIn("main;slow_path;[mutex 1 big_lock] 3000000", read(out))

    def test_plot(self):
        out = os.path.join(self.tmp.name, "h.png")
        p = lockswap("report", self.write(profile()), self.write(profile("glibc"), "b.json"),
                     "--plot", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_errors(self):
        self.assertUsageError(lockswap("report", os.path.join(self.tmp.name, "none.json")),
                              "cannot read")
        bad = self.write({"schema": "lockswap-stats", "schema_version": 99})
        self.assertUsageError(lockswap("report", bad), "schema_version 99")
        self.assertUsageError(lockswap("report", self.write({"x": 1})), "not a lockswap statistics",
                              "LOCKSWAP_STATS_FILE=FILE.json")
        empty = os.path.join(self.tmp.name, "empty.json")
        open(empty, "w").close()
        self.assertUsageError(lockswap("report", empty), f"{empty} is empty: not a file the "
                              "library wrote")
        ab = self.write({"lockswap": "0.3.0", "invocation": "lockswap ab -r glibc -r futex --out r",
                         "summary": [], "runs": []}, "r.json")
        self.assertUsageError(lockswap("report", ab), f"{ab} is the result of `lockswap ab`",
                              "its table is in", "r.md", "LOCKSWAP_STATS_FILE=FILE.json")
        fleet = self.write({"schema": "lockswap-fleet", "schema_version": 1}, "f.json")
        self.assertUsageError(lockswap("report", fleet), "is a fleet comparison", "f.md")
        p = self.write(profile())
        self.assertUsageError(lockswap("report", p, p, p), "one statistics file, or two")
        self.assertUsageError(lockswap("report", p, "--holders"), "--holders")
        p2 = lockswap("report", p, "--folded", "/nonexistent-dir/x")
        self.assertEqual(p2.returncode, 1)
        self.assertTrue(p2.stderr.startswith("lockswap: cannot write"), p2.stderr)

    def test_lock_wrappers_skipped(self):
        # -O0 C++: the lock call's return address is in __gthread_mutex_lock,
        # called by std::mutex::lock, by std::lock_guard's constructor, by
        # the user's function; the report names the user's function, with
        # the wrapper it went through, and shortens its template arguments.
        doc = profile()
        put = "store::Cache<std::pair<long, long> >::put(long, std::pair<long, long>)"
        doc["stacks"][0]["frames"] = [
            frame(0x1200, "__gthread_mutex_lock(pthread_mutex_t*)"),
            frame(0x1220, "std::mutex::lock()"),
            frame(0x1230, "std::lock_guard<std::mutex>::lock_guard(std::mutex&)"),
            frame(0x1240, put), frame(0x1210, "main")]
        p = lockswap("report", self.write(doc), "--by", "site")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = p.stdout.split("\n\n", 1)[1].splitlines()
        self.assertTrue(rows[1].startswith("store::Cache<\u2026>::put(...) [std::lock_guard] "),
                        p.stdout)
        self.assertNotIn("gthread", p.stdout)
        out = os.path.join(self.tmp.name, "f.folded")
        lockswap("report", self.write(doc), "--folded", out)
        self.assertIn("main;store::Cache<std::pair<long, long> >::put(...);std::lock_guard",
                      read(out))  # flame graphs keep every frame, and whole names

    def test_unknown_frame_hint(self):
        # A frame of a Debian library (libm, not the runtime, whose frames
        # the report skips) that no symbol covers: the note says
        # where its debug information is (debian-debug, debuginfod) by its
        # package and build ID; an object from no package: rebuild with -g.
        libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/"
                                 "libm.so.6") if os.path.exists(p)), None)
        if not libm or not shutil.which("dpkg-query"):
            self.skipTest("skipped: no Debian libm.so.6 / dpkg-query here")
        doc = profile()
        lost = {"addr": "0x7000", "symbol": None, "object": libm, "offset": "0x1234"}
        doc["stacks"][0]["frames"] = [lost, frame(0x1210, "main")]
        doc["objects"] = [{"path": libm, "build_id": "ab" * 20}]
        p = lockswap("report", self.write(doc), "--by", "site")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("?? (libm.so.6+0x1234)", p.stdout)
        self.assertIn("(Debian package libc6, build ID " + "ab" * 20, p.stdout)
        self.assertIn("libc6-dbgsym in the debian-debug archive", p.stdout)
        self.assertIn("debuginfod-find debuginfo " + "ab" * 20, p.stdout)
        self.assertIn("DIR/.build-id/ab/" + "ab" * 19 + ".debug", p.stdout)
        lost["object"] = doc["program"]
        doc["objects"] = []
        p = lockswap("report", self.write(doc), "--by", "site")
        self.assertIn("prog: not from a Debian package here; rebuild it with -g", p.stdout)

    def test_real_profile(self):
        prog = os.path.join(REPO, "build", "stats", "stats_counts")
        if not os.path.exists(prog):
            self.skipTest("build/stats/stats_counts not built")
        path = os.path.join(self.tmp.name, "real.json")
        env = clean_env(LD_PRELOAD=LIB, LOCKSWAP_STATS="full", LOCKSWAP_STATS_FILE=path,
                        LOCKSWAP_STATS_TOP="0")
        subprocess.run([prog], env=env, capture_output=True, timeout=120, check=True)
        doc = json.loads(read(path))
        self.assertEqual(schema_lite.errors(doc, SCHEMA), [])
        p = lockswap("report", path, "--top", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("contend_lock", p.stdout)
        p = lockswap("report", path, "--by", "site")
        self.assertIn("contend_worker", p.stdout)


class BuildIds(unittest.TestCase):
    """elf.build_id, the CLI's ELF note reader (on pyelftools), against
    binutils' readelf -n on the machine's files: the report refuses a
    file whose ID differs from the run's, so a misread ID would cost
    every frame its line (tests/stats names.py runs the whole path)."""

    def readelf(self, path):
        p = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
        found = [line.split(":", 1)[1].strip() for line in p.stdout.splitlines()
                 if "Build ID:" in line]
        return found[0] if found else None

    def test_matches_readelf(self):
        from lockswap_cli import elf
        paths = [LIB, sys.executable, "/bin/sh"]
        paths += [os.path.join(d, f) for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu")
                  for f in ("libc.so.6", "libgcc_s.so.1") if os.path.exists(os.path.join(d, f))]
        checked = 0
        for path in paths:
            want = self.readelf(os.path.realpath(path))
            if want is None:
                continue
            self.assertEqual(elf.build_id(path), want, path)
            checked += 1
        self.assertGreaterEqual(checked, 2)

    def test_from_segments_without_section_headers(self):
        from lockswap_cli import elf
        import struct
        with open(LIB, "rb") as f:
            data = bytearray(f.read())
        struct.pack_into("<Q", data, 40, 0)           # e_shoff: no section header table
        struct.pack_into("<HHH", data, 58, 0, 0, 0)   # e_shentsize, e_shnum, e_shstrndx
        with tempfile.NamedTemporaryFile(suffix=".so") as f:
            f.write(data)
            f.flush()
            self.assertEqual(elf.build_id(f.name), self.readelf(LIB))

    def test_not_elf_or_missing(self):
        from lockswap_cli import elf
        with tempfile.NamedTemporaryFile(suffix=".so") as f:
            f.write(b"\x7fELF not really an ELF file")
            f.flush()
            self.assertIsNone(elf.build_id(f.name))
        self.assertIsNone(elf.build_id(os.path.join(REPO, "README.md")))
        self.assertIsNone(elf.build_id("/nonexistent/libx.so"))


if __name__ == "__main__":
    unittest.main()
