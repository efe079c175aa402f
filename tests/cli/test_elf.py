"""lockswap_cli/elf.py, the CLI's one ELF reader: the class and PT_INTERP
of real files, None for what is not ELF or is corrupt, and one clear line
when pyelftools is missing.  (Build IDs against readelf: test_report.py's
BuildIds; static and set-user-ID programs refused: test_first_hour.py.)"""
import os
import subprocess
import sys
import tempfile
import unittest

from helpers import LIB, REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
from lockswap_cli import elf  # noqa: E402


class Facts(unittest.TestCase):
    def test_dynamic_program_and_library(self):
        self.assertEqual(elf.facts("/bin/sh"), (64, True))
        self.assertEqual(elf.facts(LIB)[0], 64)

    def test_the_loader_itself_has_no_interpreter(self):
        loader = "/lib64/ld-linux-x86-64.so.2"
        if not os.path.exists(loader):
            self.skipTest(f"{loader} not here")
        self.assertEqual(elf.facts(loader), (64, False))

    def test_not_elf_corrupt_or_missing(self):
        self.assertIsNone(elf.facts(os.path.join(REPO, "README.md")))
        self.assertIsNone(elf.facts("/nonexistent/prog"))
        with open("/bin/sh", "rb") as f:
            head = f.read(64)
        with tempfile.NamedTemporaryFile() as f:
            f.write(head)  # an ELF header whose program headers are cut off
            f.flush()
            self.assertIsNone(elf.facts(f.name))
            self.assertIsNone(elf.build_id(f.name))

    def test_without_pyelftools_one_line_names_the_package(self):
        code = ("import sys; sys.modules['elftools'] = None; sys.path.insert(0, 'scripts')\n"
                "from lockswap_cli import elf\n"
                "assert elf.facts('README.md') is None  # not ELF: nothing to read\n"
                "try:\n    elf.facts('/bin/sh')\n"
                "except Exception as e:\n    print(type(e).__name__, e)\n")
        p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "ToolError reading ELF files needs pyelftools "
                                            "(Debian package python3-pyelftools)")


if __name__ == "__main__":
    unittest.main()
