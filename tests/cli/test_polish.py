"""Issue 47's CLI polish: `lockswap list` marks the defaults, `-b default`
and `-r default` run them, a misspelt word gets a "did you mean" (choice,
boolean and number-or-word options; --json-key), errors name the flag the
user typed, and an option that takes a word beside its numbers says so in
its kind column.  Every expectation is read from the library's own
description, never a fixed list."""
import os
import re
import sys
import tempfile
import unittest

from helpers import FAKE, CliAssertions, clean_env, describe, lockswap


def option(desc, name):
    return next(o for o in desc["options"] if o["name"] == name)


class List(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.desc = describe()
        cls.text = lockswap("list").stdout

    def test_the_defaults_are_marked(self):
        for var, section in (("LOCKSWAP_BACKEND", "Backends"),
                             ("LOCKSWAP_RWLOCK", "Rwlock backends")):
            default = option(self.desc, var)["default"]
            part = self.text.split(f"\n{section} (", 1)[1].split("\n\n", 1)[0]
            marked = [l.split()[0] for l in part.splitlines() if "(default)" in l]
            self.assertEqual(marked, [default], part)
            self.assertIn(f" -{'b' if var.endswith('BACKEND') else 'r'} default ",
                          part.splitlines()[0])

    def test_a_number_option_that_takes_a_word_says_so(self):
        for o in self.desc["options"]:
            if o["kind"] != "uint":
                continue
            row = next(l for l in self.text.splitlines() if l.startswith(f"  {o['name']} "))
            kind = row.split()[1]
            self.assertEqual(kind, f"{o['choices']}|uint" if o["choices"] else "uint", row)


class DefaultBackend(CliAssertions, unittest.TestCase):
    ECHO = [sys.executable, "-c", "import os; print(os.environ.get('LOCKSWAP_BACKEND'), "
            "os.environ.get('LOCKSWAP_RWLOCK'))"]

    def test_run_b_default(self):
        desc = describe()
        p = lockswap("run", "-b", "default", "-r", "default", "--", *self.ECHO)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), [option(desc, "LOCKSWAP_BACKEND")["default"],
                                            option(desc, "LOCKSWAP_RWLOCK")["default"]])

    def test_ab_b_default_is_labelled_with_what_runs(self):
        default = option(describe(), "LOCKSWAP_BACKEND")["default"]
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "log")
            p = lockswap("ab", "-b", "glibc", "-b", "default,SPIN=3", "--json-key", "throughput",
                         "--runs", "1", "--warmup", "0", "-q", "--", FAKE,
                         env=clean_env(FAKE_LOG=log))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(f"{default},SPIN=3", p.stdout)
            with open(log) as f:
                self.assertEqual(sorted(l.split()[0] for l in f), sorted(["glibc", default]))

    def test_default_twice_is_the_same_backend_twice(self):
        default = option(describe(), "LOCKSWAP_BACKEND")["default"]
        self.assertUsageError(lockswap("ab", "-b", "default", "-b", default, "--", FAKE),
                              f"backend given twice: {default}")


class Suggestions(CliAssertions, unittest.TestCase):
    def test_stats_typo(self):
        self.assertUsageError(lockswap("run", "--stats", "sumary", "--", "true"),
                              "--stats sumary (LOCKSWAP_STATS): ", "did you mean summary?")

    def test_every_choice_and_boolean_option_suggests(self):
        """A word one letter off each accepted word of every choice and
        boolean option gets that word back."""
        for o in describe()["options"]:
            words = (o["choices"].split("|") if o["kind"] == "choice" else
                     ["true", "false"] if o["kind"] == "bool" else [])
            for word in words:
                if len(word) < 4:
                    continue
                typo = word[:-1]
                line = self.assertUsageError(
                    lockswap("run", "--set", f"{o['name']}={typo}", "--", "true"))
                self.assertIn(f"did you mean {word}?", line)

    def test_number_or_word(self):
        self.assertUsageError(lockswap("run", "--set", "SPIN=adaptve", "--", "true"),
                              "did you mean adaptive?")

    def test_nothing_close_gets_no_suggestion(self):
        line = self.assertUsageError(lockswap("run", "--stats", "zzzzzz", "--", "true"))
        self.assertNotIn("did you mean", line)

    def test_json_key_typo(self):
        p = lockswap("ab", "-b", "glibc", "-b", "futex", "--json-key", "thruput", "--runs", "1",
                     "--warmup", "0", "-q", "--", FAKE)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("--json-key thruput: not in the output", p.stderr)
        self.assertIn("did you mean throughput?", p.stderr)

    def test_json_key_typo_in_a_nested_key(self):
        from lockswap_cli.campaign import nearest_key
        self.assertEqual(nearest_key("thruput", ["bench", "stats.throughput"]),
                         "stats.throughput")
        self.assertIsNone(nearest_key("zzz", ["bench", "stats.throughput"]))


class FlagNames(CliAssertions, unittest.TestCase):
    """A bad value is reported by the flag that gave it."""

    def test_each_way_of_giving_a_value(self):
        cases = [(("--spin", "fast"), "--spin fast (LOCKSWAP_SPIN): must be a whole number"),
                 (("--bypass", "0"), "--bypass 0 (LOCKSWAP_BYPASS): must be"),
                 (("-b", "futx"), "-b futx (LOCKSWAP_BACKEND): unknown backend"),
                 (("-r", "nosuch"), "-r nosuch (LOCKSWAP_RWLOCK): not one of"),
                 (("--set", "spin=fast"), "--set spin=fast (LOCKSWAP_SPIN): must be"),
                 (("--set", "SPNI=3"), "--set SPNI=3 (LOCKSWAP_SPNI): unknown variable")]
        for flags, want in cases:
            line = self.assertUsageError(lockswap("run", *flags, "--", "true"), want)
            self.assertNotRegex(line, r"LOCKSWAP_[A-Z_]+='", line)

    def test_a_value_with_spaces_is_quoted_as_typed(self):
        self.assertUsageError(lockswap("run", "--spin", "a b", "--", "true"),
                              "--spin 'a b' (LOCKSWAP_SPIN)")

    def test_an_ab_variant(self):
        self.assertUsageError(lockswap("ab", "-b", "glibc", "-b", "futex,SPIN=fast", "--", FAKE),
                              "-b futex,SPIN=fast (LOCKSWAP_SPIN): must be")

    def test_inherited_keeps_the_variable(self):
        line = self.assertUsageError(lockswap("run", "--", "true",
                                              env=clean_env(LOCKSWAP_SPIN="fast")))
        self.assertTrue(re.search(r"LOCKSWAP_SPIN='fast': .*\(inherited from the environment\)$",
                                  line), line)


if __name__ == "__main__":
    unittest.main()
