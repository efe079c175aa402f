"""lockswap list: what the library describes, nothing kept in the CLI."""
import json
import unittest

from helpers import describe, lockswap


class List(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.desc = describe()

    def test_every_backend_and_option(self):
        p = lockswap("list")
        self.assertEqual(p.returncode, 0, p.stderr)
        for b in self.desc["backends"]:
            self.assertIn(b["name"], p.stdout)
        for o in self.desc["options"]:
            self.assertIn(o["name"], p.stdout)
        self.assertIn(self.desc["version"], p.stdout)

    def test_help_env_is_list(self):
        self.assertEqual(lockswap("--help-env").stdout, lockswap("list").stdout)

    def test_json_is_the_library_text(self):
        p = lockswap("list", "--json")
        self.assertEqual(json.loads(p.stdout), self.desc)
        self.assertEqual(len(p.stdout.strip().splitlines()), 1)

    def test_names(self):
        p = lockswap("list", "--names")
        self.assertEqual(p.stdout.split(), [b["name"] for b in self.desc["backends"]])

    def test_describe_matches_the_library(self):
        from lockswap_cli.library import Library
        from helpers import LIB
        self.assertEqual(Library(LIB).describe(), self.desc)


if __name__ == "__main__":
    unittest.main()
