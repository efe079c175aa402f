"""Errors the CLI reports as one line `lockswap: <problem>` on stderr."""


class UsageError(Exception):
    """A mistake in how lockswap was called (bad flag, bad value, no
    library): exit status 2, nothing has run."""

    status = 2


class ToolError(Exception):
    """Something outside the user's call went wrong (cannot write a
    file, matplotlib missing): exit status 1."""

    status = 1
