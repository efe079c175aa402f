"""settings_names.py ROOT [DESCRIBE_JSON] - the LOCKSWAP_* names, checked.

Every variable is a row: the shim's own in interpose/options/options.def
(LS_OPTION), an algorithm's in its backend's file (backends/<name>.c or
backends/rwlock_<name>.c, LS_SETTING rows given as `.settings`).  They
share one namespace, so (docs/hacking.md, "Adding a setting"):
  - no two rows have the same name;
  - each name belongs to one owner, read from its prefix: an algorithm's
    settings start with its backend's name as LOCKSWAP_BACKEND or
    LOCKSWAP_RWLOCK spells it, upper-cased, '-' as '_' (SLICE_US is
    slice's; the longest such prefix wins, so BCS_WF_X would be bcs-wf's),
    and the shim owns the first word of each of its options (STATS_*,
    HANG_*, ARM_*, ...);
  - no backend is named after the shim's words, and no row starts with
    another owner's prefix;
  - the names that predate the rule keep them (OLD_NAMES), and that list
    may only shrink: a name that is gone must leave it.
With DESCRIBE_JSON (lockswap_describe's output), the rows read here must
be exactly the options the library lists (a row declared some other way
would escape the check), and their number must stay below the bound of
options an arm can set (LS_OPTIONS_MAX, interpose/options/arms.c).

Prints one line per problem and exits 1 if there is any; --self-test runs
the checks on small synthetic trees, which must fail where they should."""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from include_graph import Checks, tree  # noqa: E402  (the self-tests' fake trees and lines)

OPTION_ROW = re.compile(r'^\s*LS_OPTION\(\s*(\w+)\s*,', re.M)
SETTING_ROW = re.compile(r'^\s*LS_SETTING\(\s*(\w+)\s*,', re.M)
OPTIONS_MAX = re.compile(r'#define\s+LS_OPTIONS_MAX\s+(\d+)')
# Named before the rule, kept (users' scripts set them): name -> backend.
OLD_NAMES = {"BYPASS": "capacitor", "FAIR_US": "queued"}
SHIM = "the shim"


def family(backend):
    """A backend's prefix: capacitor:futex -> CAPACITOR, bcs-wf -> BCS_WF."""
    return backend.split(":")[0].replace("-", "_").upper()


def rows(root, files=None):
    """[(name, owner)]: the shim's rows, then each backend file's; `files`
    gets every backend file's prefix."""
    out = []
    files = set() if files is None else files
    with open(os.path.join(root, "interpose", "options", "options.def")) as f:
        out += [(n, SHIM) for n in OPTION_ROW.findall(f.read())]
    backends = os.path.join(root, "backends")
    for f in sorted(os.listdir(backends)):
        if not f.endswith(".c"):
            continue
        with open(os.path.join(backends, f)) as fh:
            names = SETTING_ROW.findall(fh.read())
        name = f[:-2]
        name = name[len("rwlock_"):] if name.startswith("rwlock_") else name
        out += [(n, family(name)) for n in names]
        files.add(family(name))
    return out


def owner_by_prefix(name, prefixes):
    """The owners whose prefix the name has, longest prefix first."""
    hits = [(len(p), o) for p, owners in prefixes.items() for o in owners
            if name == p or name.startswith(p + "_")]
    if not hits:
        return set()
    longest = max(n for n, _ in hits)
    return {o for n, o in hits if n == longest}


def problems(root, described=None, options_max=None):
    files = set()
    found = rows(root, files)
    out = []
    seen = {}
    for name, owner in found:
        if name in seen:
            out.append(f"settings: LOCKSWAP_{name} is declared twice ({seen[name]} and {owner})")
        seen.setdefault(name, owner)
    backends = set(files)
    if described:
        backends |= {family(b["name"]) for b in described["backends"] + described["rwlock_backends"]}
    prefixes = {}
    for name, owner in found:
        if owner == SHIM:
            prefixes.setdefault(name.split("_")[0], set()).add(SHIM)
    for b in backends:
        prefixes.setdefault(b, set()).add(b)
    for p, owners in sorted(prefixes.items()):
        if len(owners) > 1:
            out.append(f"settings: the prefix {p}_ would belong to both {' and '.join(sorted(owners))} "
                       "(a backend may not be named after the shim's options)")
    for name, owner in found:
        if OLD_NAMES.get(name) == owner.lower():
            claimed = owner_by_prefix(name, prefixes) - {owner}
            if claimed:
                out.append(f"settings: LOCKSWAP_{name} ({owner}'s, named before the rule) reads as "
                           f"{', '.join(sorted(claimed))}'s")
            continue
        by_prefix = owner_by_prefix(name, prefixes)
        if by_prefix != {owner}:
            want = ("start with one of the shim's words" if owner == SHIM
                    else f"start with {owner}_")
            who = f" (it reads as {', '.join(sorted(by_prefix))}'s)" if by_prefix else ""
            out.append(f"settings: LOCKSWAP_{name} ({owner}'s) must {want}{who}")
    names = {n for n, _ in found}
    for name in sorted(set(OLD_NAMES) - names):
        out.append(f"settings: LOCKSWAP_{name} is gone: remove it from OLD_NAMES "
                   "(tests/layers/settings_names.py)")
    if described:
        listed = {o["name"][len("LOCKSWAP_"):] for o in described["options"]}
        for name in sorted(listed - names):
            out.append(f"settings: the library lists LOCKSWAP_{name}, but no LS_OPTION or "
                       "LS_SETTING row of the sources declares it")
        for name in sorted(names - listed):
            out.append(f"settings: LOCKSWAP_{name} has a row, but the library does not list it")
        if options_max is not None and len(described["options"]) >= options_max:
            out.append(f"settings: the library has {len(described['options'])} options, and an arm "
                       f"can set {options_max} (LS_OPTIONS_MAX, interpose/options/arms.c)")
    return out


def self_test():
    good = {
        "interpose/options/options.def": "LS_OPTION(BACKEND, x)\nLS_OPTION(STATS, x)\n"
                                         "LS_OPTION(STATS_TOP, x)\n",
        "backends/capacitor.c": "\tLS_SETTING(BYPASS, UINT)\n\tLS_SETTING(CAPACITOR_SEM, x)\n",
        "backends/queued.c": "\tLS_SETTING(FAIR_US, UINT)\n",
        "backends/rwlock_slice.c": "",
        "backends/slice.c": "\tLS_SETTING(SLICE_US, UINT)\n",
    }
    described = {"backends": [{"name": "capacitor:futex"}, {"name": "queued"}, {"name": "slice:tts"}],
                 "rwlock_backends": [{"name": "slice"}],
                 "options": [{"name": "LOCKSWAP_" + n} for n in
                             ("BACKEND", "STATS", "STATS_TOP", "BYPASS", "CAPACITOR_SEM",
                              "FAIR_US", "SLICE_US")]}
    bad = [
        ("two backends declare one name",
         {"backends/slice.c": "LS_SETTING(SLICE_US, x)\n", "backends/bcs.c": "LS_SETTING(SLICE_US, x)\n"},
         "is declared twice"),
        ("a setting without its backend's prefix",
         {"backends/mcs.c": "LS_SETTING(SPINS, x)\n"}, "LOCKSWAP_SPINS (MCS's) must start with MCS_"),
        ("a setting with another backend's prefix",
         {"backends/mcs.c": "LS_SETTING(SLICE_MCS, x)\n"}, "it reads as SLICE's"),
        ("a setting in the shim's STATS_ family",
         {"backends/mcs.c": "LS_SETTING(STATS_MCS, x)\n"}, "it reads as the shim's"),
        ("a backend named after the shim's words",
         {"backends/stats.c": "LS_SETTING(STATS_X, x)\n"}, "would belong to both"),
        ("a shim option in a backend's family",
         {"interpose/options/options.def": "LS_OPTION(BACKEND, x)\nLS_OPTION(SLICE_OVERRIDE, x)\n"
                                           "LS_OPTION(STATS, x)\nLS_OPTION(STATS_TOP, x)\n"},
         "would belong to both"),
        ("an old name that a new backend's prefix claims",
         {"backends/fair.c": ""}, "LOCKSWAP_FAIR_US (QUEUED's, named before the rule) reads as FAIR's"),
        ("an old name that is gone stays listed",
         {"backends/queued.c": ""}, "remove it from OLD_NAMES"),
    ]
    checks = Checks()
    into = tempfile.mkdtemp(prefix="settings-")
    got = problems(tree(good, into), described, 64)
    checks.check("well-named settings pass", not got, got or "no problem")
    for what, change, expect in bad:
        all_got = problems(tree({**good, **change}, into))
        got = [p for p in all_got if expect in p]
        checks.check(f"{what} is found", got, got[0] if got else all_got)
    more = dict(described, options=described["options"] + [{"name": "LOCKSWAP_HIDDEN"}])
    got = [p for p in problems(tree(good, into), more, 64) if "no LS_OPTION or LS_SETTING row" in p]
    checks.check("an option the library lists but no row declares is found", got,
                 got[0] if got else "not found")
    got = [p for p in problems(tree(good, into), described, 7) if "an arm can set" in p]
    checks.check("more options than an arm can set (LS_OPTIONS_MAX) is found", got,
                 got[0] if got else "not found")
    shutil.rmtree(into)
    return checks.failed


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    root = sys.argv[1]
    described = None
    options_max = None
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            described = json.load(f)
        with open(os.path.join(root, "interpose", "options", "arms.c")) as f:
            options_max = int(OPTIONS_MAX.search(f.read()).group(1))
    found = problems(root, described, options_max)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
