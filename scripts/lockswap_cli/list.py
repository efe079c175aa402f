"""lockswap list: the backends and options of the library, as it describes
them (never a list kept here)."""
import shutil
import textwrap

from .library import open_library

SUMMARY = "list the library's backends and LOCKSWAP_* options"
DESCRIPTION = """\
List the lock backends and the LOCKSWAP_* options of liblockswap.so, read
from the library itself (lockswap_describe).  `lockswap --help-env` is the
same command.

Exit status: 0, or 2 if the library cannot be found or loaded."""


def add_arguments(parser):
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true",
                   help="print the library's JSON description as it is")
    g.add_argument("--names", action="store_true",
                   help="print only the backend names, one a line (for scripts)")


def option_kind(opt):
    """The kind column: a number option that also takes a word says so
    (LOCKSWAP_SPIN takes `adaptive`, LOCKSWAP_SLICE_SEATS `auto`)."""
    kind = opt.get("kind", "")
    word = opt.get("choices")
    return f"{word}|{kind}" if kind == "uint" and word else kind


def default_of(desc, var):
    return next((o.get("default") for o in desc.get("options", []) if o["name"] == var), None)


def marked(name, default):
    """A backend's name column: "(default)" after the library's default."""
    return f"{name} (default)" if name == default else name


def option_range(opt):
    kind = opt.get("kind")
    if kind == "uint":
        word = opt.get("choices")
        return f"{word + ' or ' if word else ''}{opt.get('min')}..{opt.get('max')}"
    if kind == "bool":
        return "on|off"
    if kind == "choice":
        return opt.get("choices", "")
    if kind == "backend":
        return "a backend name"
    return ""


def about(backend):
    """A wrapper's description with "INNER" replaced by its inner lock."""
    text, name = backend.get("about", ""), backend["name"]
    return text.replace("INNER", name.split(":", 1)[1]) if ":" in name else text


def defaults_line(desc, full_name):
    """"capacitor = capacitor:tts, ..." for the wrappers, from the library."""
    wrappers = dict.fromkeys(b["name"].split(":")[0] for b in desc.get("backends", [])
                             if ":" in b["name"])
    pairs = [f"{w} = {full_name(w)}" for w in wrappers if full_name(w) != w]
    return ("A wrapper given without :INNER runs its default inner lock: " + ", ".join(pairs)
            + ".") if pairs else ""


def render(desc, path, width=None, full_name=None):
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 100)
    default = default_of(desc, "LOCKSWAP_BACKEND")
    rw_default = default_of(desc, "LOCKSWAP_RWLOCK")
    lines = [f"lockswap {desc.get('version', '?')}  ({path})", "",
             "Backends (-b NAME, or LOCKSWAP_BACKEND=NAME; -b default runs the one marked):"]
    backends = desc.get("backends", [])
    w = max((len(marked(b["name"], default)) for b in backends), default=0)
    for b in backends:
        head = f"  {marked(b['name'], default):<{w}}  "
        lines += textwrap.wrap(about(b), width, initial_indent=head,
                               subsequent_indent=" " * len(head)) or [head.rstrip()]
    note = defaults_line(desc, full_name) if full_name else ""
    if note:
        lines += textwrap.wrap(note, width, initial_indent="  ", subsequent_indent="  ")
    rw = desc.get("rwlock_backends", [])
    if rw:
        lines += ["", "Rwlock backends (-r NAME, or LOCKSWAP_RWLOCK=NAME; -r default runs the "
                  "one marked):"]
        w = max(len(marked(b["name"], rw_default)) for b in rw)
        for b in rw:
            head = f"  {marked(b['name'], rw_default):<{w}}  "
            lines += textwrap.wrap(b.get("about", ""), width, initial_indent=head,
                                   subsequent_indent=" " * len(head)) or [head.rstrip()]
    lines += ["", "Options (LOCKSWAP_NAME=VALUE in the environment, or lockswap --set NAME=VALUE):"]
    opts = desc.get("options", [])
    rows = [(o["name"], option_kind(o), f"default {o.get('default') or '(none)'}",
             option_range(o)) for o in opts]
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(3)]
    for o, r in zip(opts, rows):
        lines.append("  " + "  ".join(f"{c:<{widths[i]}}" for i, c in enumerate(r[:3]))
                     + (f"  {r[3]}" if r[3] else ""))
        lines += textwrap.wrap(o.get("help", ""), width, initial_indent=" " * 6,
                               subsequent_indent=" " * 6)
    return "\n".join(lines)


def main(args):
    lib = open_library(args)
    if args.json:
        print(lib.describe_text())
    elif args.names:
        print("\n".join(lib.backends()))
    else:
        print(render(lib.describe(), lib.path, full_name=lib.backend_name))
    return 0
