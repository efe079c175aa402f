"""The `lockswap` command line: global flags, the subcommand registry
(SUBCOMMANDS in __init__.py) and error reporting.

Every error a user can cause ends as one line `lockswap: <problem>` on
stderr: exit 2 for a usage error (nothing ran), 1 for a failure while
working.  Only a bug in lockswap itself shows a Python traceback.
"""
import argparse
import importlib
import sys

from . import SUBCOMMANDS, __version__, library, signals
from .errors import ToolError, UsageError


class Parser(argparse.ArgumentParser):
    """argparse, but its errors become UsageError (one line, exit 2)."""

    def error(self, message):
        raise UsageError(f"{message} (see `{self.prog} --help`)")


class VersionAction(argparse.Action):
    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.show_version = True


def load_modules():
    return {name: importlib.import_module(f"{__package__}.{name}") for name in SUBCOMMANDS}


def build_parser(modules):
    fmt = argparse.RawDescriptionHelpFormatter
    top = Parser(prog="lockswap", formatter_class=fmt,
                 description="Run programs under other lock algorithms (LD_PRELOAD of\n"
                             "liblockswap.so) and A/B-test them.",
                 epilog="`lockswap COMMAND --help` describes each command, docs/cli.md all\n"
                        "of them.  Exit status: 2 for a usage error (nothing ran), else see\n"
                        "each command.")
    top.add_argument("--lib", metavar="PATH",
                     help="liblockswap.so to use (default: the one of this source "
                          "tree or installation)")
    top.add_argument("--version", action=VersionAction,
                     help="print the version (and the library's, if it differs) and exit")
    top.add_argument("--help-env", action="store_true",
                     help="same as `lockswap list`")
    subs = top.add_subparsers(dest="subcommand", metavar="COMMAND", parser_class=Parser)
    for name, mod in modules.items():
        sub = subs.add_parser(name, help=mod.SUMMARY, formatter_class=fmt,
                              description=getattr(mod, "DESCRIPTION", mod.SUMMARY))
        sub.add_argument("--lib", metavar="PATH", default=argparse.SUPPRESS,
                         help="liblockswap.so to use")
        mod.add_arguments(sub)
        if getattr(mod, "TAKES_COMMAND", False):
            sub.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS",
                             help="the program to run and its arguments")
    return top


def split_command(argv, names):
    """(lockswap's own words, the words after the first `--` or None);
    a --help-env before the subcommand becomes `list`."""
    if "--" in argv:
        i = argv.index("--")
        head, command = argv[:i], argv[i + 1:]
    else:
        head, command = list(argv), None
    first = next((i for i, w in enumerate(head) if w in names), len(head))
    head = ["list" if (w == "--help-env" and i < first) else w for i, w in enumerate(head)]
    return head, command


def parse(argv, script=None):
    modules = load_modules()
    head, command = split_command(argv, modules)
    args = build_parser(modules).parse_args(head)
    args.script = script
    args.argv = list(argv)
    mod = modules.get(args.subcommand)
    if mod is not None and getattr(mod, "TAKES_COMMAND", False):
        before = args.command or []
        args.command = before + ["--"] + command if (before and command is not None) \
            else (command if command is not None else before)
    elif command:
        raise UsageError(f"`{args.subcommand or 'lockswap'}` takes no command after --")
    return args, mod


def main(argv=None, script=None):
    argv = sys.argv[1:] if argv is None else argv
    signals.install()
    try:
        inherited = library.take_environment()
        args, mod = parse(argv, script)
        args.inherited = inherited
        if getattr(args, "show_version", False):
            lib = library.open_library(args)
            mine = f"lockswap {__version__}"
            print(mine if lib.version == __version__ else
                  f"{mine} (library {lib.version}: {lib.path})")
            return 0
        if mod is None:
            raise UsageError("no command given (see `lockswap --help`)")
        return mod.main(args)
    except (UsageError, ToolError) as e:
        sys.stdout.flush()
        print(f"lockswap: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        print("lockswap: interrupted", file=sys.stderr)
        return 130
    except signals.Terminated as e:
        print(f"lockswap: terminated by {e.name}; the measured program was stopped too",
              file=sys.stderr)
        return e.status
    except BrokenPipeError:
        sys.stderr.close()
        return 1
