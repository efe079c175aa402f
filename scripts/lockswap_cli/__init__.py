"""lockswap_cli - the `lockswap` command.

Each subcommand is one module of this package, listed once in SUBCOMMANDS
(that order is the order of `lockswap --help`).  Adding a subcommand is one
file plus one word here.  A subcommand module provides:

    SUMMARY = "one line for `lockswap --help`"
    DESCRIPTION = "paragraph(s) for `lockswap NAME --help`" (optional)
    TAKES_COMMAND = True    if it takes `-- CMD ARGS...` (optional)
    def add_arguments(parser): ...   argparse flags of the subcommand
    def main(args) -> int: ...        exit status; raise errors.UsageError
                                       for a user mistake (exit 2)

args carries the global flags too: args.lib (--lib PATH or None), args.script
(the path of the running `lockswap` script) and args.command (the words after
`--`, for modules that take a command).  library.open_library(args) gives the
loaded liblockswap.so.
"""

# The CLI's own version; the library reports its own (interpose/version.h),
# and `lockswap --version` shows both when they differ.
__version__ = "0.4.0"

SUBCOMMANDS = (
    "run",
    "ab",
    "sweep",
    "list",
    "report",
)
