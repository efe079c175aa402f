"""include_graph.py ROOT [OBJDIR] - the layering of lockswap's sources, checked.

C: every `#include "..."` of the library's sources (core/, backends/,
interpose/, stats/, native/) is an edge from the including module to the
included one, a module being a path without its extension (foo.c and foo.h
are one module).  Every call matched by name in the sources is an edge
too (as a structure tool that reads no objects draws it: a call binds to
the caller's own function of that name, else to each module that defines
one it can see; macros are not followed).  With OBJDIR (the build's
objects, build/obj), every global symbol an object uses and another
defines (`nm`: a call, or a variable's use) is an edge too, so a circle
made of calls is seen though the modules share one header or a macro
makes the call.  Only the library's sources are read (bench/ is a
program of its own: its namesakes are not the library's).  The graph must have no circle (each is
printed as the path that closes it, with the symbol or include of each
step), and the layers must point one way.  The circles of calls that
tests/layers/known_circles.txt lists are known debt: printed, not failed,
until they are broken (then the list must lose them).  The layers:
    core/runtime  includes only core/runtime
    core/*        includes only core/
    backends/     includes neither interpose/ nor stats/
    core/, backends/  never include interpose/
    interpose/    reaches core/ only for the runtime and the condvar it
                  serves (core/runtime/, core/condvar/): mutex and rwlock
                  algorithms come to the shim through backends/' tables
Calls point down too: a module of core/, backends/, stats/ or native/
that calls (by name, or with OBJDIR in its object) a function that
interpose/ defines is a call back up into the shim (the library's own sleeps, yields, signal masks and I/O
once reached its own exported wrappers this way), and so is core/ using
one of backends/, stats/ or native/, and backends/ one of stats/.  Each
such call is printed with its symbol; those listed in
tests/layers/known_up_calls.txt (CALLER CALLEE SYMBOL) are debt, printed
but not failed, and a listed call that is no longer made fails.
Parking: only core/runtime/ and the embedder's park (interpose/entry/cancel.c)
name ls_futex_wait or ls_futex_wake; everything else parks through
core/runtime/wait.h (docs/hacking.md, "Changing how waiters park").
Python: the modules of scripts/lockswap_cli must import each other without
a circle (every `from . import x` and `from .x import y`, at any depth of
the file, deferred imports included).

Prints one line per problem and exits 1 if there is any; --self-test runs
the checks on small synthetic trees, which must fail where they should."""
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

C_DIRS = ("core", "backends", "interpose", "stats", "native")
C_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
PY_IMPORT = re.compile(r'^\s*from \.(\w*) import ([\w, ]+)', re.M)
FUTEX_CALL = re.compile(r'\bls_futex_(wait|wake)\s*\(')
FUTEX_ALLOWED = ("core/runtime/", "interpose/entry/cancel.c")


def c_graph(root, why=None):
    """Module -> the modules it includes; why[(a, b)] says how."""
    graph = {}
    why = {} if why is None else why
    for top in C_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".def")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                with open(path, errors="replace") as fh:
                    text = fh.read()
                deps = graph.setdefault(module(rel), set())
                for inc in C_INCLUDE.findall(text):
                    target = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
                    if module(target) != module(rel):
                        deps.add(module(target))
                        why.setdefault((module(rel), module(target)), f"#include \"{inc}\"")
    return graph


def symbols(obj):
    """(defined, used) global symbols of one object file, by nm."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            used.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, used


def call_graph(root, objdir, why, names=None):
    """Module -> the modules whose global symbols it uses (objects of
    sources that no longer exist, left by a rename, are skipped);
    names[(a, b)] gets every symbol of an edge."""
    names = {} if names is None else names
    owner, uses = {}, {}
    for d, _, files in os.walk(objdir):
        for f in sorted(files):
            if f.endswith(".o"):
                path = os.path.join(d, f)
                mod = module(os.path.relpath(path, objdir))
                if not os.path.exists(os.path.join(root, mod + ".c")):
                    continue
                defined, uses[mod] = symbols(path)
                for name in defined:
                    owner[name] = mod
    graph = {}
    for mod, used in uses.items():
        deps = graph.setdefault(mod, set())
        for name in sorted(used):
            dst = owner.get(name)
            if dst and dst != mod:
                deps.add(dst)
                why.setdefault((mod, dst), f"uses {name}")
                names.setdefault((mod, dst), set()).add(name)
    return graph


NAME_DEF = re.compile(r'(?:^|[;}])\s*((?:(?:[A-Za-z_]\w*|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\))[\s\*]+)+)([A-Za-z_]\w*)\s*\(([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)\)\s*(?:__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)\s*)*\{')
NAME_CALL = re.compile(r'(?<![.>\w])([A-Za-z_]\w*)\s*\(')
NOT_CALLS = {"if", "while", "for", "switch", "return", "sizeof", "defined", "__attribute__",
             "_Alignof", "alignof", "__typeof__", "typeof", "_Static_assert", "do", "_Generic",
             "__asm__", "asm", "__builtin_expect", "else", "case"}


def bare_c(text):
    """C text without comments, strings, characters and preprocessor lines."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', '', text, flags=re.M)


def functions(text):
    """(name, is static, body) of each function defined in bare C text."""
    out = []
    for m in NAME_DEF.finditer(text):
        words = m.group(1).split()
        if words[0] in NOT_CALLS or m.group(2) in NOT_CALLS or words[-1] in ("return", "else"):
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(2), "static" in words, text[m.end():i]))
    return out


def name_graph(root, why):
    """Module -> the modules whose functions it calls, matched by name
    from the sources alone (as a structure tool that reads no objects
    does): a call binds to the caller's own function of that name if it
    has one, else to every module that defines it and lets it be seen
    (a static function of a .c file is seen only there; a header's static
    inline function by every includer).  Macros are not followed."""
    defs, calls = {}, {}
    for top in C_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)
                mod = module(rel)
                with open(os.path.join(root, rel), errors="replace") as fh:
                    text = bare_c(fh.read())
                own = calls.setdefault(mod, [set(), set()])
                for name, static, body in functions(text):
                    own[0].add(name)
                    if not (static and f.endswith(".c")):
                        defs.setdefault(name, set()).add(mod)
                    own[1].update(n for n in NAME_CALL.findall(body) if n not in NOT_CALLS)
    graph = {}
    for mod, (mine, used) in calls.items():
        deps = graph.setdefault(mod, set())
        for name in sorted(used - mine):
            for dst in sorted(defs.get(name, ())):
                if dst != mod:
                    deps.add(dst)
                    why.setdefault((mod, dst), f"calls {name}")
    return graph


def circle_path(graph, comp):
    """One closed path through a strongly connected component: from its
    first module, the shortest way back to it (breadth first)."""
    start, inside = comp[0], set(comp)
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(graph.get(v, ())):
            if w not in inside:
                continue
            if w == start:
                back = [v]
                while prev[back[-1]] is not None:
                    back.append(prev[back[-1]])
                return back[::-1] + [start]
            if w not in prev:
                prev[w] = v
                todo.append(w)
    return comp


def describe(path, why):
    steps = [f"{a} -> {b} ({why.get((a, b), '?')})" for a, b in zip(path, path[1:])]
    return "; ".join(steps)


def futex_problems(root):
    out = []
    for top in C_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(d, f), root)
                if not f.endswith((".c", ".h")) or rel.startswith(FUTEX_ALLOWED):
                    continue
                with open(os.path.join(root, rel), errors="replace") as fh:
                    if FUTEX_CALL.search(fh.read()):
                        out.append(f"parking: {rel} calls ls_futex_* directly "
                                   "(park through core/runtime/wait.h)")
    return out


def module(path):
    return os.path.splitext(path)[0]


def call_rule(src, dst):
    """Why a call (a use of another object's symbol) from src to dst runs
    back up the layers, or None."""
    if dst.startswith("interpose/") and src.startswith(("core/", "backends/", "stats/", "native/")):
        return "the shim is the top layer: nothing below it calls into it"
    if src.startswith("core/") and dst.startswith(("backends/", "stats/", "native/")):
        return "core/ calls only core/"
    if src.startswith("backends/") and dst.startswith("stats/"):
        return "backends/ never call the statistics"
    return None


def call_problems(calls, names, allowed=frozenset(), seen=None):
    """One problem per symbol a lower layer uses from a higher one, but
    those `allowed` ((src, dst, symbol), tests/layers/known_up_calls.txt:
    debt, reported on stderr); `seen` collects the allowed ones found."""
    out = []
    seen = set() if seen is None else seen
    for src, deps in sorted(calls.items()):
        for dst in sorted(deps):
            rule = call_rule(src, dst)
            if not rule:
                continue
            for name in sorted(names.get((src, dst), {"?"})):
                text = f"layering: {src} calls up into {dst} (uses {name}: {rule})"
                if (src, dst, name) in allowed:
                    seen.add((src, dst, name))
                    print(f"known {text}", file=sys.stderr)
                else:
                    out.append(text)
    return out


def layer_problems(graph):
    out = []
    for src, deps in sorted(graph.items()):
        for dst in sorted(deps):
            why = layer_rule(src, dst)
            if why:
                out.append(f"layering: {src} includes {dst} ({why})")
    return out


def layer_rule(src, dst):
    if src.startswith("core/runtime/") and not dst.startswith("core/runtime/"):
        return "core/runtime includes only core/runtime"
    if src.startswith("core/") and not dst.startswith("core/"):
        return "core/ includes only core/"
    if src.startswith("backends/") and dst.startswith(("interpose/", "stats/")):
        return "backends/ includes neither interpose/ nor stats/"
    if (src.startswith("interpose/") and dst.startswith("core/")
            and not dst.startswith(("core/runtime/", "core/condvar/"))):
        return "interpose/ reaches algorithms only through backends/"
    return None


def py_graph(pkg):
    graph = {}
    for f in sorted(os.listdir(pkg)):
        if not f.endswith(".py"):
            continue
        name = f[:-3]
        with open(os.path.join(pkg, f)) as fh:
            text = fh.read()
        deps = graph.setdefault(name, set())
        for mod, names in PY_IMPORT.findall(text):
            if mod:
                deps.add(mod)
            else:  # from . import a, b as c
                deps.update(n.split()[0] for n in names.split(",") if n.strip())
        deps.discard(name)
        deps.discard("__init__")
    return graph


def circles(graph):
    """The strongly connected components with more than one module
    (Tarjan's algorithm, iterative)."""
    index, low, on, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = counter
                counter += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(graph.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return found


def problems(root, objdir=None, known=(), allowed=frozenset()):
    """The problems found; a circle whose modules are exactly those of a
    `known` one is reported on stderr instead (a debt being paid off),
    and a known circle that is gone is a problem (the list must shrink);
    likewise an `allowed` call up ((src, dst, symbol)) that is gone."""
    why = {}
    g = c_graph(root, why)
    out = layer_problems(g)
    names = {}
    calls = name_graph(root, why)
    for (src, dst), how in why.items():
        if how.startswith("calls ") and dst in calls.get(src, ()):
            names.setdefault((src, dst), set()).add(how[len("calls "):])
    if objdir:
        for mod, deps in call_graph(root, objdir, why, names).items():
            calls.setdefault(mod, set()).update(deps)
    seen_calls = set()
    out += call_problems(calls, names, allowed, seen_calls)
    for mod, deps in calls.items():
        g.setdefault(mod, set()).update(deps)
    for src, dst, name in sorted(set(allowed) - seen_calls):
        out.append(f"the known call up {src} -> {dst} ({name}) is gone: "
                   "remove it from tests/layers/known_up_calls.txt")
    seen = set()
    for c in circles(g):
        text = f"circle of C modules ({len(c)}: {' '.join(c)}): " + describe(circle_path(g, c), why)
        if frozenset(c) in known:
            seen.add(frozenset(c))
            print(f"known {text}", file=sys.stderr)
        else:
            out.append(text)
    for c in known:
        if c not in seen:
            out.append(f"the known circle {' '.join(sorted(c))} is gone or changed: "
                       "update tests/layers/known_circles.txt")
    out += futex_problems(root)
    pkg = os.path.join(root, "scripts", "lockswap_cli")
    if os.path.isdir(pkg):
        out += [f"circle of lockswap_cli modules: {' -> '.join(c)}" for c in circles(py_graph(pkg))]
    return out


def tree(files, into):
    root = tempfile.mkdtemp(prefix="tree-", dir=into)
    for path, text in files.items():
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    return root


class Checks:
    """A self-test's ok/FAIL lines, and how many failed."""

    def __init__(self):
        self.failed = 0

    def check(self, what, ok, got):
        print(f"ok - self-test: {what} ({got})" if ok else f"FAIL - self-test: {what}: {got}")
        self.failed += 0 if ok else 1


def listed_lines(path):
    """The entries of a list file (known_circles.txt, known_up_calls.txt):
    each line's words, blank lines and # comments left out; none if the
    file is missing."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


def self_test():
    good = {
        "core/runtime/wait.h": "",
        "core/mutex/lock.c": '#include "lock.h"\n#include "../runtime/wait.h"\n',
        "core/mutex/lock.h": '#include "../runtime/wait.h"\n',
        "backends/lock.c": '#include "../core/mutex/lock.h"\n',
        "interpose/a.c": '#include "a.h"\n#include "b.h"\n#include "../backends/lock.h"\n',
        "interpose/b.h": "",
        "scripts/lockswap_cli/x.py": "from . import y\n",
        "scripts/lockswap_cli/y.py": "import os\n",
    }
    bad = [
        ("a circle of three C modules",
         {"interpose/a.c": '#include "b.h"\n', "interpose/b.c": '#include "c.h"\n',
          "interpose/c.c": '#include "a.h"\n'}, "circle of C modules"),
        ("a .c and another's .h include each other",
         {"interpose/a.c": '#include "b.h"\n', "interpose/b.c": '#include "a.h"\n'},
         "circle of C modules"),
        ("core/runtime includes an algorithm",
         {"core/runtime/wait.c": '#include "../mutex/lock.h"\n'}, "core/runtime includes only"),
        ("core/ includes backends/",
         {"core/mutex/lock.c": '#include "../../backends/lock.h"\n'}, "core/ includes only core/"),
        ("backends/ includes interpose/",
         {"backends/lock.c": '#include "../interpose/b.h"\n'}, "backends/ includes neither"),
        ("interpose/ includes a mutex algorithm",
         {"interpose/a.c": '#include "../core/mutex/lock.h"\n'},
         "interpose/ reaches algorithms only through backends/"),
        ("an algorithm calls the futex directly",
         {"core/mutex/lock.c": '#include "../runtime/futex.h"\nvoid f(void) { ls_futex_wake(0, 1); }\n'},
         "parking: core/mutex/lock.c calls ls_futex_"),
        ("a deferred Python import closes a circle",
         {"scripts/lockswap_cli/y.py": "def f():\n    from .x import g\n"},
         "circle of lockswap_cli modules"),
    ]
    checks = Checks()
    into = tempfile.mkdtemp(prefix="layers-")
    got = problems(tree(good, into))
    checks.check("a well-layered tree passes", not got, got or "no problem")
    for what, change, expect in bad:
        got = [p for p in problems(tree({**good, **change}, into)) if expect in p]
        checks.check(f"{what} is found", got, got[0] if got else "not found")
    failed = checks.failed + call_self_test(good, into)
    shutil.rmtree(into)
    return failed


def compile_tree(root, paths):
    """Objects of the given sources under root/obj, as the build lays them out."""
    objdir = os.path.join(root, "obj")
    for path in paths:
        os.makedirs(os.path.join(objdir, os.path.dirname(path)), exist_ok=True)
        subprocess.run(["cc", "-c", "-o", os.path.join(objdir, module(path) + ".o"),
                        os.path.join(root, path)], check=True)
    return objdir


def quiet(fn, *args, **kw):
    with contextlib.redirect_stderr(io.StringIO()):
        return fn(*args, **kw)


def call_self_test(good, into):
    """Calls: matched by name from the sources, and read from the objects
    (which see what a macro hides); namesakes that C keeps apart are no
    call; known debt is not failed, and debt that is paid must leave its
    list."""
    checks = Checks()
    check = checks.check

    # By name: two modules that call each other under one shared header.
    named = {
        "stats/impl.h": "void a_run(void);\nvoid b_run(void);\nvoid a_done(void);\n",
        "stats/a.c": '#include "impl.h"\nvoid a_run(void) { b_run(); }\nvoid a_done(void) {}\n',
        "stats/b.c": '#include "impl.h"\nvoid b_run(void) { a_done(); }\n',
    }
    got = [p for p in problems(tree({**good, **named}, into)) if "circle of C modules" in p]
    check("a circle of calls matched by name, under one shared header, is found",
          got and "calls b_run" in got[0] and "calls a_done" in got[0], got)

    # Namesakes: each file's static helper is its own, a struct member
    # called through a pointer is no function: no circle.
    namesakes = {
        "stats/a.c": "void b_run(void);\nstatic void helper(void) {}\n"
                     "void a_run(void) { helper(); b_run(); }\n",
        "stats/b.c": "struct ops { void (*a_run)(void); };\nstatic void helper(void) {}\n"
                     "void b_run(struct ops *o) { helper(); o->a_run(); }\n",
    }
    got = [p for p in problems(tree({**good, **namesakes}, into)) if "circle" in p]
    check("static namesakes and calls through a pointer are not matched as calls",
          not got, got or "no circle")

    # Objects: a call that a macro hides from the name matcher.
    hidden = {
        "stats/impl.h": "void a_run(void);\nvoid b_run(void);\nvoid a_done(void);\n",
        "stats/a.c": '#include "impl.h"\n#define RUN() b_run()\n'
                     'void a_run(void) { RUN(); }\nvoid a_done(void) {}\n',
        "stats/b.c": '#include "impl.h"\nvoid b_run(void) { a_done(); }\n',
    }
    root = tree({**good, **hidden}, into)
    objdir = compile_tree(root, ("stats/a.c", "stats/b.c"))
    without = [p for p in problems(root) if "circle" in p]
    got = [p for p in problems(root, objdir) if "circle of C modules" in p]
    check("a circle of calls that only the objects show is found from them",
          not without and got and "uses b_run" in got[0], f"{got}; by name alone: {without}")
    listed = quiet(problems, root, objdir, {frozenset(("stats/a", "stats/b"))})
    changed = quiet(problems, root, objdir, {frozenset(("stats/a", "stats/c"))})
    check("a listed circle is not failed, and a listed circle that is not found fails",
          not [p for p in listed if "circle" in p] and [p for p in changed if "gone or changed" in p],
          f"listed: {listed}; another listed: {changed}")
    return checks.failed + up_call_self_test(good, into)


def up_call_self_test(good, into):
    """A statistics module that calls a function the shim defines (as
    stats/ once called nanosleep, which interpose/ wraps), through a
    macro, so that only the objects say so; and the same tree with the
    call made to core/ instead, which is clean."""
    checks = Checks()
    check = checks.check

    files = {
        "interpose/wrap.c": "int nap(int n) { return n; }\n",
        "core/runtime/rest.c": "int rest(int n) { return n; }\n",
        "stats/writer.c": "int nap(int n);\n#define NAP(n) nap(n)\n"
                          "int write_out(void) { return NAP(1); }\n",
    }
    root = tree({**good, **files}, into)
    objdir = compile_tree(root, files)
    got = [p for p in problems(root, objdir) if "calls up into" in p]
    check("a call from stats/ up into interpose/ is found, with the call printed",
          got and "stats/writer calls up into interpose/wrap (uses nap" in got[0], got)
    allowed = {("stats/writer", "interpose/wrap", "nap")}
    listed = quiet(problems, root, objdir, allowed=allowed)
    check("a listed call up (known_up_calls.txt) is not failed", not listed, listed or "none")

    clean = {**files, "stats/writer.c": "int rest(int n);\nint write_out(void) { return rest(1); }\n"}
    root = tree({**good, **clean}, into)
    objdir = compile_tree(root, clean)
    got = problems(root, objdir)
    check("the same tree calling core/ instead passes", not got, got or "no problem")
    stale = quiet(problems, root, objdir, allowed=allowed)
    check("a listed call up that is no longer made fails (the list only shrinks)",
          [p for p in stale if "known_up_calls.txt" in p], stale)

    by_name = {"interpose/wrap.c": "int nap(int n) { return n; }\n",
               "core/mutex/lock.c": "int nap(int n);\nint sleepy(void) { return nap(2); }\n"}
    got = [p for p in problems(tree({**good, **by_name}, into)) if "calls up into" in p]
    check("a call from core/ up into interpose/ is found by name, without objects",
          got and "core/mutex/lock calls up into interpose/wrap (uses nap" in got[0], got)
    return checks.failed


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    root = sys.argv[1]
    objdir = sys.argv[2] if len(sys.argv) > 2 else None
    lists = os.path.join(root, "tests", "layers")
    known = ({frozenset(e) for e in listed_lines(os.path.join(lists, "known_circles.txt"))}
             if objdir else set())
    allowed = {tuple(e) for e in listed_lines(os.path.join(lists, "known_up_calls.txt"))}
    found = problems(root, objdir, known, allowed)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
