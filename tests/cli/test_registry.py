"""The subcommand registry and the splitting of lockswap's words from the
command's."""
import importlib
import unittest

import helpers  # noqa: F401
import lockswap_cli
from lockswap_cli import main


class Registry(unittest.TestCase):
    def test_every_module_has_the_protocol(self):
        for name in lockswap_cli.SUBCOMMANDS:
            mod = importlib.import_module(f"lockswap_cli.{name}")
            with self.subTest(name=name):
                self.assertIsInstance(mod.SUMMARY, str)
                self.assertTrue(callable(mod.add_arguments))
                self.assertTrue(callable(mod.main))

    def test_help_lists_every_subcommand(self):
        p = helpers.lockswap("--help")
        for name in lockswap_cli.SUBCOMMANDS:
            self.assertIn(name, p.stdout)


class Split(unittest.TestCase):
    names = set(lockswap_cli.SUBCOMMANDS)

    def test_double_dash(self):
        head, cmd = main.split_command(["ab", "-b", "x", "--", "prog", "--", "-b"], self.names)
        self.assertEqual((head, cmd), (["ab", "-b", "x"], ["prog", "--", "-b"]))

    def test_help_env_alias(self):
        self.assertEqual(main.split_command(["--help-env"], self.names), (["list"], None))
        self.assertEqual(main.split_command(["--lib", "l", "--help-env", "--json"], self.names),
                         (["--lib", "l", "list", "--json"], None))

    def test_command_without_double_dash(self):
        args, _ = main.parse(["run", "-b", "futex", "echo", "-b", "hi"])
        self.assertEqual(args.command, ["echo", "-b", "hi"])
        self.assertEqual(args.backend, "futex")


if __name__ == "__main__":
    unittest.main()
