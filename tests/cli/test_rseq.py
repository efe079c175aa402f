"""The ces backend refuses to start while glibc registers rseq areas; run,
ab and sweep turn registration off for it (GLIBC_TUNABLES), keeping the
user's other tunables, and for every arm of a comparison that runs ces."""
import os
import types
import unittest
from unittest import mock

from helpers import REPO, clean_env, lockswap
from lockswap_cli import campaign

SHOW = ["sh", "-c", "echo \"$LOCKSWAP_BACKEND $GLIBC_TUNABLES\""]


class RseqOff(unittest.TestCase):
    def test_run_ces_adds_the_tunable_and_keeps_the_users(self):
        env = clean_env(GLIBC_TUNABLES="glibc.malloc.check=0:glibc.pthread.rseq=1")
        p = lockswap("run", "-b", "ces", "--", *SHOW, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "ces glibc.pthread.rseq=0:glibc.malloc.check=0")

    def test_run_arms_with_ces(self):
        served = set()
        for key in range(1, 9):  # the arm follows a hash of the key: try a few
            env = clean_env(GLIBC_TUNABLES="", FOO=str(key))
            p = lockswap("run", "--arms", "futex; ces", "--arm-key", "FOO", "--",
                         os.path.join(REPO, "build/preload/kinds"), env=env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertNotIn("cannot run here", p.stderr)
            served |= {b for b in ("futex", "ces") if f"(backend {b})" in p.stdout}
        self.assertEqual(served, {"futex", "ces"})

    def test_run_other_backend_leaves_tunables_alone(self):
        env = clean_env(GLIBC_TUNABLES="glibc.malloc.check=0")
        p = lockswap("run", "-b", "futex", "--", *SHOW, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "futex glibc.malloc.check=0")

    def test_which_settings_run_ces(self):
        from lockswap_cli.settings import needs_rseq_off
        runs = [{"LOCKSWAP_BACKEND": "ces"},
                {"LOCKSWAP_ARMS": "glibc; ces"},
                {"LOCKSWAP_ARMS": "futex; name=d ces weight=2"}]
        others = [{"LOCKSWAP_BACKEND": "futex"}, {},
                  {"LOCKSWAP_ARMS": "glibc; capacitor:futex BYPASS=8; name=ces futex"}]
        for values in runs:
            self.assertTrue(needs_rseq_off(values), values)
        for values in others:
            self.assertFalse(needs_rseq_off(values), values)

    def test_the_program_is_served_by_ces(self):
        env = clean_env(GLIBC_TUNABLES="")
        p = lockswap("run", "-b", "ces", "--", os.path.join(REPO, "build/preload/kinds"), env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("(backend ces)", p.stdout)
        self.assertNotIn("cannot run here", p.stderr)

    def test_every_arm_of_a_comparison_with_ces_runs_without_rseq(self):
        arm = lambda name: types.SimpleNamespace(label=name, lib_path=None, unloaded=False,
                                                 values={"LOCKSWAP_BACKEND": name})
        # make check runs every group with rseq off: start from a clean slate.
        clean = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
        with mock.patch.dict(os.environ, clean, clear=True):
            self.check_arms(arm)

    def check_arms(self, arm):
        envs = campaign.environments("/lib.so", [arm("glibc"), arm("futex"), arm("ces")])
        for label, env in envs.items():
            self.assertTrue(env["GLIBC_TUNABLES"].startswith("glibc.pthread.rseq=0"), label)
        envs = campaign.environments("/lib.so", [arm("glibc"), arm("futex")])
        for label, env in envs.items():
            self.assertNotIn("rseq", env.get("GLIBC_TUNABLES", ""), label)

if __name__ == "__main__":
    unittest.main()
