"""include_graph.py ROOT [OBJDIR] - the layering of lockswap's sources, checked.

C: every `#include "..."` of the library's sources (core/, backends/,
interpose/, stats/, native/) is an edge from the including module to the
included one, a module being a path without its extension (foo.c and foo.h
are one module).  With OBJDIR (the build's objects, build/obj), every
global symbol an object uses and another defines (`nm`: a call, or a
variable's use) is an edge too, so a circle made of calls is seen though
the modules share one header.  The graph must have no circle (each is
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
Calls point down too: with OBJDIR, an object of core/, backends/, stats/
or native/ that uses a symbol an interpose/ object defines is a call back
up into the shim (the library's own sleeps, yields, signal masks and I/O
once reached its own exported wrappers this way), and so is core/ using
one of backends/, stats/ or native/, and backends/ one of stats/.
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


def call_graph(root, objdir, why):
    """Module -> the modules whose global symbols it uses (objects of
    sources that no longer exist, left by a rename, are skipped)."""
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


def call_problems(calls, why):
    out = []
    for src, deps in sorted(calls.items()):
        for dst in sorted(deps):
            rule = call_rule(src, dst)
            if rule:
                out.append(f"layering: {src} calls up into {dst} ({why.get((src, dst), '?')}: {rule})")
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


def problems(root, objdir=None, known=()):
    """The problems found; a circle whose modules are exactly those of a
    `known` one is reported on stderr instead (a debt being paid off),
    and a known circle that is gone is a problem (the list must shrink)."""
    why = {}
    g = c_graph(root, why)
    out = layer_problems(g)
    if objdir:
        calls = call_graph(root, objdir, why)
        out += call_problems(calls, why)
        for mod, deps in calls.items():
            g.setdefault(mod, set()).update(deps)
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
    failed = 0
    into = tempfile.mkdtemp(prefix="layers-")
    got = problems(tree(good, into))
    if got:
        print(f"FAIL - self-test: a well-layered tree gives {got}")
        failed += 1
    else:
        print("ok - self-test: a well-layered tree passes")
    for what, change, expect in bad:
        got = [p for p in problems(tree({**good, **change}, into)) if expect in p]
        if got:
            print(f"ok - self-test: {what} is found ({got[0]})")
        else:
            print(f"FAIL - self-test: {what} is not found")
            failed += 1
    failed += call_self_test(good, into)
    shutil.rmtree(into)
    return failed


def call_self_test(good, into):
    """Two stats modules that share one header and call each other: no
    include circle, but a circle of calls, found only in the objects."""
    calls = {
        "stats/impl.h": "void a_run(void);\nvoid b_run(void);\nvoid a_done(void);\n",
        "stats/a.c": '#include "impl.h"\nvoid a_run(void) { b_run(); }\nvoid a_done(void) {}\n',
        "stats/b.c": '#include "impl.h"\nvoid b_run(void) { a_done(); }\n',
    }
    root = tree({**good, **calls}, into)
    objdir = os.path.join(root, "obj")
    for name in ("a", "b"):
        os.makedirs(os.path.join(objdir, "stats"), exist_ok=True)
        subprocess.run(["cc", "-c", "-o", os.path.join(objdir, "stats", name + ".o"),
                        os.path.join(root, "stats", name + ".c")], check=True)
    without = [p for p in problems(root) if "circle" in p]
    got = [p for p in problems(root, objdir) if "circle of C modules" in p]
    if without or not got or "uses b_run" not in got[0] or "uses a_done" not in got[0]:
        print(f"FAIL - self-test: a circle of calls is not found as one (includes only: "
              f"{without}; with objects: {got})")
        return 1
    print(f"ok - self-test: a circle of calls under one shared header is found ({got[0]})")
    with contextlib.redirect_stderr(io.StringIO()):
        listed = problems(root, objdir, {frozenset(("stats/a", "stats/b"))})
        changed = problems(root, objdir, {frozenset(("stats/a", "stats/c"))})
    if [p for p in listed if "circle" in p] or not [p for p in changed if "gone or changed" in p]:
        print(f"FAIL - self-test: known circles are not handled (listed: {listed}; "
              f"another listed: {changed})")
        return 1
    print("ok - self-test: a listed circle is not failed, and a listed circle that is not "
          "found fails")
    return up_call_self_test(good, into)


def up_call_self_test(good, into):
    """A statistics module that calls a function the shim defines (as
    stats/ once called nanosleep, which interpose/ wraps): no include says
    so, the objects do."""
    files = {
        "interpose/wrap.c": "int nap(int n) { return n; }\n",
        "stats/writer.c": "int nap(int n);\nint write_out(void) { return nap(1); }\n",
    }
    root = tree({**good, **files}, into)
    objdir = os.path.join(root, "obj")
    for path in files:
        os.makedirs(os.path.join(objdir, os.path.dirname(path)), exist_ok=True)
        subprocess.run(["cc", "-c", "-o", os.path.join(objdir, module(path) + ".o"),
                        os.path.join(root, path)], check=True)
    got = [p for p in problems(root, objdir) if "calls up into" in p]
    if not got or "uses nap" not in got[0]:
        print(f"FAIL - self-test: a call from stats/ up into interpose/ is not found ({got})")
        return 1
    print(f"ok - self-test: a call from stats/ up into interpose/ is found ({got[0]})")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    root = sys.argv[1]
    objdir = sys.argv[2] if len(sys.argv) > 2 else None
    known = set()
    listed = os.path.join(root, "tests", "layers", "known_circles.txt")
    if objdir and os.path.exists(listed):
        with open(listed) as f:
            known = {frozenset(line.split()) for line in f
                     if line.strip() and not line.startswith("#")}
    found = problems(root, objdir, known)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
