"""scripts/demo-headline.py (the three lines that open the demo's
summary.md) on hand-made ab results and statistics, and the demo's choice
of backends (scripts/demo.sh choose_backends) on the library's own list."""
import json
import os
import subprocess
import tempfile
import unittest

from helpers import REPO, SCRIPT, clean_env

HEADLINE = os.path.join(REPO, "scripts", "demo-headline.py")
DEMO = os.path.join(REPO, "scripts", "demo.sh")


def ab_result(medians, shares, lower=False, failed=(), verdicts=None):
    """An ab .json: medians {label: value} (the first is the baseline), 3
    good rounds each with min_share from shares; the paired verdicts from
    verdicts {label: verdict}, else "faster" above the baseline."""
    labels = list(medians)
    base = medians[labels[0]]
    verdicts = verdicts or {}
    summary = [{"backend": l, "median": m, "ratio": (m / base) if base and m else None}
               for l, m in medians.items()]
    paired = [{"backend": l, "verdict": verdicts.get(l, "faster" if base and m > base
                                                    else "slower")}
              for l, m in list(medians.items())[1:]]
    runs = [{"backend": l, "warmup": False, "status": "exit 3" if l in failed else "ok",
             "value": medians[l], "extras": {"min_share": shares[l]}}
            for l in labels for _ in range(3)]
    return {"metric": {"lower_is_better": lower}, "backends": [{"label": l} for l in labels],
            "summary": summary, "paired": paired, "runs": runs}


def stats_file():
    def mutex(acq, cont, wait, symbol, waiter=None):
        return {"type": "mutex", "name": None, "acquisitions": acq, "contended": cont,
                "wait": {"estimated_total_ns": wait},
                "site": {"symbol": symbol, "object": "/usr/lib/libdb.so.1", "offset": "0x10"},
                "contention": [{"estimated_wait_ns": wait,
                                "waiter_site": {"symbol": None, "object": "/usr/lib/libdb.so.1",
                                                "offset": waiter}}] if waiter else []}
    return {"locks": [mutex(1000, 10, 900, "db::Open(db::Options const&)", "0x3c0"),
                      mutex(50, 1, 100, None),
                      {"type": "condvar"}]}


class Headline(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, doc):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def headline(self, *args):
        p = subprocess.run(["/usr/bin/python3", HEADLINE, *args], capture_output=True, text=True,
                           env=clean_env(), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.splitlines()

    def test_three_lines(self):
        ab = self.write("ab.json", ab_result(
            {"glibc": 100.0, "futex": 200.0, "slice:futex": 180.0, "mcs": 5.0},
            {"glibc": 0.1, "futex": 0.05, "slice:futex": 0.9, "mcs": 1.0}))
        prof = self.write("p.json", stats_file())
        lines = self.headline("--ab", f"Bench={ab}",
                              "--fair", f"Bench={ab}", "--profile", f"DB, 8 threads={prof}")
        self.assertEqual(len(lines), 3, lines)
        self.assertIn("Bench: **futex**, 2.00x glibc (faster)", lines[0])
        # slice:futex is within 20% of futex and far fairer; mcs fairer still but 40x slower
        self.assertIn("**slice:futex**, min_share 0.90 against 0.05 for futex, at 1.80x glibc",
                      lines[1])
        self.assertIn("fairest of all: mcs, 1.00 at 0.05x", lines[1])
        self.assertIn("DB, 8 threads: 11 of 1,050 acquisitions of 2 mutexes contended (1%); "
                      "the mutex first used in db::Open has 90% of the contended wait; its "
                      "waiters mostly wait in libdb.so.1+0x3c0", lines[2])

    def test_a_profile_without_timed_waits(self):
        doc = stats_file()
        for lock in doc["locks"][:2]:
            lock["wait"]["estimated_total_ns"] = 0
            lock["acquisitions"] *= 1000
        lines = self.headline("--profile", f"P={self.write('p.json', doc)}")
        self.assertIn("P: 11 of 1,050,000 acquisitions of 2 mutexes contended (0.001%), so locks "
                      "hardly limit this run; the most contended, 10 times, is the mutex first "
                      "used in db::Open (no contended wait was timed", lines[0])
        for lock in doc["locks"][:2]:
            lock["contended"] = 0
        lines = self.headline("--profile", f"P={self.write('p.json', doc)}")
        self.assertIn("P: none of 1,050,000 acquisitions of 2 mutexes was contended", lines[0])

    def test_the_fastest_may_be_the_fairest(self):
        ab = self.write("ab.json", ab_result({"glibc": 100.0, "futex": 150.0},
                                             {"glibc": 0.5, "futex": 0.8}))
        lines = self.headline("--fair", f"B={ab}")
        self.assertEqual(lines, ["- **Fairest of the fast (within 20% of the fastest, by "
                                 "min_share)**: B: **futex**, the highest median, is also the fairest "
                                 "of them (min_share 0.80)."])

    def test_no_clear_difference_is_not_the_fastest(self):
        """The demo's LevelDB row: futex 1.14x with no clear difference,
        slice:futex 1.11x and faster; the headline names slice:futex."""
        ab = self.write("ab.json", ab_result(
            {"glibc": 100.0, "futex": 114.0, "slice:futex": 111.0},
            {"glibc": 0.9, "futex": 0.9, "slice:futex": 0.9},
            verdicts={"futex": "no clear difference"}))
        line = self.headline("--ab", f"LevelDB={ab}")[0]
        self.assertIn("LevelDB: **slice:futex**, 1.11x glibc (faster); futex's higher 1.14x is "
                      "no clear difference", line)

    def test_none_clearly_faster(self):
        ab = self.write("ab.json", ab_result(
            {"glibc": 100.0, "futex": 104.0, "mcs": 90.0}, {"glibc": 1, "futex": 1, "mcs": 1},
            verdicts={"futex": "no clear difference"}))
        self.assertIn("B: none clearly faster than glibc (highest median: futex, 1.04x, no clear "
                      "difference)", self.headline("--ab", f"B={ab}")[0])

    def test_the_profile_names_the_backend_it_ran_under(self):
        doc = dict(stats_file(), backend="slice:futex")
        line = self.headline("--profile", f"LevelDB, 8 threads={self.write('p.json', doc)}")[0]
        self.assertIn("**Profile**: LevelDB, 8 threads, under slice:futex: 11 of 1,050", line)

    def test_the_baseline_may_be_the_fastest(self):
        ab = self.write("ab.json", ab_result({"glibc": 100.0, "futex": 90.0},
                                             {"glibc": 0.5, "futex": 0.8}))
        self.assertIn("B: **glibc** (the baseline; next futex at 0.90x)",
                      self.headline("--ab", f"B={ab}")[0])

    def test_missing_results_are_said_to_be_missing(self):
        nowhere = os.path.join(self.tmp.name, "none.json")
        no_base = self.write("nb.json", ab_result({"glibc": None, "futex": 90.0},
                                                  {"glibc": 0.5, "futex": 0.8}))
        lines = self.headline("--ab", f"A={nowhere}", "--ab", f"B={no_base}",
                              "--profile", f"P={nowhere}")
        self.assertIn(f"A: {nowhere}: No such file or directory", lines[0])
        self.assertIn("B: no good run of the baseline", lines[0])
        self.assertIn(f"P: {nowhere}: No such file or directory", lines[1])


class DemoCalls(unittest.TestCase):
    """What scripts/demo.sh asks demo-headline.py for."""

    def setUp(self):
        with open(DEMO) as f:
            text = f.read()
        start = text.index("scripts/demo-headline.py")
        self.call = text[start:text.index(">\"$HEADLINE\"", start)]

    def test_the_profile_label_names_no_backend(self):
        """The backend comes from the profile itself (it runs under the
        defaults); a label written in the script went stale once."""
        profile = self.call[self.call.index("--profile"):]
        self.assertNotIn("under", profile)

    def test_fairest_of_the_fast_covers_every_mutexbench_count(self):
        fair = [a for a in self.call.split("--fair")[1:]]
        for t in ("2 threads=$OUT/mutexbench-2t.json", "8 threads=$OUT/mutexbench-8t.json",
                  "32 threads=$OUT/mutexbench-32t.json"):
            self.assertTrue(any(t in a for a in fair), (t, fair))


class DemoChoice(unittest.TestCase):
    def test_slices_are_in_the_default_choice(self):
        """The demo's default backends include slice:futex (the README's
        headline) and stay at seven, as the demo's run time assumes."""
        with open(DEMO) as f:
            text = f.read()
        start = text.index("PREFERRED=")
        body = text[start:text.index("\n}\n", text.index("choose_backends() {")) + 3]
        names = subprocess.run(["/usr/bin/python3", SCRIPT, "list", "--names"],
                               capture_output=True, text=True, env=clean_env(), check=True).stdout
        p = subprocess.run(["bash", "-c", body + '\nMAX_OTHERS=5\nchoose_backends\n'
                            'echo "${CHOSEN[*]}"; echo "${LEFT_OUT[*]}"'],
                           input=names, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        chosen, left = p.stdout.splitlines()
        chosen = chosen.split()
        self.assertEqual(chosen[:3], ["glibc", "futex", "slice:futex"])
        self.assertEqual(len(chosen), 7)
        self.assertEqual(len(set(chosen)), 7)
        every = names.split()
        self.assertEqual(sorted(chosen + left.split()), sorted(every))


if __name__ == "__main__":
    unittest.main()
