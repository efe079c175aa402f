"""An installed copy (<prefix>/bin/lockswap, <prefix>/share/lockswap/
lockswap_cli/, <prefix>/lib/liblockswap.so, as `make install` lays them
out) finds its package and its library; a copy without a library says to
run make."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

from helpers import LIB, REPO, SCRIPT, clean_env


def install(prefix, with_lib=True):
    os.makedirs(os.path.join(prefix, "bin"))
    os.makedirs(os.path.join(prefix, "lib"))
    pkg = os.path.join(prefix, "share", "lockswap", "lockswap_cli")
    os.makedirs(pkg)
    shutil.copy2(SCRIPT, os.path.join(prefix, "bin"))
    for f in glob.glob(os.path.join(REPO, "scripts", "lockswap_cli", "*.py")):
        shutil.copy2(f, pkg)
    if with_lib:
        shutil.copy2(LIB, os.path.join(prefix, "lib"))
    return os.path.join(prefix, "bin", "lockswap")


def run(script, *args):
    return subprocess.run([script, *args], capture_output=True, text=True, env=clean_env(),
                          cwd="/", timeout=60)


class Installed(unittest.TestCase):
    def test_finds_package_and_library(self):
        with tempfile.TemporaryDirectory() as d:
            script = install(os.path.join(d, "usr"))
            p = run(script, "list")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(os.path.join(d, "usr", "lib", "liblockswap.so"), p.stdout)
            p = run(script, "run", "--", "printenv", "LD_PRELOAD")
            self.assertEqual(p.stdout.strip(), os.path.join(d, "usr", "lib", "liblockswap.so"))

    def test_versions_agree(self):
        """`make install`'s lockswap.pc, the library and `lockswap --version`
        carry one version (interpose/version.h)."""
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run(["make", "-s", "-C", REPO, "install", f"DESTDIR={d}",
                                "PREFIX=/usr"], capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(d, "usr", "lib", "pkgconfig", "lockswap.pc")) as f:
                pc = dict(line.split(": ", 1) for line in f.read().splitlines() if ": " in line)
            script = os.path.join(d, "usr", "bin", "lockswap")
            p = run(script, "--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        # One version: the CLI prints its own alone only when the library's is the same.
        self.assertEqual(p.stdout.strip(), f"lockswap {pc['Version']}")
        self.assertRegex(pc["Version"], r"^[0-9]+\.[0-9]+\.[0-9]+$")

    def test_without_library_says_to_run_make(self):
        with tempfile.TemporaryDirectory() as d:
            script = install(os.path.join(d, "usr"), with_lib=False)
            p = run(script, "list")
            self.assertEqual(p.returncode, 2)
            self.assertIn("make", p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
