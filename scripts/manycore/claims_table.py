#!/usr/bin/python3
"""claims_table.py FILE - the markdown table of capacitor_claims.c's JSON
lines (docs/seeds.md K3, K11): one row per run."""
import json
import sys


def main(path):
    print("| inner | threads | B | arrivals finding the platoon closed | overtakes mean | "
          "overtakes max | most by one thread | acquisitions overtaken >= 2 times by one thread |")
    print("|---|---|---|---|---|---|---|---|")
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            two = sum(d["by_one_thread_hist"][2:]) / max(1, d["acquisitions"])
            print("| %s | %d | %d | %.4f | %.3f | %d | %d | %.4f |" % (
                d["inner"], d["threads"], d["B"], d["not_admitted_share"], d["overtakes_mean"],
                d["overtakes_max"], d["by_one_thread_max"], two))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: claims_table.py FILE")
    sys.exit(main(sys.argv[1]))
