"""The man pages lockswap(1) and lockswap(7), written from what the program
and the library say about themselves, so that they cannot drift:

  lockswap(1)  the command: each subcommand's usage, description and flags
               from its argparse parser (what `lockswap COMMAND --help`
               prints), the backends and the LOCKSWAP_* names from the
               library's description (what `lockswap list` prints);
  lockswap(7)  the library: every backend, rwlock backend and option from
               the library's description (lockswap_describe: the same JSON
               tests/docs checks the README's tables against), each option
               with its kind, default, range and help.

A backend or option the library gains appears in both pages at the next
build, with nothing to edit here.  scripts/gen-man.py writes the files;
`make man`, `make install` and `make deb` call it.
"""
import argparse
import re

from . import list as listing

SECTION_TITLES = {1: "User Commands", 7: "Miscellaneous Information Manual"}


def esc(text):
    """text as roff input: backslashes and hyphens escaped (options read
    and copy as ASCII hyphen-minus), characters outside ASCII as \\[uXXXX],
    a leading dot or quote neutralised."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ord(ch) > 127:
            out.append(f"\\[u{ord(ch):04X}]")
        else:
            out.append(ch)
    line = "".join(out)
    return "\\&" + line if line[:1] in (".", "'") else line


def bold(text):
    return f"\\fB{esc(text)}\\fR"


def italic(text):
    return f"\\fI{esc(text)}\\fR"


def paragraphs(text):
    """roff for argparse-style text: blank-line-separated paragraphs, and
    indented lines (examples) kept as they are, in a no-fill block."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        lines = block.splitlines()
        if all(l.startswith("  ") for l in lines if l.strip()):
            out += [".PP", ".RS 4", ".nf"] + [esc(l[2:]) for l in lines] + [".fi", ".RE"]
        else:
            out += [".PP", esc(" ".join(l.strip() for l in lines))]
    return out


def header(name, section, version, date):
    return [f'.TH {name.upper()} {section} "{date}" "lockswap {version}" '
            f'"{SECTION_TITLES[section]}"']


def flag_text(action):
    """`-b NAME, --backend NAME` in roff: bold flags, italic metavar."""
    if not action.option_strings:
        return italic(action.metavar or action.dest)
    takes = action.nargs != 0 and not isinstance(
        action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                 argparse._HelpAction, argparse._VersionAction))
    meta = action.metavar or action.dest.upper()
    return ", ".join(bold(o) + (" " + italic(meta) if takes else "")
                     for o in action.option_strings)


def actions_of(parser):
    """[(group title or None, group description, [actions])] of a parser,
    help flags left out."""
    out = []
    for group in parser._action_groups:
        acts = [a for a in group._group_actions if not isinstance(a, argparse._HelpAction)
                and a.help != argparse.SUPPRESS
                and not isinstance(a, argparse._SubParsersAction)]
        if acts:
            title = None if group.title in ("options", "optional arguments",
                                            "positional arguments") else group.title
            out.append((title, group.description, acts))
    return out


def option_list(parser):
    out = []
    for title, about, acts in actions_of(parser):
        if title:
            out += [".PP", f"\\fI{esc(title)}\\fR" + (": " + esc(" ".join(about.split()))
                                                     if about else "")]
        for a in acts:
            out += [".TP", flag_text(a), esc(" ".join((a.help or "").split()))]
    return out


def usage_lines(parser):
    text = parser.format_usage().strip()
    text = text[len("usage: "):] if text.startswith("usage: ") else text
    return [".nf"] + [esc(l) for l in text.splitlines()] + [".fi"]


def option_summary(o):
    """"default X; accepted Y" of one option of the description."""
    accepted = listing.option_range(o)
    said = f"default {o.get('default') or '(none)'}"
    return said + (f"; accepted: {accepted}" if accepted else "")


def page1(top, subparsers, desc, version, date="", libdir=None):
    """lockswap(1): top is the main parser, subparsers {name: parser}."""
    lines = header("lockswap", 1, version, date)
    lines += [".SH NAME", "lockswap \\- run programs under other lock algorithms and "
              "A/B\\-test them", ".SH SYNOPSIS", ".nf",
              f"{bold('lockswap')} [{bold('--lib')} {italic('PATH')}] {italic('COMMAND')} "
              f"[{italic('FLAGS')}] [{bold('--')} {italic('CMD ARGS')}...]",
              f"{bold('lockswap')} {bold('--version')}", ".fi"]
    lines += [".SH DESCRIPTION"] + paragraphs(top.description or "")
    lines += [".PP", "Global flags:"] + option_list(top)
    lines += [".SH COMMANDS"]
    for name, sub in subparsers.items():
        lines += [f'.SS "lockswap {esc(name)}"'] + usage_lines(sub)
        lines += paragraphs(sub.description or "") + option_list(sub)
    lines += [".SH BACKENDS", esc("As this build of the library lists them "
                                  "(`lockswap list`); lockswap(7) describes each one."), ".PP"]
    default = listing.default_of(desc, "LOCKSWAP_BACKEND")
    rw_default = listing.default_of(desc, "LOCKSWAP_RWLOCK")
    lines += [esc("Mutexes and condvars (-b): " + ", ".join(
        listing.marked(b["name"], default) for b in desc.get("backends", []))) + "."]
    if desc.get("rwlock_backends"):
        lines += [".PP", esc("Rwlocks (-r): " + ", ".join(
            listing.marked(b["name"], rw_default) for b in desc["rwlock_backends"])) + "."]
    lines += [".SH ENVIRONMENT", esc("Every setting of the measured program is a LOCKSWAP_* "
                                     "variable the library lists; lockswap checks each one "
                                     "before the program starts. lockswap(7) has the "
                                     "details.")]
    for o in desc.get("options", []):
        lines += [".TP", bold(o["name"]), esc(f"{' '.join(o.get('help', '').split())} "
                                              f"({option_summary(o)})")]
    lines += [".SH EXIT STATUS"] + paragraphs(top.epilog or "")
    lines += files_section(libdir)
    lines += [".SH SEE ALSO", ".BR lockswap (7),", ".BR ld.so (8)"]
    return "\n".join(lines) + "\n"


def files_section(libdir):
    if not libdir:
        return []
    return [".SH FILES", ".TP", bold(f"{libdir}/liblockswap.so"),
            esc("the library that lockswap preloads into the programs it runs")]


def page7(desc, version, date="", libdir=None, full_name=None):
    """lockswap(7): the library's backends and options."""
    lib = f"{libdir}/liblockswap.so" if libdir else "liblockswap.so"
    lines = header("lockswap", 7, version, date)
    lines += [".SH NAME", "lockswap \\- replace a program's pthread locks with other lock "
              "algorithms, chosen by LOCKSWAP_* variables",
              ".SH SYNOPSIS", ".nf",
              esc(f"LD_PRELOAD={lib} [LOCKSWAP_BACKEND=NAME] [LOCKSWAP_...=VALUE] PROGRAM "
                  "[ARGS]"), ".fi",
              ".SH DESCRIPTION"]
    lines += paragraphs(
        "lockswap is loaded with LD_PRELOAD into a dynamically linked program and serves its "
        "pthread_mutex_*, pthread_cond_*, pthread_rwlock_* and C11 mtx_*/cnd_* calls (and so "
        "std::mutex, std::condition_variable, std::shared_mutex and the locks inside the "
        "libraries the program uses) with the algorithm chosen by LOCKSWAP_BACKEND and "
        "LOCKSWAP_RWLOCK.\n\n"
        "The variables are read once, at start-up.  A bad value, an unknown backend or a "
        "misspelt LOCKSWAP_* name prints one line on stderr naming the variable, the value "
        "and what is accepted, and the program then runs on glibc's own locks with none of "
        "the LOCKSWAP_* settings applied; its stdout is never touched.  lockswap(1) runs "
        "programs this way and compares backends.")
    default = listing.default_of(desc, "LOCKSWAP_BACKEND")
    lines += [".SH BACKENDS", esc("LOCKSWAP_BACKEND picks the algorithm serving every mutex "
                                  "and condvar:")]
    for b in desc.get("backends", []):
        lines += [".TP", bold(listing.marked(b["name"], default)),
                  esc(" ".join(listing.about(b).split()))]
    note = listing.defaults_line(desc, full_name) if full_name else ""
    if note:
        lines += [".PP", esc(note)]
    if desc.get("rwlock_backends"):
        rw_default = listing.default_of(desc, "LOCKSWAP_RWLOCK")
        lines += [".SH RWLOCK BACKENDS", esc("LOCKSWAP_RWLOCK picks the algorithm serving "
                                             "every pthread_rwlock_t:")]
        for b in desc["rwlock_backends"]:
            lines += [".TP", bold(listing.marked(b["name"], rw_default)),
                      esc(" ".join(b.get("about", "").split()))]
    lines += [".SH ENVIRONMENT"]
    for o in desc.get("options", []):
        lines += [".TP", f"{bold(o['name'])} ({esc(listing.option_kind(o))})",
                  esc(" ".join(o.get("help", "").split())) + ".",
                  ".br", esc(option_summary(o).capitalize() + ".")]
    lines += files_section(libdir)
    lines += [".SH SEE ALSO", ".BR lockswap (1),", ".BR ld.so (8)"]
    return "\n".join(lines) + "\n"
