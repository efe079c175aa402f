"""From flags to the environment of a measured program.

Every library setting the CLI passes on is a LOCKSWAP_<NAME> variable that
the library lists (lockswap_describe) and that lockswap_check_option accepts;
all of them are checked before anything runs.  Settings come from, later
winning: LOCKSWAP_* variables the CLI inherited, --set NAME=VALUE, the
dedicated flags (--spin, --bypass, --stats, --verbose), and the backends
(-b NAME for LOCKSWAP_BACKEND, -r NAME for LOCKSWAP_RWLOCK, each also as
NAME,VAR=VALUE,... for a variant with its own settings).  A variant may also
name its own build of the library, NAME,LIB=PATH (ab and sweep: two builds
A/B-tested in the same interleaved rounds); its settings are then checked
by that build.
"""
import os
import re
import shlex
import shutil

from . import library, preloadable
from .errors import UsageError
from .library import PREFIX

LIB_KEY = "LIB"  # NAME,LIB=PATH: the variant's own liblockswap.so, not an option
DEFAULT = "default"  # -b default, -r default: the library's own default backend
NONE = "none"  # -b none: the program without lockswap (no preload, no LOCKSWAP_*)

# Dedicated flags: (flag, option NAME, metavar, help).  Options the library
# gains later need no flag: --set covers them.
FLAGS = (
    ("--spin", "SPIN", "N", "polls before a waiter parks (LOCKSWAP_SPIN)"),
    ("--bypass", "BYPASS", "B", "capacitor platoon size (LOCKSWAP_BYPASS)"),
)
RUN_FLAGS = (
    ("--stats", "STATS", "MODE", "lock statistics mode (LOCKSWAP_STATS)"),
    ("--deadlock", "DEADLOCK", "MODE", "lock-order checking: report or abort (LOCKSWAP_DEADLOCK; "
     "docs/deadlock.md)"),
    ("--hang-ms", "HANG_MS", "MS", "report lock waits longer than MS milliseconds, 0 = never "
     "(LOCKSWAP_HANG_MS)"),
)


def add_option_flags(parser, run=False):
    g = parser.add_argument_group(
        "library options", "Each becomes a LOCKSWAP_* variable of the program, checked by\n"
        "the library before anything runs; `lockswap list` shows them all.")
    for flag, name, metavar, text in FLAGS + (RUN_FLAGS if run else ()):
        g.add_argument(flag, metavar=metavar, dest="opt_" + name.lower(), help=text)
    if run:
        g.add_argument("--verbose", action="store_true",
                       help="the library prints its effective configuration to stderr "
                            "at start-up (LOCKSWAP_VERBOSE=on)")
    g.add_argument("--set", metavar="NAME=VALUE", action="append", default=[],
                   help="any option the library lists; NAME with or without the "
                        "LOCKSWAP_ prefix; repeatable")


def var_name(name):
    name = name.strip().upper()
    return name if name.startswith(PREFIX) else PREFIX + name


def parse_assignment(text, where):
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise UsageError(f"{where} {text!r}: expected NAME=VALUE")
    return var_name(name), value


def common_settings(args, inherited):
    """{VAR: (value, origin)} from the environment, --set and the flags."""
    out = {var: (value, "inherited from the environment") for var, value in inherited.items()}
    for text in args.set:
        var, value = parse_assignment(text, "--set")
        out[var] = (value, f"--set {text}")
    for flag, name, _, _ in FLAGS + RUN_FLAGS:
        value = getattr(args, "opt_" + name.lower(), None)
        if value is not None:
            out[PREFIX + name] = (value, f"{flag} {shlex.quote(value)}")
    if getattr(args, "verbose", False):
        out[PREFIX + "VERBOSE"] = ("on", "--verbose")
    return out


class Variant:
    """One -b (mutex backend) or -r (rwlock backend) argument: a label (as
    typed), its own settings, and the library build it runs under (lib_path;
    None: the one the CLI found or --lib gave); unloaded: -b none."""

    unloaded = False

    def __init__(self, text, flag="-b", var="BACKEND", lib=None):
        parts = text.split(",")
        self.label = text
        self.backend = parts[0].strip()
        self.lib_path = None
        self.unloaded = flag == "-b" and self.backend.lower() == NONE
        if not self.backend:
            raise UsageError(f"{flag} {text!r}: no backend name")
        if self.unloaded:
            # What loading lockswap costs at all: the baseline a fleet
            # compares against before it turns the library on.
            if len(parts) > 1:
                raise UsageError(f"{flag} {text!r}: none runs the program without lockswap, "
                                 "so it takes no settings")
            self.settings = {}
            return
        self.settings = {PREFIX + var: (self.backend, f"{flag} {text}")}
        for part in parts[1:]:
            name, eq, value = part.partition("=")
            if eq and name.strip().upper() == LIB_KEY:
                self.lib_path = variant_library(value, f"{flag} {text}")
                continue
            var_, value = parse_assignment(part, f"{flag} {text}:")
            self.settings[var_] = (value, f"{flag} {text}")
        if lib is not None:
            name = resolve_default(library.load(self.lib_path) if self.lib_path else lib,
                                   self.settings, var)
            if name:  # labelled with what runs, as a wrapper with its inner lock
                self.label = name + text[len(parts[0]):]
                self.backend = name

    def combined(self, rw):
        """This mutex variant with rwlock variant rw: label "B/R"."""
        if self.unloaded:
            raise UsageError("-b none runs the program without lockswap, so it has no rwlock "
                             "to combine with -r; compare rwlocks with -r alone")
        if self.lib_path and rw.lib_path and self.lib_path != rw.lib_path:
            raise UsageError(f"-b {self.label} and -r {rw.label} name different LIB= builds; "
                             "give LIB= on one side only")
        v = Variant.__new__(Variant)
        v.label = f"{self.label}/{rw.label}"
        v.backend = self.backend
        v.lib_path = self.lib_path or rw.lib_path
        v.settings = {**self.settings, **rw.settings}
        return v

    def __repr__(self):
        return f"Variant({self.label!r})"


def variant_library(path, where):
    """The absolute path of a variant's LIB=PATH, which must be a file."""
    if not path.strip():
        raise UsageError(f"{where}: LIB= needs the path of a liblockswap.so")
    if not os.path.isfile(path):
        raise UsageError(f"{where}: LIB={path}: no such file")
    return os.path.abspath(path)


def parse_variants(texts, rwlock_texts=(), lib=None):
    """-b texts, -r texts, or both (every -b with every -r, "B/R"); with
    lib, a backend named `default` becomes the library's default."""
    if not texts and not rwlock_texts:
        raise UsageError("no backend: give -b NAME or -r NAME (see `lockswap list`)")
    variants = [Variant(t, lib=lib) for t in texts]
    rw = [Variant(t, "-r", "RWLOCK", lib=lib) for t in rwlock_texts]
    variants = [m.combined(r) for m in variants for r in rw] if variants and rw else variants or rw
    labels = [v.label for v in variants]
    dup = sorted({l for l in labels if labels.count(l) > 1})
    if dup:
        raise UsageError(f"backend given twice: {', '.join(dup)}")
    return variants


def as_typed(var, value, origin, msg):
    """The library's message about VAR=value, told by what the user typed:
    "--spin fast (LOCKSWAP_SPIN): must be a whole number ..." instead of
    "LOCKSWAP_SPIN='fast': must be ...", for a flag, --set or a -b/-r text;
    an inherited variable keeps the library's words and says where it came
    from."""
    if origin.startswith("inherited"):
        return f"{msg} ({origin})"
    for head in (f"{var}='{value}': ", f"{var}: "):
        if msg.startswith(head):
            return f"{origin} ({var}): {msg[len(head):]}"
    found = re.match(re.escape(var) + r"='.*?': ", msg)
    if found:
        return f"{origin} ({var}): {msg[found.end():]}"
    return f"{origin}: {msg}"


def check(lib, settings):
    """Raise UsageError with the library's message for the first bad
    setting, told by the flag that gave it; return {VAR: value}."""
    for var, (value, origin) in settings.items():
        msg = lib.check(var, value)
        if msg:
            raise UsageError(as_typed(var, value, origin, msg))
    return {var: value for var, (value, _) in settings.items()}


def resolve_default(lib, settings, var):
    """LOCKSWAP_<var> given as `default` (-b default, -r default) becomes
    the library's own default backend; returns the name it became, or None
    if it was not `default`."""
    value, origin = settings.get(PREFIX + var, (None, None))
    if value is None or value.strip().lower() != DEFAULT:
        return None
    name = lib.default(PREFIX + var)
    settings[PREFIX + var] = (name, origin)
    return name


def check_variants(lib, args, variants):
    """Check every backend with the common settings (the flags and the
    inherited LOCKSWAP_* variables); sets each variant's .values."""
    common = common_settings(args, args.inherited)
    backend = common.pop(PREFIX + "BACKEND", None)
    if backend and not backend[1].startswith("inherited"):
        raise UsageError("choose backends with -b, not --set BACKEND=...")
    rwlock = common.get(PREFIX + "RWLOCK")
    if rwlock and not rwlock[1].startswith("inherited") and \
            any(PREFIX + "RWLOCK" in v.settings for v in variants):
        raise UsageError("choose rwlock backends with -r, not --set RWLOCK=... as well")
    for v in variants:
        if v.unloaded:
            v.values = {}
            continue
        own = library.load(v.lib_path) if v.lib_path else lib
        v.values = check(own, {**common, **v.settings})
        name_inner(own, v)
    labels = [v.label for v in variants]
    dup = sorted({l for l in labels if labels.count(l) > 1})
    if dup:
        raise UsageError(f"backend given twice: {', '.join(dup)}")
    return variants


def name_inner(lib, variant):
    """A wrapper given without :INNER ("capacitor") is labelled with the
    inner lock it runs ("capacitor:tts"), so no table hides it."""
    if PREFIX + "BACKEND" not in variant.settings:
        return
    full = lib.backend_name(variant.backend)
    if full != variant.backend:
        variant.label = variant.label.replace(variant.backend, full, 1)
        variant.backend = full


RSEQ_OFF = "glibc.pthread.rseq=0"


def needs_rseq_off(values):
    """Whether these settings run the ces backend, which refuses to start
    while glibc registers rseq areas (docs/delegation.md): as LOCKSWAP_BACKEND,
    or as any arm's backend in LOCKSWAP_ARMS ("glibc; name=d ces weight=2":
    arms split by ';', the backend is an arm's one word without '=')."""
    names = [values.get(PREFIX + "BACKEND", "")]
    for arm in values.get(PREFIX + "ARMS", "").split(";"):
        names += [word for word in arm.split() if "=" not in word]
    return "ces" in names


def with_rseq_off(env):
    """GLIBC_TUNABLES with glibc.pthread.rseq=0 added, the user's other
    tunables kept (a user's own rseq setting is replaced: ces cannot run
    with rseq on)."""
    kept = [t for t in env.get("GLIBC_TUNABLES", "").split(":")
            if t and not t.startswith("glibc.pthread.rseq=")]
    env["GLIBC_TUNABLES"] = ":".join([RSEQ_OFF] + kept)
    return env


def other_preloads(env, lib_paths):
    """env's LD_PRELOAD entries (split at colons or spaces, as ld.so does)
    other than lib_paths, in their order."""
    return [p for p in env.get("LD_PRELOAD", "").replace(" ", ":").split(":")
            if p and p not in lib_paths]


def child_env(lib_path, values, base=None, rseq_off=None):
    """The environment of a measured program: base (default: the CLI's own,
    which holds no LOCKSWAP_* any more) plus the settings, with the library
    first in LD_PRELOAD and every earlier entry kept after it.  rseq_off
    (default: these settings run ces) turns glibc's rseq registration off;
    a comparison passes it for every arm when any arm runs ces, so that all
    arms run under the same glibc."""
    env = dict(os.environ if base is None else base)
    env.update(values)
    env["LD_PRELOAD"] = ":".join([lib_path] + other_preloads(env, {lib_path}))
    if needs_rseq_off(values) if rseq_off is None else rseq_off:
        with_rseq_off(env)
    return env


def unloaded_env(lib_paths, base=None, rseq_off=False):
    """The environment of -b none: base (default: the CLI's own) without
    any LOCKSWAP_* variable and with lib_paths (every build the comparison
    loads) taken out of LD_PRELOAD, the user's other entries kept; rseq
    as the other arms run it."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith(PREFIX)}
    kept = other_preloads(env, lib_paths)
    if kept:
        env["LD_PRELOAD"] = ":".join(kept)
    else:
        env.pop("LD_PRELOAD", None)
    if rseq_off:
        with_rseq_off(env)
    return env


def resolve_command(cmd, env):
    """Check that cmd[0] can be run (UsageError if not); returns cmd."""
    if not cmd:
        raise UsageError("no command to run: give it after `--`")
    prog = cmd[0]
    if "/" in prog:
        path = prog if os.path.isfile(prog) and os.access(prog, os.X_OK) else None
    else:
        path = shutil.which(prog, path=env.get("PATH", os.defpath))
    if path is None:
        raise UsageError(f"command not found or not executable: {prog}")
    library = env.get("LD_PRELOAD", "").split(":")[0]
    why = preloadable.problem(path, library)
    if why:
        raise UsageError(f"{prog} {why} (nothing ran)")
    return cmd
