#!/usr/bin/python3
"""Runs the CLI tests (what `python3 -m unittest discover -s tests/cli -v`
runs) and ends with the line `cli: N passed, M failed`."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    suite = unittest.defaultTestLoader.discover(start_dir=HERE, pattern="test_*.py",
                                                top_level_dir=HERE)
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    sys.stdout.flush()
    print(f"cli: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed or result.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
