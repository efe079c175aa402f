"""The bench checker (check_output.py) against outputs it must accept and
outputs it must reject.  The good outputs in fixtures/ are real runs
(mutexbench --json --seconds 0.2 --threads 4; leveldb_bench --json
--threads 2 --num 2000 --benchmarks fillseq,readrandom; nativebench --json
--lock bcs --threads 4 --seconds 0.1); each bad one is a good one with one
thing broken, so a check that stopped looking would let it through.

  /usr/bin/python3 -m unittest discover -s tests/bench -p 'test_*.py'
"""
import copy
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_output  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read()


def lines(objs):
    return "".join(json.dumps(o) + "\n" for o in objs)


class Mutex(unittest.TestCase):
    ARGS = ["check_output.py", "mutex", "mutex", "4"]

    def setUp(self):
        self.good = json.loads(fixture("mutex-4.json"))

    def rejects(self, o, words, args=None):
        found = check_output.problem(args or self.ARGS, lines([o]))
        self.assertIsNotNone(found, "accepted a broken output")
        self.assertIn(words, found)

    def test_accepts_a_real_run(self):
        self.assertIsNone(check_output.problem(self.ARGS, fixture("mutex-4.json")))

    def test_rejects_what_is_not_one_json_line(self):
        self.assertIn("invalid JSON", check_output.problem(self.ARGS, "mutexbench threads=4\n"))
        self.assertIn("expected one JSON line",
                      check_output.problem(self.ARGS, lines([self.good, self.good])))

    def test_rejects_a_missing_or_extra_key(self):
        o = copy.deepcopy(self.good)
        del o["jain"]
        self.rejects(o, "keys differ")
        o = copy.deepcopy(self.good)
        o["surprise"] = 1
        self.rejects(o, "keys differ")

    def test_rejects_another_mode_or_thread_count(self):
        self.rejects(self.good, "bench/mode/threads", ["check_output.py", "mutex", "mutex", "3"])
        self.rejects(self.good, "bench/mode/threads", ["check_output.py", "mutex", "trylock", "4"])

    def test_exclusion_must_hold_unless_broken_is_asked_for(self):
        o = copy.deepcopy(self.good)
        o["exclusion_ok"] = False
        self.rejects(o, "exclusion_ok is False")
        self.assertIsNone(check_output.problem(self.ARGS + ["broken"], lines([o])))
        self.rejects(self.good, "exclusion_ok is True", self.ARGS + ["broken"])

    def test_rejects_counts_that_do_not_add_up(self):
        o = copy.deepcopy(self.good)
        o["per_thread_ops"][0] += 1
        self.rejects(o, "per_thread_ops sum")
        o = copy.deepcopy(self.good)
        o["min_share"] = 1.5
        self.rejects(o, "min_share")

    def test_rejects_a_window_outside_the_run(self):
        o = copy.deepcopy(self.good)
        o["window_end_s"] = o["run_seconds"] + 1
        self.rejects(o, "window")

    def test_rejects_unordered_wait_percentiles(self):
        o = copy.deepcopy(self.good)
        o["wait_p50_ns"], o["wait_p99_ns"] = o["wait_p99_ns"] + 1, o["wait_p50_ns"]
        self.rejects(o, "wait percentiles")

    def test_rejects_more_cpu_than_the_threads_have(self):
        o = copy.deepcopy(self.good)
        o["per_thread_cpu_ns"] = [int(o["seconds"] * 2e9)] * 4
        self.rejects(o, "more CPU time")


class LevelDB(unittest.TestCase):
    ARGS = ["check_output.py", "leveldb", "2", "fillseq", "readrandom"]

    def setUp(self):
        self.good = [json.loads(l) for l in fixture("leveldb-2.json").splitlines() if l.strip()]

    def test_accepts_a_real_run(self):
        self.assertIsNone(check_output.problem(self.ARGS, fixture("leveldb-2.json")))

    def test_rejects_other_workloads(self):
        found = check_output.problem(["check_output.py", "leveldb", "2", "fillseq"],
                                     lines(self.good))
        self.assertIn("workloads", found)

    def test_rejects_reads_that_found_more_than_they_read(self):
        objs = copy.deepcopy(self.good)
        objs[1]["found"] = objs[1]["ops"] + 1
        self.assertIn("found", check_output.problem(self.ARGS, lines(objs)))

    def test_rejects_a_fill_that_found_something(self):
        objs = copy.deepcopy(self.good)
        objs[0]["found"] = 0
        self.assertIn("found should be null", check_output.problem(self.ARGS, lines(objs)))


class Native(unittest.TestCase):
    ARGS = ["check_output.py", "native", "bcs", "4"]

    def setUp(self):
        self.good = json.loads(fixture("native-bcs-4.json"))

    def test_accepts_a_real_run(self):
        self.assertIsNone(check_output.problem(self.ARGS, fixture("native-bcs-4.json")))

    def test_rejects_an_overlap(self):
        o = dict(self.good, overlaps=1)
        self.assertIn("exclusion", check_output.problem(self.ARGS, json.dumps(o)))

    def test_rejects_another_lock(self):
        found = check_output.problem(["check_output.py", "native", "pthread", "4"],
                                     fixture("native-bcs-4.json"))
        self.assertIn("lock/threads", found)

    def test_rejects_not_json(self):
        self.assertIn("not JSON", check_output.problem(self.ARGS, "nativebench: 4 threads\n"))


class CommandLine(unittest.TestCase):
    """As run.sh calls it: nothing on a good output, the problem on a bad
    one, and a crash (a value of the wrong type) is output too."""

    def run_checker(self, args, text):
        return subprocess.run([sys.executable, os.path.join(HERE, "check_output.py"), *args],
                              input=text, capture_output=True, text=True)

    def test_prints_nothing_for_good_output(self):
        p = self.run_checker(["native", "bcs", "4"], fixture("native-bcs-4.json"))
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))

    def test_prints_the_problem(self):
        o = dict(json.loads(fixture("native-bcs-4.json")), overlaps=3)
        p = self.run_checker(["native", "bcs", "4"], json.dumps(o))
        self.assertEqual(p.returncode, 0)
        self.assertIn("exclusion", p.stdout)

    def test_a_crash_is_not_silent(self):
        o = dict(json.loads(fixture("native-bcs-4.json")), per_thread_ops="many")
        p = self.run_checker(["native", "bcs", "4"], json.dumps(o))
        self.assertTrue(p.stdout or p.stderr)


if __name__ == "__main__":
    unittest.main()
