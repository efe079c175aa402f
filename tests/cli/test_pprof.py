"""lockswap report --pprof: the profile decoded back by an independent
reader (pprof_decode.py) must hold the file's contended waits - totals,
stacks, names, labels, mappings - and, where Debian's golang-go is
installed, `go tool pprof -top` must read it."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import LIB, REPO, CliAssertions, clean_env, lockswap
import pprof_decode
from test_report import profile, read

sys.path.insert(0, os.path.join(REPO, "tests", "stats"))
import names  # noqa: E402  (the readable-names test's program and its expectations)

GO = shutil.which("go")


def leaf(prof, sample):
    return prof["locations"][sample["locations"][0]]["lines"][0][0]


def stack(prof, sample):
    return [prof["locations"][i]["lines"][0][0] for i in sample["locations"]]


def total(prof, kind):
    k = [t[0] for t in prof["sample_types"]].index(kind)
    return sum(s["values"][k] for s in prof["samples"])


def said(out, prof):
    """The one line `report --pprof` prints, from the decoded profile: its
    samples and locations, how many are named and how many have file:line."""
    locs = prof["locations"].values()
    named = sum(any(not name.startswith("??") for name, _, _ in loc["lines"]) for loc in locs)
    lined = sum(any(line for _, _, line in loc["lines"]) for loc in locs)
    many = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"
    return (f"wrote {out}: {many(len(prof['samples']), 'sample')}, "
            f"{many(len(prof['locations']), 'location')}: {named} named, {lined} with file:line "
            f"(view: go tool pprof -top {out}, or -list FUNCTION for the source lines)\n")


class Pprof(CliAssertions, unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def export(self, doc, *flags):
        src = os.path.join(self.tmp.name, "p.json")
        with open(src, "w") as f:
            json.dump(doc, f)
        out = os.path.join(self.tmp.name, "p.pb.gz")
        p = lockswap("report", src, "--pprof", out, *flags)
        self.assertEqual(p.returncode, 0, p.stderr)
        prof = pprof_decode.decode(out)
        self.assertEqual(p.stdout, said(out, prof))  # the file and what it holds, not the report
        return prof, out

    def test_shape_and_totals(self):
        prof, _ = self.export(profile())
        self.assertEqual(prof["strings"][0], "")
        self.assertEqual(prof["sample_types"], [("contentions", "count"),
                                                ("delay", "nanoseconds")])
        self.assertEqual(prof["default_type"], "delay")
        self.assertEqual(prof["period_type"], ("contentions", "count"))
        self.assertEqual(prof["duration"], 2_000_000_000)
        # The JSON: big_lock's two events, 30 + 10 waits, 3 + 1 ms.
        self.assertEqual(total(prof, "contentions"), 40)
        self.assertEqual(total(prof, "delay"), 4_000_000)
        stacks = sorted(stack(prof, s) for s in prof["samples"])
        self.assertEqual(stacks, [["hot_path", "main"], ["other_path", "main"]])
        self.assertEqual({s["labels"]["lock"] for s in prof["samples"]}, {"big_lock"})
        self.assertEqual({s["labels"]["lock_id"] for s in prof["samples"]}, {1})
        self.assertEqual([m["file"] for m in prof["mappings"].values()], ["/bin/prog"])
        m = prof["mappings"][1]
        self.assertEqual((m["start"], m["limit"], m["has_functions"]), (0x1000, 0x2000, True))
        for loc in prof["locations"].values():
            self.assertTrue(m["start"] <= loc["address"] < m["limit"])

    def test_mappings_from_the_loaders_lines(self):
        from lockswap_cli import pprof
        maps = ["5622e797c000-5622e7980000 r--p 00000000 fe:00 5 /srv/prog",
                "5622e7984000-5622e7986000 r--p 00000000 fe:00 5 /srv/prog",
                "5622e7986000-5622e7987000 r-xp 00002000 fe:00 5 /srv/prog",
                "5622e7987000-5622e7989000 r--p 00003000 fe:00 5 /srv/prog",
                "5622e7989000-5622e798a000 rw-p 00004000 fe:00 5 /srv/prog",
                "5622e798a000-5622e798b000 rw-p 00000000 00:00 0 [heap]",
                "7fe216dc1000-7fe216f98000 r--p 00000000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7fe216f98000-7fe216fbe000 r--p 00000000 fe:00 5 /srv/prog",
                "7fe230ffe000-7fe231024000 r--p 00000000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7fe231024000-7fe23117a000 r-xp 00026000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7fe23117a000-7fe2311cd000 r--p 0017c000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7fe2311cd000-7fe2311d1000 r--p 001cf000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6",
                "7fe2311d1000-7fe2311d3000 rw-p 001d3000 fe:00 7 /usr/lib/x86_64-linux-gnu/libc.so.6"]
        got = pprof.parse_maps(maps)
        # The loader's runs, not the read-only copies a dump maps (stats/symbols.c),
        # also where a copy lies just below them.
        self.assertEqual(got["/srv/prog"], (0x5622e7984000, 0x5622e798a000, 0))
        libc = (0x7fe230ffe000, 0x7fe2311d3000, 0)
        self.assertEqual(got["/usr/lib/x86_64-linux-gnu/libc.so.6"], libc)
        # The loader names libc by its /lib path: found by its file name.
        self.assertEqual(pprof.find_mapping(got, "/lib/x86_64-linux-gnu/libc.so.6"), libc)
        self.assertEqual(pprof.find_mapping(got, "/lib/libnone.so"), (0, 0, 0))

    def test_summary_mode_scales_to_the_estimated_totals(self):
        doc = profile()
        doc["mode"], doc["sample"] = "summary", 16
        lock = doc["locks"][0]
        lock["wait"]["sampled_total_ns"] = 4_000_000   # 1 in 16 timed: scaled x4 here
        lock["wait"]["estimated_total_ns"] = 16_000_000
        prof, _ = self.export(doc)
        self.assertEqual(total(prof, "delay"), lock["wait"]["estimated_total_ns"])
        self.assertEqual(total(prof, "contentions"), 160)
        self.assertEqual(prof["period"], 16)

    def test_holders(self):
        doc = profile()
        doc["locks"][0]["contention"][1]["holder_site"]["addr"] = hex(0x1320)
        prof, _ = self.export(doc, "--holders")
        stacks = sorted(stack(prof, s) for s in prof["samples"])
        # event 2 has no holder stack: its holder site stands alone
        self.assertEqual(stacks, [["holder_fn"], ["slow_path", "main"]])

    def test_unknown_frames_are_named_as_unknown(self):
        doc = profile()
        doc["stacks"][0]["frames"][0]["symbol"] = None
        prof, _ = self.export(doc)
        self.assertIn("?? (prog+0x200)", {leaf(prof, s) for s in prof["samples"]})

    def test_errors(self):
        src = os.path.join(self.tmp.name, "p.json")
        with open(src, "w") as f:
            json.dump(profile(), f)
        p = lockswap("report", src, "--pprof", "/nonexistent-dir/x.pb.gz")
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot write /nonexistent-dir/x.pb.gz", p.stderr)
        p = lockswap("report", src, "--holders")
        self.assertEqual(p.returncode, 2)

    def real_profile(self):
        prog = os.path.join(REPO, "build", "stats", "stats_names")
        stripped = os.path.join(REPO, "build", "stats", "libstripped.so")
        if not (os.path.exists(prog) and os.path.exists(stripped)):
            self.skipTest("build/stats/stats_names not built")
        path = os.path.join(self.tmp.name, "real.json")
        env = clean_env(LD_PRELOAD=LIB, LOCKSWAP_STATS="full", LOCKSWAP_STATS_FILE=path,
                        LOCKSWAP_STATS_TOP="0")
        subprocess.run([prog, "4", "20000", stripped], env=env, capture_output=True,
                       timeout=120, check=True)
        doc = json.loads(read(path))
        out = os.path.join(self.tmp.name, "real.pb.gz")
        p = lockswap("report", path, "--pprof", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, said(out, pprof_decode.decode(out)))
        return doc, out

    def test_real_profile(self):
        doc, out = self.real_profile()
        prof = pprof_decode.decode(out)
        self.assertRegex(said(out, prof), r": [1-9][0-9]* named, [1-9][0-9]* with file:line")
        events = [e for lock in doc["locks"] for e in lock["contention"]]
        self.assertEqual(total(prof, "delay"), sum(e["estimated_wait_ns"] for e in events))
        self.assertEqual(total(prof, "contentions"), sum(e["count"] for e in events))
        lines = {ln for loc in prof["locations"].values() for ln in loc["lines"]}
        want = (names.FULL, os.path.join(REPO, "tests", "stats", "progs", "stats_names.cc"),
                names.site_line(REPO))
        self.assertIn(want, lines)  # stats_names makes one contended wait certain
        funcs = {f["name"] for f in prof["functions"].values()}
        self.assertFalse(funcs & set(names.WRONG), funcs)
        self.assertFalse([f for f in funcs if f.startswith("_Z")])
        self.assertEqual(prof["mappings"][1]["file"], doc["program"])
        ids = {o["path"]: o["build_id"] for o in doc["objects"]}
        self.assertRegex(ids["/proc/self/exe"], "^[0-9a-f]{16,}$")
        self.assertEqual(prof["mappings"][1]["build_id"], ids["/proc/self/exe"])

    def test_go_tool_pprof_reads_it(self):
        if not GO:
            self.skipTest("skipped: go not installed (Debian golang-go; scripts/install-deps.sh)")
        doc, out = self.real_profile()
        p = subprocess.run([GO, "tool", "pprof", "-top", out], capture_output=True, text=True,
                           timeout=120, env=dict(clean_env(), HOME=self.tmp.name))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Type: delay", p.stdout)
        self.assertIn("shop::cart::Basket::add", p.stdout)
        if any((lk["site"]["object"] or "").endswith("/libstripped.so") and lk["contention"]
               for lk in doc["locks"]):  # its waits are left to the scheduler
            self.assertIn("?? (libstripped.so+0x", p.stdout)
        for w in names.WRONG:
            self.assertNotIn(w, p.stdout)
        p = subprocess.run([GO, "tool", "pprof", "-raw", out], capture_output=True, text=True,
                           timeout=120, env=dict(clean_env(), HOME=self.tmp.name))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("contentions/count delay/nanoseconds", p.stdout)


if __name__ == "__main__":
    unittest.main()
