"""checks.py - the ok/FAIL lines of the Python test groups (stats, arms):
report() prints one and counts it; summary() is the group's last line."""
import sys

passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {what}")
    else:
        failed += 1
        print(f"FAIL - {what}: {detail}")
    sys.stdout.flush()
    return ok


def summary(group):
    """`GROUP: N passed, M failed`; the exit status (0 only with no failure
    and at least one pass)."""
    print(f"{group}: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0
