"""Shared by the CLI tests: paths, running the command, the library's own
description (the tests compare against it, never against a fixed list)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "scripts", "lockswap")
FAKE = os.path.join(HERE, "fake_bench.py")
LIB = os.path.join(REPO, "liblockswap.so")

sys.path.insert(0, os.path.join(REPO, "scripts"))


def clean_env(**extra):
    """The test's environment without LOCKSWAP_* or FAKE_* variables."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LOCKSWAP_", "FAKE_"))}
    env.pop("LD_PRELOAD", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def lockswap(*args, env=None, timeout=120):
    """Run scripts/lockswap; returns the CompletedProcess (text)."""
    return subprocess.run([SCRIPT, *args], env=env or clean_env(), capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def describe():
    """The library's JSON, asked the way the CLI asks it (lockswap list --json)."""
    p = lockswap("list", "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


class CliAssertions:
    """Mixin for unittest.TestCase: the shape of a usage error."""

    def assertUsageError(self, p, *fragments):
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("lockswap: "), lines[0])
        self.assertNotIn("Traceback", p.stderr)
        for f in fragments:
            self.assertIn(f, lines[0])
        return lines[0]
