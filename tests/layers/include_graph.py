"""include_graph.py ROOT - the layering of lockswap's sources, checked.

C: every `#include "..."` of the library's sources (core/, backends/,
interpose/, stats/, native/) is an edge from the including module to the
included one, a module being a path without its extension (foo.c and foo.h
are one module).  The graph must have no circle, and the layers must point
one way:
    core/runtime  includes only core/runtime
    core/*        includes only core/
    backends/     includes neither interpose/ nor stats/
    core/, backends/  never include interpose/
    interpose/    reaches core/ only for the runtime and the condvar it
                  serves (core/runtime/, core/condvar/): mutex and rwlock
                  algorithms come to the shim through backends/' tables
Python: the modules of scripts/lockswap_cli must import each other without
a circle (every `from . import x` and `from .x import y`, at any depth of
the file, deferred imports included).

Prints one line per problem and exits 1 if there is any; --self-test runs
the checks on small synthetic trees, which must fail where they should."""
import os
import re
import shutil
import sys
import tempfile

C_DIRS = ("core", "backends", "interpose", "stats", "native")
C_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
PY_IMPORT = re.compile(r'^\s*from \.(\w*) import ([\w, ]+)', re.M)


def c_graph(root):
    graph = {}
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
    return graph


def module(path):
    return os.path.splitext(path)[0]


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


def problems(root):
    g = c_graph(root)
    out = [f"circle of C modules: {' -> '.join(c)}" for c in circles(g)]
    out += layer_problems(g)
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
    shutil.rmtree(into)
    return failed


def main():
    if sys.argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
