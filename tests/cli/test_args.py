"""Usage errors: caught before anything runs, one line, exit 2."""
import os
import tempfile
import unittest

from helpers import FAKE, CliAssertions, clean_env, describe, lockswap


class UsageErrors(CliAssertions, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.backends = [b["name"] for b in describe()["backends"]]

    def test_unknown_backend_lists_the_accepted_ones(self):
        for argv in (["run", "-b", "fuetx", "--", "true"],
                     ["ab", "-b", "glibc", "-b", "fuetx", "--", "true"],
                     ["sweep", "-b", "fuetx", "--threads", "1", "--", "echo", "{threads}"]):
            with self.subTest(argv=argv):
                line = self.assertUsageError(lockswap(*argv), "fuetx")
                for name in self.backends:
                    if ":" not in name:
                        self.assertIn(name, line)

    def test_bad_spin(self):
        self.assertUsageError(lockswap("run", "--spin", "abc", "--", "true"),
                              "LOCKSWAP_SPIN", "abc")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--spin", "-1",
                                       "--", "true"), "LOCKSWAP_SPIN")

    def test_bad_value_in_a_variant(self):
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex,SPIN=x", "--", "true"),
                              "LOCKSWAP_SPIN")

    def test_unknown_variable_names_the_known_ones(self):
        line = self.assertUsageError(lockswap("run", "--set", "NOSUCH=1", "--", "true"),
                                     "LOCKSWAP_NOSUCH")
        for opt in describe()["options"]:
            self.assertIn(opt["name"], line)

    def test_inherited_bad_variable_is_caught(self):
        p = lockswap("run", "--", "true", env=clean_env(LOCKSWAP_SPIN="many"))
        self.assertUsageError(p, "LOCKSWAP_SPIN", "environment")

    def test_missing_command(self):
        self.assertUsageError(lockswap("run", "-b", "futex"), "no command")
        self.assertUsageError(lockswap("run", "-b", "futex", "--"), "no command")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--"), "no command")

    def test_command_not_found(self):
        self.assertUsageError(lockswap("run", "--", "/no/such/program"), "/no/such/program")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--",
                                       "no-such-program-xyz"), "no-such-program-xyz")

    def test_nothing_runs_after_a_usage_error(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log")
            p = lockswap("ab", "-b", "glibc", "-b", "fuetx", "--json-key", "throughput", "--",
                         FAKE, env=clean_env(FAKE_LOG=log))
            self.assertUsageError(p)
            self.assertFalse(os.path.exists(log))

    def test_ab_needs_two_distinct_backends(self):
        self.assertUsageError(lockswap("ab", "-b", "glibc", "--", "true"), "at least 2")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "glibc", "--", "true"), "twice")

    def test_bad_numbers_and_flags(self):
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--runs", "0",
                                       "--", "true"), "--runs")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--metric", "(",
                                       "--", "true"), "--metric")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--metric", "x",
                                       "--json-key", "y", "--", "true"))
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--set", "SPIN",
                                       "--", "true"), "NAME=VALUE")
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex", "--set",
                                       "BACKEND=futex", "--", "true"), "-b")
        self.assertUsageError(lockswap("sweep", "-b", "glibc", "--threads", "0", "--", "x"),
                              "--threads", "counts start at 1")
        self.assertUsageError(lockswap("sweep", "-b", "glibc", "--threads", "x", "--", "x"),
                              "--threads", "expected thread counts")
        self.assertUsageError(lockswap("sweep", "-b", "glibc", "--threads", "1,2", "--", "true"),
                              "{threads}")
        self.assertUsageError(lockswap("frobnicate"))
        self.assertUsageError(lockswap())
        self.assertUsageError(lockswap("list", "--", "true"), "takes no command")

    def test_missing_library(self):
        self.assertUsageError(lockswap("--lib", "/no/such/liblockswap.so", "list"), "--lib")

    def test_help_and_version(self):
        for argv in (["--help"], ["run", "--help"], ["ab", "--help"], ["sweep", "--help"],
                     ["list", "--help"]):
            with self.subTest(argv=argv):
                p = lockswap(*argv)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("usage: lockswap", p.stdout)
        p = lockswap("--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), f"lockswap {describe()['version']}")


if __name__ == "__main__":
    unittest.main()
