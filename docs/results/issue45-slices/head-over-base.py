"""Each slice:* backend now over itself at issue 45's start (218b225), paired by
round, from short.csv (one sweep, every arm once per round in a shuffled order):
    /usr/bin/python3 head-over-base.py short.csv > head-over-base.txt"""
import csv, os, sys
from collections import defaultdict
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts"))
from lockswap_cli import stats  # noqa: E402

rounds = defaultdict(dict)  # (threads, inner) -> {round: {"base"|"head": value}}
shares = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    if row["status"] != "ok" or not row["backend"].startswith("slice:"):
        continue
    name, lib = row["backend"].split(",LIB=")
    which = "base" if "base45" in lib else "head"
    rounds[(row["threads"], name)].setdefault(row["round"], {})[which] = float(row["value"])
    shares[(row["threads"], name, which)].append(float(row["min_share"]))
print("| threads | backend | now / at 218b225, paired [95%] | min share at 218b225: least, median | now: least, median |")
print("| ---: | :--- | :--- | :--- | :--- |")
for (t, name), rs in sorted(rounds.items(), key=lambda k: (int(k[0][0]), k[0][1])):
    r = stats.paired(rs, ["base", "head"], False, 45)[0]
    b, h = sorted(shares[(t, name, "base")]), sorted(shares[(t, name, "head")])
    print(f"| {t} | {name} | {r['ratio']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
          f"| {b[0]:.3f}, {b[len(b)//2]:.3f} | {h[0]:.3f}, {h[len(h)//2]:.3f} |")
