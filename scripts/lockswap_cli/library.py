"""Finding, loading and querying liblockswap.so.

The library describes itself (lockswap_describe: backends and options as
JSON) and checks values (lockswap_check_option), so the CLI keeps no list of
its own: whatever backends and options the built library has are the ones
the CLI offers and accepts.
"""
import ctypes
import json
import os

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


def candidates(script=None):
    """Where the library is looked for when --lib is not given, in order:
    <tree>/liblockswap.so for <tree>/scripts/lockswap (a built source tree),
    then <prefix>/lib/liblockswap.so for an installed <prefix>/bin/lockswap.
    Without the script's path, <tree> or <prefix> is found from this
    package's place (<tree>/scripts/ or <prefix>/share/lockswap/)."""
    if script:
        root = os.path.dirname(os.path.dirname(os.path.realpath(script)))
    else:
        parent = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        up = 1 if os.path.basename(parent) == "scripts" else 2
        root = parent
        for _ in range(up):
            root = os.path.dirname(root)
    return [os.path.join(root, LIBNAME), os.path.join(root, "lib", LIBNAME)]


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


class Library:
    """A loaded liblockswap.so and what it says about itself."""

    def __init__(self, path):
        self.path = path
        try:
            dll = ctypes.CDLL(path)
            self._dll = dll
            self._describe = dll.lockswap_describe
            self._check = dll.lockswap_check_option
        except (OSError, AttributeError) as e:
            raise UsageError(f"{path}: not a usable lockswap library ({e})") from None
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
        self._json = None

    def describe_text(self):
        """The raw JSON text, exactly as the library writes it."""
        size = 4096
        while True:
            buf = ctypes.create_string_buffer(size)
            need = self._describe(buf, size)
            if need < size:
                return buf.value.decode("utf-8", "replace")
            size = need + 1

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

    def check(self, var, value):
        """None if LOCKSWAP_<var>=value is valid, else the library's
        one-line message (for an unknown variable, with the known ones)."""
        err = ctypes.create_string_buffer(_ERRLEN)
        if self._check(var.encode(), value.encode(), err, _ERRLEN) == 0:
            return None
        msg = err.value.decode("utf-8", "replace")
        if var not in self.options() and "did you mean" not in msg:
            msg += f" (known: {', '.join(self.options())})"
        return msg

    def backend_name(self, name):
        """The full name of backend `name`: a wrapper given without :INNER
        gets the inner lock it really runs ("capacitor" -> "capacitor:tts");
        the name itself from a library without lockswap_backend_name."""
        fn = getattr(self._dll, "lockswap_backend_name", None)
        if fn is None:
            return name
        fn.restype = ctypes.c_char_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        buf = ctypes.create_string_buffer(128)
        return fn(name.encode(), buf, 128).decode("utf-8", "replace")

    @property
    def has_arms(self):
        return self._arm_choose is not None

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
        buf = ctypes.create_string_buffer(_ERRLEN)
        index = self._arm_choose(arms.encode(), key.encode(), buf, _ERRLEN)
        text = buf.value.decode("utf-8", "replace")
        if index < 0:
            raise UsageError(text)
        return index, text


def load(path):
    """The Library at path (absolute), loaded once."""
    if path not in _loaded:
        _loaded[path] = Library(path)
    return _loaded[path]


def open_library(args):
    """The Library for parsed args (args.lib, args.script), loaded once."""
    return load(find(getattr(args, "lib", None), getattr(args, "script", None)))
