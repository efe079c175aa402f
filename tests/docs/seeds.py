#!/usr/bin/env python3
"""docs/seeds.md: every reference text has its table, every row a verdict
from the page's vocabulary, every relative link a file behind it.

Prints "ok - ..." / "FAIL - ..." lines for tests/docs/run.sh.
Usage: seeds.py ROOT"""
import os
import re
import sys

TEXTS = ("Batched Critical Sections", "Building a small, fast Mutex",
         "Combine-and-Exchange Locks", "Capacitors", "The Combining Lock")
VERDICTS = ("reproduced", "refuted", "partly", "not measured", "not reproduced")
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")

root = sys.argv[1]
page = os.path.join(root, "docs", "seeds.md")
with open(page) as f:
    lines = f.read().splitlines()

for text in TEXTS:
    if any(l.startswith("## ") and text in l for l in lines):
        print("ok - docs/seeds.md has a section for %s" % text)
    else:
        print("FAIL - docs/seeds.md has no section for %s" % text)

rows = 0
for n, line in enumerate(lines, 1):
    cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| ") else []
    if len(cells) != 4 or cells[0] == "#" or set(cells[0]) <= set("-"):
        continue
    rows += 1
    if not cells[3].startswith(VERDICTS):
        print("FAIL - docs/seeds.md:%d: row %s has no verdict (%s...)" % (n, cells[0], cells[3][:40]))
if rows:
    print("ok - docs/seeds.md: %d claim rows checked for a verdict" % rows)
else:
    print("FAIL - docs/seeds.md has no claim rows")

missing = 0
for n, line in enumerate(lines, 1):
    for target in LINK.findall(line):
        if "://" in target:
            continue
        if not os.path.exists(os.path.join(root, "docs", target)):
            missing += 1
            print("FAIL - docs/seeds.md:%d links to missing %s" % (n, target))
if not missing:
    print("ok - every relative link of docs/seeds.md exists")
