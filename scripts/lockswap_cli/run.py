"""lockswap run: run one program under a chosen backend."""
import os
import shlex
import sys

from . import arms, settings
from .errors import UsageError
from .library import PREFIX, open_library

SUMMARY = "run a program with its locks served by a chosen backend"
TAKES_COMMAND = True
DESCRIPTION = """\
Run CMD with liblockswap.so first in LD_PRELOAD and the chosen settings as
LOCKSWAP_* variables.  Every value is checked by the library before the
program starts; LOCKSWAP_* variables already in the environment are passed
on, checked the same way (flags win over them).

  lockswap run -b futex --spin 0 -- ./server --port 8080
  lockswap run -b futex --set SPIN=50 --verbose -- make -j2
  lockswap run -b futex -r bravo -- ./read_mostly_server
  lockswap run --arms "glibc; futex" --stats summary -- ./server

With LOCKSWAP_ARMS (--arms, or inherited) it first prints the arm the
program will run, from the library's own choice for its key:
`lockswap: arm NAME (key pid=NNN)` on stderr.

Exit status: the program's own (lockswap replaces itself with it); 2 for a
usage error (bad value, unknown backend or variable, no command, command
not found), in which case nothing ran; 126/127 if the program could not be
executed after all."""


def add_arguments(parser):
    parser.add_argument("-b", "--backend", metavar="NAME",
                        help="lock backend (LOCKSWAP_BACKEND; `lockswap list` shows them; "
                             "`default`: the library's default)")
    parser.add_argument("-r", "--rwlock", metavar="NAME",
                        help="rwlock backend (LOCKSWAP_RWLOCK; `lockswap list` shows them; "
                             "`default`: the library's default)")
    settings.add_option_flags(parser, run=True)
    arms.add_arguments(parser)


def prepare(args):
    """(command, environment) for the program, everything checked."""
    lib = open_library(args)
    wanted = settings.common_settings(args, args.inherited)
    if args.backend is not None:
        wanted[PREFIX + "BACKEND"] = (args.backend, f"-b {shlex.quote(args.backend)}")
    if args.rwlock is not None:
        wanted[PREFIX + "RWLOCK"] = (args.rwlock, f"-r {shlex.quote(args.rwlock)}")
    for var in ("BACKEND", "RWLOCK"):
        settings.resolve_default(lib, wanted, var)
    arms.add_settings(args, wanted)
    arms.require_support(lib, wanted)
    values = settings.check(lib, wanted)
    env = settings.child_env(lib.path, values)
    return settings.resolve_command(args.command, env), env, values


def main(args):
    if not args.command:
        raise UsageError("run: no command to run: give it after `--`")
    cmd, env, values = prepare(args)
    arms.announce(open_library(args), values, env)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as e:
        print(f"lockswap: cannot run {cmd[0]}: {e.strerror}", file=sys.stderr)
        return 127 if isinstance(e, FileNotFoundError) else 126
