#!/usr/bin/python3
"""gen-man.py - write the man pages lockswap.1 and lockswap.7 into OUTDIR,
from the command's own parsers and the library's own description
(scripts/lockswap_cli/manpage.py):

    gen-man.py --lib liblockswap.so --out OUTDIR [--libdir DIR] [--date DATE]

--libdir is where the pages say the library is installed (FILES and the
LD_PRELOAD example); --date the date in their header (default: none,
or SOURCE_DATE_EPOCH's day), so a build is reproducible.
"""
import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from lockswap_cli import __version__, library, main, manpage  # noqa: E402


def default_date():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return ""
    day = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
    return day.strftime("%Y-%m-%d")


def run(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lib", required=True, help="the built liblockswap.so to describe")
    p.add_argument("--out", required=True, help="folder to write lockswap.1 and lockswap.7 into")
    p.add_argument("--libdir", help="where the library is installed, for the pages' text")
    p.add_argument("--date", default=None, help="the date in the pages' header")
    args = p.parse_args(argv)
    date = default_date() if args.date is None else args.date
    os.environ["COLUMNS"] = "80"  # argparse wraps the usage lines at this width
    library.take_environment()  # the pages describe the library, not this shell's settings
    lib = library.load(os.path.abspath(args.lib))
    desc = lib.describe()
    modules = main.load_modules()
    top = main.build_parser(modules)
    subs = next(a for a in top._actions if a.__class__.__name__ == "_SubParsersAction")
    pages = {"lockswap.1": manpage.page1(top, dict(subs.choices), desc, __version__, date,
                                         args.libdir),
             "lockswap.7": manpage.page7(desc, lib.version, date, args.libdir,
                                         full_name=lib.backend_name)}
    os.makedirs(args.out, exist_ok=True)
    for name, text in pages.items():
        with open(os.path.join(args.out, name), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
