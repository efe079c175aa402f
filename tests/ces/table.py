"""table.py ROOT LIB [--write] - the go-home table agrees with itself.

interpose/away/calls.def is the one list of the calls that send a
delegated critical section home.  Checked here, one line per fact:
  - every name in it is exported by LIB, unversioned (objdump -T: Base),
    so that it binds ahead of glibc's;
  - every name is one that glibc defines (so the look-up at start-up finds
    the function the wrapper calls);
  - docs/delegation.md's list (between <!-- away-calls:begin --> and
    <!-- away-calls:end -->) is the table's, reason by reason.
--write rewrites that part of docs/delegation.md from the table."""
import os
import re
import subprocess
import sys

ROW = re.compile(r"^LS_AWAY(?:_VOID|_NORETURN|_VA|_CUSTOM)?\(\s*(\w+)\s*,(.*)$", re.M)
BEGIN, END = "<!-- away-calls:begin -->", "<!-- away-calls:end -->"
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"


def rows(root):
    """(reason, name) in table order."""
    text = open(os.path.join(root, "interpose/away/calls.def")).read()
    out = []
    for m in ROW.finditer(text):
        reason, rest = m.group(1), m.group(2)
        macro = m.group(0).split("(", 1)[0]
        fields = [f.strip() for f in rest.split(",")]
        if macro in ("LS_AWAY", "LS_AWAY_VA"):
            name = fields[1]
        elif macro == "LS_AWAY_CUSTOM":
            name = fields[0].split(")")[0].strip()
        else:  # LS_AWAY_VOID, LS_AWAY_NORETURN
            name = fields[0]
        out.append((reason.lower(), name))
    return out


def exports(lib):
    out = subprocess.run(["objdump", "-T", lib], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 6 and f[3] == ".text":
            found[f[-1]] = f[-2]
    return found


def glibc_names():
    out = subprocess.run(["nm", "-D", "--defined-only", LIBC], capture_output=True, text=True,
                         check=True).stdout
    return {l.split()[-1].split("@")[0] for l in out.splitlines() if l.strip()}


def docs_block(table):
    by = {}
    for reason, name in table:
        by.setdefault(reason, []).append(name)
    lines = [BEGIN, "", "| reason (statistics: `handbacks`) | calls |", "|---|---|"]
    for reason, names in by.items():
        lines.append(f"| `{reason}` | " + ", ".join(f"`{n}`" for n in names) + " |")
    lines += ["", END]
    return "\n".join(lines)


def main():
    root, lib = sys.argv[1], sys.argv[2]
    table = rows(root)
    if not table:
        print("FAIL - calls.def: no rows read")
        return
    doc_path = os.path.join(root, "docs/delegation.md")
    doc = open(doc_path).read()
    block = docs_block(table)
    if "--write" in sys.argv:
        a, b = doc.index(BEGIN), doc.index(END) + len(END)
        open(doc_path, "w").write(doc[:a] + block + doc[b:])
        return
    ex = exports(lib)
    libc = glibc_names()
    unexported = [n for _, n in table if n not in ex]
    versioned = [n for _, n in table if n in ex and ex[n] != "Base"]
    print(("ok - " if not unexported else "FAIL - ")
          + f"calls.def: all {len(table)} calls are exported by the library"
          + (f" (missing: {' '.join(unexported)})" if unexported else ""))
    print(("ok - " if not versioned else "FAIL - ")
          + "calls.def: every one unversioned, so it binds ahead of glibc's"
          + (f" (versioned: {' '.join(versioned)})" if versioned else ""))
    not_glibc = [n for _, n in table if n not in libc]
    print(("ok - " if not not_glibc else "FAIL - ")
          + "calls.def: every one is a function glibc defines"
          + (f" (not in glibc: {' '.join(not_glibc)})" if not_glibc else ""))
    if BEGIN not in doc or END not in doc:
        print("FAIL - docs/delegation.md has no go-home list (markers missing)")
        return
    current = doc[doc.index(BEGIN):doc.index(END) + len(END)]
    print(("ok - " if current == block else "FAIL - ")
          + "docs/delegation.md lists the go-home calls of calls.def, by reason"
          + ("" if current == block else " (rewrite it: python3 tests/ces/table.py . liblockswap.so --write)"))


main()
