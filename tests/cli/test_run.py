"""lockswap run: LD_PRELOAD and LOCKSWAP_* of the program it execs."""
import os
import sys
import unittest

from helpers import LIB, clean_env, lockswap

PRINT_ENV = [sys.executable, "-c",
             "import os\nfor k in sorted(os.environ):\n"
             "    if k.startswith('LOCKSWAP_') or k == 'LD_PRELOAD': print(k + '=' + os.environ[k])"]


def env_of(p):
    return dict(line.split("=", 1) for line in p.stdout.splitlines())


class Run(unittest.TestCase):
    def test_sets_preload_and_variables(self):
        p = lockswap("run", "-b", "futex", "--spin", "7", "--bypass", "3", "--", *PRINT_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        env = env_of(p)
        self.assertEqual(env["LD_PRELOAD"], os.path.realpath(LIB))
        self.assertEqual(env["LOCKSWAP_BACKEND"], "futex")
        self.assertEqual(env["LOCKSWAP_SPIN"], "7")
        self.assertEqual(env["LOCKSWAP_BYPASS"], "3")

    def test_verbose_and_stats_flags(self):
        p = lockswap("run", "--verbose", "--", *PRINT_ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(env_of(p)["LOCKSWAP_VERBOSE"], "on")
        p = lockswap("run", "--stats", "some-mode", "--", *PRINT_ENV)
        if p.returncode == 0:   # the library has LOCKSWAP_STATS and accepts the mode
            self.assertEqual(env_of(p)["LOCKSWAP_STATS"], "some-mode")
        else:
            self.assertEqual(p.returncode, 2)
            self.assertIn("LOCKSWAP_STATS", p.stderr)

    def test_set_and_inherited_variables(self):
        p = lockswap("run", "--set", "spin=9", "--", *PRINT_ENV,
                     env=clean_env(LOCKSWAP_BACKEND="glibc"))
        self.assertEqual(p.returncode, 0, p.stderr)
        env = env_of(p)
        self.assertEqual((env["LOCKSWAP_BACKEND"], env["LOCKSWAP_SPIN"]), ("glibc", "9"))

    def test_flag_wins_over_environment(self):
        p = lockswap("run", "-b", "futex", "--", *PRINT_ENV, env=clean_env(LOCKSWAP_BACKEND="glibc"))
        self.assertEqual(env_of(p)["LOCKSWAP_BACKEND"], "futex")

    def test_keeps_existing_preload_after_the_library(self):
        p = lockswap("run", "-b", "glibc", "--", *PRINT_ENV,
                     env=clean_env(LD_PRELOAD=f"libfoo.so:{LIB}"))
        self.assertEqual(env_of(p)["LD_PRELOAD"], f"{os.path.realpath(LIB)}:libfoo.so")

    def test_exit_status_is_the_programs(self):
        p = lockswap("run", "-b", "glibc", "--", sys.executable, "-c", "raise SystemExit(7)")
        self.assertEqual(p.returncode, 7)

    def test_command_words_pass_through(self):
        p = lockswap("run", "--", "echo", "--spin", "-b", "--")
        self.assertEqual(p.stdout, "--spin -b --\n")


if __name__ == "__main__":
    unittest.main()
