"""backend_rows.py README < describe.json - every backend the library lists
(`lockswap list`: its mutex backends, a wrapper once as NAME:INNER, and its
rwlock backends) has a row of its own in the README's backend tables: the
first cell of a row of the table headed `| name |` (mutexes) or
`| rwlock |` (rwlocks) names it in backquotes.  Prints ok/FAIL lines."""
import json
import re
import sys


def first_cells(readme, header):
    """The backquoted names in the first cell of each row of the table whose
    header row starts with `header`."""
    names, inside = set(), False
    for line in open(readme):
        if line.startswith(header):
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        if inside and not line.startswith("|---"):
            names.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return names


desc = json.load(sys.stdin)
tables = {"mutex": first_cells(sys.argv[1], "| name |"),
          "rwlock": first_cells(sys.argv[1], "| rwlock |")}
want = []
for b in desc["backends"]:
    family, _, inner = b["name"].partition(":")
    want.append(("mutex", family + (":INNER" if inner else "")))
want += [("rwlock", b["name"]) for b in desc["rwlock_backends"]]
for kind, name in dict.fromkeys(want):
    if name in tables[kind]:
        print(f"ok - README's {kind} backend table has a row for {name}")
    else:
        print(f"FAIL - README's {kind} backend table has no row for {name} (`lockswap list` shows it)")
