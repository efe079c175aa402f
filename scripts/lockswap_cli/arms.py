"""Arms in `lockswap run`: the --arms and --arm-key flags, and the line that
tells which arm the program will run.

With LOCKSWAP_ARMS the library itself picks one arm per process from a
stable hash of a key (docs/arms.md).  `lockswap run` replaces itself with
the program (exec), so the program keeps the CLI's pid: asking the
library's own lockswap_arm_choose with that pid, or with the key
variable's value in the program's environment, names the arm the program
will pick, before it starts.
"""
import os
import sys

from .errors import UsageError
from .library import PREFIX

ARMS = PREFIX + "ARMS"
ARM_KEY = PREFIX + "ARM_KEY"


def add_arguments(parser):
    g = parser.add_argument_group(
        "arms (fleet experiments, docs/fleet.md)",
        "Each process picks one arm of a list from a stable hash of a key.")
    g.add_argument("--arms", metavar="SPEC",
                   help='LOCKSWAP_ARMS, e.g. "glibc; futex; name=r restrict:futex '
                        'RESTRICT_ACTIVE=4"; arms name their own backend, so no -b')
    g.add_argument("--arm-key", metavar="KEY",
                   help="LOCKSWAP_ARM_KEY: pid (default), random, or the name of an "
                        "environment variable holding the key")


def add_settings(args, wanted):
    """Put the flags into wanted ({VAR: (value, origin)}, settings.py's shape)."""
    if args.arms is not None:
        if args.backend is not None:
            raise UsageError("give -b or --arms, not both: each arm names its backend")
        wanted[ARMS] = (args.arms, f"--arms {args.arms}")
    if args.arm_key is not None:
        wanted[ARM_KEY] = (args.arm_key, f"--arm-key {args.arm_key}")


def require_support(lib, wanted):
    """Before the library is asked to check LOCKSWAP_ARMS (an unknown
    variable to an old library), say plainly what is missing."""
    if ARMS in wanted or ARM_KEY in wanted:
        lib.require_arms()


def announcement(lib, values, env, pid):
    """The stderr line naming the program's arm, or None without arms."""
    arms = values.get(ARMS)
    if not arms:
        return None
    key = values.get(ARM_KEY) or "pid"
    if key == "random":
        return ("lockswap: arm chosen at random at start-up (LOCKSWAP_ARM_KEY=random); "
                "the statistics file's \"arm\" records it")
    if key == "pid":
        key_value = str(pid)
    else:
        key_value = env.get(key)
        if not key_value:
            # the library refuses both at start-up and runs on glibc
            raise UsageError(f"LOCKSWAP_ARM_KEY={key}: {key} is "
                             f"{'empty' if key_value == '' else 'not set'} in the program's "
                             "environment, so no arm can be chosen")
    _, name = lib.arm_choose(arms, key_value)
    return f"lockswap: arm {name} (key {key}={key_value})"


def announce(lib, values, env):
    line = announcement(lib, values, env, os.getpid())
    if line:
        print(line, file=sys.stderr)
