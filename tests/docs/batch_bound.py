#!/usr/bin/env python3
"""The ces batch bound as the docs state it equals LS_CES_BATCH.

   batch_bound.py ROOT   -> "ok - ..." / "FAIL - ..." lines

The bound is written once in code (core/delegation/ces.h, LS_CES_BATCH;
the backend's description and the statistics read it from there).  The
README and docs/delegation.md state it in prose; each sentence below must
still be found (a rewording fails here, so that it is looked at) and its
number must equal the constant.
"""
import re
import sys

# (file, what the sentence says, pattern whose group 1 is the number)
STATEMENTS = [
    ("README.md", "ces row: the releaser runs up to N sections",
     r"runs up to (\d+) queued waiters' critical sections"),
    ("docs/delegation.md", "a batch is at most `LS_CES_BATCH` (N) sections",
     r"A batch is at most `LS_CES_BATCH` \((\d+)\) sections"),
    ("docs/delegation.md", "a releaser's own code waits for at most N sections",
     r"own code therefore waits for at most\s+(\d+)"),
    ("docs/delegation.md", "a releaser's signal runs at most N sections late",
     r"at most (\d+) sections late"),
]


def main(root):
    header = open(f"{root}/core/delegation/ces.h", encoding="utf-8").read()
    m = re.search(r"^#define LS_CES_BATCH (\d+)\b", header, re.M)
    if not m:
        print("FAIL - core/delegation/ces.h defines no LS_CES_BATCH number")
        return
    bound = int(m.group(1))
    texts = {}
    for path, what, pattern in STATEMENTS:
        if path not in texts:
            texts[path] = open(f"{root}/{path}", encoding="utf-8").read()
        found = [int(n) for n in re.findall(pattern, texts[path])]
        if not found:
            print(f"FAIL - {path}: the sentence '{what}' is gone (reworded? update tests/docs/batch_bound.py)")
        elif any(n != bound for n in found):
            print(f"FAIL - {path}: '{what}' says {found}, LS_CES_BATCH is {bound}")
        else:
            print(f"ok - {path}: '{what}' says {bound} = LS_CES_BATCH")


if __name__ == "__main__":
    main(sys.argv[1])
