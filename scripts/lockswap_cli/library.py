"""Finding, loading and querying liblockswap.so.

The library describes itself (lockswap_describe: backends and options as
JSON) and checks values (lockswap_check_option), so the CLI keeps no list of
its own: whatever backends and options the built library has are the ones
the CLI offers and accepts.
"""
import ctypes
import difflib
import json
import os
import subprocess
import sys
import sysconfig

from .errors import UsageError

LIBNAME = "liblockswap.so"
PREFIX = "LOCKSWAP_"
_ERRLEN = 1024

_loaded = {}


def take_environment(environ=None):
    """Remove every LOCKSWAP_* variable from the CLI's own environment and
    return them.  The library runs a start-up check when it is loaded, and
    the CLI process itself must not trip it; the removed values are passed
    on to the programs the CLI runs, checked like flags."""
    environ = os.environ if environ is None else environ
    taken = {k: environ[k] for k in list(environ) if k.startswith(PREFIX)}
    for k in taken:
        del environ[k]
    return taken


# Written by `make install` (and so in the Debian package): the library's
# folder, relative to <prefix> when it is under it, so that an installation
# moved as a whole (a scratch root, `dpkg --root`) still finds its own.
LIBDIR_FILE = os.path.join("share", "lockswap", "libdir")


def installed_libdirs(root):
    """The library folders of an installation at root: the one `make
    install` recorded, then the multiarch one (Debian's
    <prefix>/lib/x86_64-linux-gnu), then <prefix>/lib."""
    out = []
    try:
        with open(os.path.join(root, LIBDIR_FILE)) as f:
            recorded = f.read().strip()
        if recorded:
            out.append(os.path.join(root, recorded))  # an absolute one stays absolute
    except OSError:
        pass
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:
        out.append(os.path.join(root, "lib", multiarch))
    out.append(os.path.join(root, "lib"))
    return list(dict.fromkeys(out))


def candidates(script=None):
    """Where the library is looked for when --lib is not given, in order:
    <tree>/liblockswap.so for <tree>/scripts/lockswap (a built source tree),
    then, for an installed <prefix>/bin/lockswap, liblockswap.so in the
    folders of installed_libdirs(<prefix>).  Without the script's path,
    <tree> or <prefix> is found from this package's place (<tree>/scripts/
    or <prefix>/share/lockswap/)."""
    if script:
        root = os.path.dirname(os.path.dirname(os.path.realpath(script)))
    else:
        parent = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        up = 1 if os.path.basename(parent) == "scripts" else 2
        root = parent
        for _ in range(up):
            root = os.path.dirname(root)
    return [os.path.join(root, LIBNAME)] + [os.path.join(d, LIBNAME)
                                            for d in installed_libdirs(root)]


def find(explicit=None, script=None):
    """Absolute path of the library, or UsageError saying how to get one."""
    if explicit:
        if not os.path.isfile(explicit):
            raise UsageError(f"--lib {explicit}: no such file")
        return os.path.abspath(explicit)
    tried = candidates(script)
    for path in tried:
        if os.path.isfile(path):
            return path
    raise UsageError(f"{LIBNAME} not found (looked for {', '.join(tried)}): "
                     "run `make` in the lockswap source tree, or pass --lib PATH")


class _Loaded:
    """The library's entry points, called in this process."""

    def __init__(self, dll):
        self._dll = dll
        self._describe = dll.lockswap_describe
        self._check = dll.lockswap_check_option
        self._describe.restype = ctypes.c_size_t
        self._describe.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self._check.restype = ctypes.c_int
        self._check.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        # Libraries built before LOCKSWAP_ARMS existed lack this one: the
        # CLI says so instead of failing on a missing symbol.
        self._arm_choose = getattr(dll, "lockswap_arm_choose", None)
        if self._arm_choose is not None:
            self._arm_choose.restype = ctypes.c_int
            self._arm_choose.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.c_size_t]

    def describe_text(self):
        size = 4096
        while True:
            buf = ctypes.create_string_buffer(size)
            need = self._describe(buf, size)
            if need < size:
                return buf.value.decode("utf-8", "replace")
            size = need + 1

    def check(self, var, value):
        """(0 or the library's code, its message)."""
        err = ctypes.create_string_buffer(_ERRLEN)
        rc = self._check(var.encode(), value.encode(), err, _ERRLEN)
        return rc, err.value.decode("utf-8", "replace")

    def backend_name(self, name):
        """The library's full name for `name`, or None without
        lockswap_backend_name."""
        fn = getattr(self._dll, "lockswap_backend_name", None)
        if fn is None:
            return None
        fn.restype = ctypes.c_char_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        buf = ctypes.create_string_buffer(128)
        return fn(name.encode(), buf, 128).decode("utf-8", "replace")

    def has_arms(self):
        return self._arm_choose is not None

    def arm_choose(self, arms, key):
        """(index, the library's text)."""
        buf = ctypes.create_string_buffer(_ERRLEN)
        index = self._arm_choose(arms.encode(), key.encode(), buf, _ERRLEN)
        return index, buf.value.decode("utf-8", "replace")


class _InChild:
    """The same entry points, each called in a child Python process that
    loads the library alone (library_child.py).  For a library this
    process cannot load next to the ones it has: each build's thread-local
    state is initial-exec TLS (360 bytes), and glibc keeps only a small
    reserve of static TLS for libraries loaded after start-up, so an A/B of
    five builds (`-b NAME,LIB=PATH`) failed with "cannot allocate memory in
    static TLS block" (four loaded)."""

    def __init__(self, path):
        self.path = path
        self._text = None

    def _ask(self, verb, *args):
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = ("import sys; sys.path.insert(0, sys.argv[1]); "
                "from lockswap_cli.library_child import main; main(sys.argv[2:])")
        p = subprocess.run([sys.executable, "-c", code, package_parent, self.path, verb, *args],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            why = (p.stderr.strip().splitlines() or ["no output"])[-1]
            raise UsageError(f"{self.path}: not a usable lockswap library ({why})")
        return json.loads(p.stdout)

    def describe_text(self):
        # Asked once: load_entry_points asks first, to refuse a file that
        # is not a lockswap library, and Library.describe asks again.
        if self._text is None:
            self._text = self._ask("describe")
        return self._text

    def check(self, var, value):
        return tuple(self._ask("check", var, value))

    def backend_name(self, name):
        return self._ask("backend_name", name)

    def has_arms(self):
        return self._ask("has_arms")

    def arm_choose(self, arms, key):
        return tuple(self._ask("arm_choose", arms, key))


def load_entry_points(path):
    """_Loaded for the library at path, or _InChild where this process
    has no static TLS left for it; UsageError for a file that is not a
    lockswap library."""
    try:
        return _Loaded(ctypes.CDLL(path))
    except OSError as e:
        if "static TLS" in str(e):
            calls = _InChild(path)
            calls.describe_text()  # a library that does not load alone either fails here
            return calls
        raise UsageError(f"{path}: not a usable lockswap library ({e})") from None
    except AttributeError as e:
        raise UsageError(f"{path}: not a usable lockswap library ({e})") from None


class Library:
    """A loaded liblockswap.so and what it says about itself."""

    def __init__(self, path):
        self.path = path
        self._calls = load_entry_points(path)
        self._json = None

    def describe_text(self):
        """The raw JSON text, exactly as the library writes it."""
        return self._calls.describe_text()

    def describe(self):
        if self._json is None:
            text = self.describe_text()
            try:
                self._json = json.loads(text)
            except ValueError as e:
                raise UsageError(f"{self.path}: lockswap_describe returned bad JSON ({e})") from None
        return self._json

    @property
    def version(self):
        return self.describe().get("version", "?")

    def backends(self):
        return [b["name"] for b in self.describe().get("backends", [])]

    def options(self):
        return [o["name"] for o in self.describe().get("options", [])]

    def option(self, var):
        """The library's description of option var (a dict), or None."""
        return next((o for o in self.describe().get("options", []) if o["name"] == var), None)

    def default(self, var):
        """The library's default value of option var ("" for none)."""
        return (self.option(var) or {}).get("default") or ""

    def check(self, var, value):
        """None if LOCKSWAP_<var>=value is valid, else the library's
        one-line message (for an unknown variable, with the known ones; for
        a misspelt word, the closest accepted one)."""
        rc, msg = self._calls.check(var, value)
        if rc == 0:
            return None
        if var not in self.options() and "did you mean" not in msg:
            msg += f" (known: {', '.join(self.options())})"
        elif "did you mean" not in msg:
            msg = with_suggestion(msg, closest(value, accepted_words(self.option(var))))
        return msg

    def backend_name(self, name):
        """The full name of backend `name`: a wrapper given without :INNER
        gets the inner lock it really runs ("capacitor" -> "capacitor:tts");
        the name itself from a library without lockswap_backend_name."""
        full = self._calls.backend_name(name)
        return name if full is None else full

    @property
    def has_arms(self):
        return self._calls.has_arms()

    def require_arms(self):
        if not self.has_arms:
            raise UsageError(f"{self.path}: this liblockswap.so has no arms support "
                             "(no lockswap_arm_choose; rebuild it from a tree with LOCKSWAP_ARMS)")

    def arm_choose(self, arms, key):
        """(index, name) of the arm of LOCKSWAP_ARMS=arms that the library
        picks for the key string key (what it hashes: the pid as decimal,
        or the key variable's value); UsageError with the library's line
        for a bad list."""
        self.require_arms()
        index, text = self._calls.arm_choose(arms, key)
        if index < 0:
            raise UsageError(text)
        return index, text


BOOL_WORDS = ("on", "off", "yes", "no", "true", "false")


def accepted_words(option):
    """The words an option takes (a choice's names, a boolean's, the word
    a number option also takes, such as `adaptive`), from its description."""
    if not option:
        return []
    if option.get("kind") == "bool":
        return list(BOOL_WORDS)
    return [w for w in option.get("choices", "").replace(",", "|").split("|") if w]


def closest(value, words):
    """The word of words nearest to value, or None when none is close."""
    near = difflib.get_close_matches(value.strip().lower(), words, n=1, cutoff=0.6)
    return near[0] if near else None


def with_suggestion(msg, word):
    """msg with "; did you mean WORD?" after its first clause (before the
    list of accepted values, as the library words its own suggestions)."""
    if not word:
        return msg
    cut = msg.find(" (accepted")
    cut = len(msg) if cut < 0 else cut
    return f"{msg[:cut]}; did you mean {word}?{msg[cut:]}"


def load(path):
    """The Library at path (absolute), loaded once."""
    if path not in _loaded:
        _loaded[path] = Library(path)
    return _loaded[path]


def open_library(args):
    """The Library for parsed args (args.lib, args.script), loaded once."""
    return load(find(getattr(args, "lib", None), getattr(args, "script", None)))
