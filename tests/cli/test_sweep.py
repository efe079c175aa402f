"""lockswap sweep: grid, substitution, files and plots."""
import csv
import json
import os
import tempfile
import unittest

from helpers import FAKE, clean_env, lockswap


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.log = os.path.join(cls.tmp.name, "log")
        cls.prefix = os.path.join(cls.tmp.name, "sw")
        cls.p = lockswap("sweep", "-q", "-b", "glibc", "-b", "futex", "--threads", "1,4",
                         "--runs", "2", "--json-key", "throughput", "--seed", "5",
                         "--out", cls.prefix, "--", FAKE, "--threads", "{threads}",
                         env=clean_env(FAKE_LOG=cls.log))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_succeeds_and_prints_paths(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)
        for suffix in (".md", ".csv", ".json", "-throughput.png", "-fairness.png"):
            self.assertIn(self.prefix + suffix, self.p.stdout)
            self.assertTrue(os.path.getsize(self.prefix + suffix) > 0, suffix)

    def test_png_files_are_png(self):
        for suffix in ("-throughput.png", "-fairness.png"):
            with open(self.prefix + suffix, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_threads_substituted_and_grouped(self):
        with open(self.log) as f:
            runs = [line.split() for line in f]
        self.assertEqual([r[2] for r in runs], ["1"] * 4 + ["4"] * 4)
        for group in (runs[:4], runs[4:]):
            self.assertEqual(sorted(r[0] for r in group), ["futex", "futex", "glibc", "glibc"])

    def test_csv_and_json(self):
        with open(self.prefix + ".csv") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 8)
        self.assertEqual(list(rows[0])[:2], ["threads", "round"])
        self.assertIn("min_share", rows[0])
        with open(self.prefix + ".json") as f:
            result = json.load(f)
        self.assertEqual(result["threads"], [1, 4])
        cell = {(r["threads"], r["backend"]): r for r in result["summary"]}
        # the fake's value wobbles by up to 1 per thread with its run count
        self.assertAlmostEqual(cell[(4, "glibc")]["median"], 400.0, delta=4)
        self.assertAlmostEqual(cell[(4, "futex")]["ratio"], 2.0, delta=0.03)
        self.assertEqual(cell[(4, "futex")]["verdict"], "faster")

    def test_paired_by_round_per_thread_count(self):
        with open(self.prefix + ".json") as f:
            paired = json.load(f)["paired"]
        self.assertEqual([(r["threads"], r["backend"], r["rounds"]) for r in paired],
                         [(1, "futex", 2), (4, "futex", 2)])
        for r in paired:
            self.assertAlmostEqual(r["ratio"], 2.0, delta=0.03)
            self.assertEqual(r["verdict"], "faster")
        with open(self.prefix + ".md") as f:
            md = f.read()
        self.assertIn("paired by round", md)
        self.assertRegex(md, r"\| 4 \| \d\.\d{3} \[[\d.]+, [\d.]+\] faster \|")

    def test_table(self):
        lines = self.p.stdout.splitlines()
        i = next(i for i, l in enumerate(lines) if l.startswith("median throughput"))
        self.assertEqual(lines[i + 1].split(), ["threads", "glibc", "futex"])
        row = lines[i + 3].split()
        self.assertEqual(row[0], "4")
        self.assertAlmostEqual(float(row[1]), 400, delta=4)
        self.assertAlmostEqual(float(row[2]), 800, delta=4)


class SweepExtraKeys(unittest.TestCase):
    """--extra-key's medians get a table of their own, after the fairness
    key's, on the console and in the .md file."""

    def test_extra_key_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "sw")
            p = lockswap("sweep", "-q", "-b", "glibc", "-b", "futex", "--threads", "2,3",
                         "--runs", "2", "--json-key", "throughput", "--extra-key", "threads",
                         "--out", prefix, "--", FAKE, "--threads", "{threads}", env=clean_env())
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            fair = lines.index("median min_share:")
            i = lines.index("median threads:")
            self.assertGreater(i, fair)
            self.assertEqual(lines[i + 1].split(), ["threads", "glibc", "futex"])
            # the fake prints its thread count as "threads": each cell is it
            self.assertEqual([lines[i + 2].split(), lines[i + 3].split()],
                             [["2", "2", "2"], ["3", "3", "3"]])
            with open(prefix + ".md") as f:
                self.assertIn("median threads:", f.read())


if __name__ == "__main__":
    unittest.main()
