# paired.py FILE BASE: each label's median and its median per-round ratio over BASE (lines: round label value).
import sys, statistics as st, collections
d=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r,lab,n=l.split(); d[lab][r]=float(n)
base=sys.argv[2]
for lab in d:
    rs=[d[lab][r]/d[base][r] for r in d[lab] if r in d[base] and d[base][r]>0]
    print(lab, 'median', st.median(d[lab].values()), 'paired ratio vs', base, round(st.median(rs),3), 'mean', round(st.mean(rs),3))
