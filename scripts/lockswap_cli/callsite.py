"""The user's call site in a frame or a stack, for `lockswap report`.

A lock call's return address lies in whatever called pthread_mutex_lock,
which in C++ is the standard library's wrapper: at -O0 a real function
(`__gthread_mutex_lock`, `std::mutex::lock`, `std::lock_guard`'s
constructor, each a frame of its own), at -O2 the same functions inlined
into the user's function, itself often inlined into std::thread's
machinery.  As pprof drops the runtime's frames, the report skips them:

- A frame's levels are its inline chain (addr2line -i, innermost first),
  else its one symbol.  A level is a wrapper when its line is in a
  system header (/usr/include, the compiler's own headers) or its name
  is one of the standard library's lock wrappers; a whole frame is one
  when its object is the C or C++ runtime (libc, libstdc++ ...), whose
  lock functions (std::condition_variable::wait ...) are not inlined.
- The site is the innermost level of the first frame that is not a
  wrapper: the user's function and the line of the call.  The outermost
  wrapper skipped on the way names the API it called ([std::lock_guard]).
- A stack whose every frame is a wrapper keeps its first frame.

Template arguments are shortened for tables only (`store::Cache<…>::put`);
the JSON and pprof output keep the whole names.
"""
import os
import re

SYSTEM_SOURCES = ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/c++/")
RUNTIME_OBJECT = re.compile(r"(libc|libpthread|libstdc\+\+|libc\+\+|libc\+\+abi|libgcc_s)"
                            r"\.so(\.[0-9.]+)?$")
# The standard library's lock wrappers, by name without template
# arguments, parameters or return type; a class covers its members.
WRAPPER_CLASSES = frozenset((
    "std::mutex", "std::recursive_mutex", "std::timed_mutex", "std::recursive_timed_mutex",
    "std::shared_mutex", "std::shared_timed_mutex", "std::__shared_mutex_pthread",
    "std::__shared_mutex_cv", "std::__mutex_base", "std::__recursive_mutex_base",
    "std::__timed_mutex_impl", "std::lock_guard", "std::unique_lock", "std::scoped_lock",
    "std::shared_lock", "std::condition_variable", "std::_V2::condition_variable_any",
    "std::condition_variable_any", "std::__condvar"))
WRAPPER_FUNCTIONS = frozenset(("std::lock", "std::try_lock", "std::__try_lock_impl",
                               "std::__detail::__lock_impl", "std::__detail::__try_lock_impl"))
WRAPPER_PREFIXES = ("__gthread_", "std::__gthread_", "std::__glibcxx_rwlock_")
OPEN, CLOSE = "<({", ">)}"
OPERATOR_CHARS = set("<>=!+-*/%^&|~[]()," + " ")


def _operator_end(name, i):
    """Where the operator name that starts at NAME[i] ("operator<<",
    "operator()") ends; i itself if none starts there."""
    if not name.startswith("operator", i) or (i and (name[i - 1].isalnum() or name[i - 1] == "_")):
        return i
    j = i + len("operator")
    if name.startswith("()", j):
        return j + 2
    while j < len(name) and name[j] in OPERATOR_CHARS - set("( "):
        j += 1
    return j


def _top_level(name):
    """[(text, depth)] pieces of NAME: text at depth 0 and the bracketed
    groups at depth 0 (whole, brackets included, depth 1); None if the
    brackets do not balance."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(name):
        end = _operator_end(name, i)
        if end > i:
            i = end
            continue
        c = name[i]
        if c in OPEN:
            if depth == 0:
                out.append((name[start:i], 0))
                start = i
            depth += 1
        elif c in CLOSE:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                out.append((name[start:i + 1], 1))
                start = i + 1
        i += 1
    if depth:
        return None
    out.append((name[start:], 0))
    return [p for p in out if p[0]]


def short_templates(text):
    """`store::Cache<long>::put(...)` -> `store::Cache<…>::put(...)`: each
    template argument list at the top level becomes <…>."""
    parts = _top_level(text)
    if parts is None:
        return text
    return "".join("<\u2026>" if depth and p.startswith("<") else p for p, depth in parts)


def qualified(name):
    """`void std::condition_variable::wait<P>(std::unique_lock<...>&, P)` ->
    `std::condition_variable::wait`: no return type, template arguments
    or parameters."""
    parts = _top_level(name or "")
    if not parts:
        return name or ""
    head = []
    for p, depth in parts:
        if depth and p.startswith("("):
            break
        if not depth:
            head.append(p)
    return "".join(head).strip().rsplit(" ", 1)[-1]


def wrapper_name(name):
    """The API a wrapper level stands for (`std::lock_guard`,
    `std::mutex::lock`), or None if NAME is not a lock wrapper."""
    q = qualified(name)
    if q.startswith(WRAPPER_PREFIXES) or q in WRAPPER_FUNCTIONS:
        return q
    cls, _, member = q.rpartition("::")
    if cls in WRAPPER_CLASSES:
        # A constructor or destructor stands for its class.
        return cls if member.lstrip("~") == cls.rsplit("::", 1)[-1] else q
    return None


def system_source(location):
    return bool(location) and location.startswith(SYSTEM_SOURCES)


def runtime_object(frame):
    obj = frame.get("_object") or frame.get("object") or ""
    return bool(RUNTIME_OBJECT.search(os.path.basename(obj)))


def levels(frame):
    """[[name, location]] innermost first: the inline chain, else the
    frame's symbol and line.  addr2line names the innermost level after
    the function that holds the code when the inlined function has no
    linkage name (gthr-default.h's `static inline` functions): that level
    is then unnamed; the outermost level is the symbol's whole name."""
    chain = [list(level) for level in frame.get("inlined") or ()]
    sym = frame.get("symbol")
    if not chain:
        return [[sym, frame.get("source")]]
    if len(chain) > 1 and sym and chain[0][0] == sym:
        chain[0][0] = None
    if sym:
        chain[-1][0] = sym
    return chain


def user_level(frame):
    """(name, location, wrapper) of the innermost level of FRAME that is
    the user's (name and location None where unknown), or (False,
    wrapper) if every level is a wrapper; WRAPPER is the outermost lock
    wrapper skipped (or None)."""
    wrapper = None
    every = levels(frame)
    for name, location in every:
        called = wrapper_name(name) if name else None
        if called or system_source(location) or runtime_object(frame):
            wrapper = called or wrapper
            continue
        return name or frame.get("symbol"), location, wrapper
    return False, wrapper


def user_frame(frames):
    """(frame, name, location, wrapper): the user's site in a stack
    (innermost first); the first frame as it is when none is the user's."""
    wrapper = None
    for f in frames:
        level = user_level(f)
        if level[0] is not False:
            return f, level[0], level[1], level[2] or wrapper
        wrapper = level[1] or wrapper
    return frames[0], frames[0].get("symbol"), frames[0].get("source"), None
