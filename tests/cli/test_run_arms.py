"""lockswap run --arms / --arm-key: the arm the CLI announces is the arm
the library then runs (read back from the statistics file the program
writes), for a key variable and for the pid; errors are one line."""
import ctypes
import json
import os
import re
import tempfile
import unittest

from helpers import LIB, REPO, CliAssertions, clean_env, lockswap

ARMS = "glibc; futex; name=restricted restrict:futex RESTRICT_ACTIVE=2"
BENCH = os.path.join(REPO, "build", "bench", "mutexbench")
ANNOUNCED = re.compile(r"^lockswap: arm (\S+) \(key (\S+)=(\S+)\)$", re.MULTILINE)


def library_has_arms():
    return hasattr(ctypes.CDLL(LIB), "lockswap_arm_choose")


class Errors(CliAssertions, unittest.TestCase):

    def test_backend_and_arms_exclude_each_other(self):
        self.assertUsageError(lockswap("run", "-b", "futex", "--arms", ARMS, "--", "true"),
                              "-b or --arms")

    @unittest.skipIf(library_has_arms(), "this liblockswap.so has arms support")
    def test_library_without_arms_support_says_so(self):
        self.assertUsageError(lockswap("run", "--arms", ARMS, "--", "true"),
                              "has no arms support")

    @unittest.skipUnless(library_has_arms(), "this liblockswap.so has no arms support")
    def test_bad_list_is_the_library_message(self):
        self.assertUsageError(lockswap("run", "--arms", "glibc; nosuchlock", "--", "true"),
                              "nosuchlock")

    @unittest.skipUnless(library_has_arms(), "this liblockswap.so has no arms support")
    def test_unset_key_variable(self):
        self.assertUsageError(lockswap("run", "--arms", ARMS, "--arm-key", "NO_SUCH_SHARD",
                                       "--", "true"), "NO_SUCH_SHARD is not set")


@unittest.skipUnless(library_has_arms(), "this liblockswap.so has no arms support")
@unittest.skipUnless(os.access(BENCH, os.X_OK), "build/bench/mutexbench is not built")
class AnnouncedArmIsRun(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def run_bench(self, *flags, env=None, arms=ARMS, stats_name="s.json"):
        """(announced (name, key, value), the statistics file's "arm" and pid)."""
        stats = os.path.join(self.tmp.name, stats_name)
        if os.path.exists(stats):
            os.remove(stats)
        p = lockswap("run", "--arms", arms, *flags, "--stats", "summary",
                     "--set", "STATS_TOP=0", "--set", f"STATS_FILE={stats}", "--",
                     BENCH, "--threads", "2", "--seconds", "0.02", env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = ANNOUNCED.search(p.stderr)
        self.assertIsNotNone(m, p.stderr)
        with open(stats) as f:
            doc = json.load(f)
        return m.groups(), doc["arm"], doc["pid"]

    def test_key_variable(self):
        seen = set()
        for shard in range(6):
            (name, key, value), arm, _ = self.run_bench(
                "--arm-key", "SHARD", env=clean_env(SHARD=str(shard)))
            self.assertEqual((key, value), ("SHARD", str(shard)))
            self.assertEqual(name, arm["name"], f"SHARD={shard}")
            self.assertEqual(arm["key_value"], str(shard))
            seen.add(name)
        self.assertGreater(len(seen), 1, "six shards all ran one arm")

    def test_pid_is_the_programs(self):
        (name, key, value), arm, pid = self.run_bench()
        self.assertEqual((key, value), ("pid", str(pid)))
        self.assertEqual(name, arm["name"])

    def test_bare_wrapper_is_named_with_its_inner_lock(self):
        """"capacitor" in a list runs capacitor:tts: the announcement, the
        statistics file and report --by-arm all say so."""
        names = set()
        for shard in range(8):
            (name, _, _), arm, _ = self.run_bench("--arm-key", "SHARD",
                                                  env=clean_env(SHARD=str(shard)),
                                                  arms="capacitor; restrict",
                                                  stats_name=f"s{shard}.json")
            self.assertEqual(name, arm["name"])
            names.add(name)
        self.assertEqual(names, {"capacitor:tts", "restrict:mcs"})
        files = [os.path.join(self.tmp.name, f"s{shard}.json") for shard in range(8)]
        p = lockswap("report", "--by-arm", *files)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("capacitor:tts", p.stdout)
        self.assertNotRegex(p.stdout, r"\b(capacitor|restrict)\b(?!:)")


if __name__ == "__main__":
    unittest.main()
