#!/bin/bash
# The everyday rows below 1 in the final matrix, 15 interleaved rounds: glibc, the default
# without wait morphing (e2dbbae, /tmp/cur.so), with it for signals (25bfd23, /tmp/morph1.so)
# and for broadcasts too (14c0a68, /tmp/morph2.so).  2026-12-06 17:05 UTC, the 2-vCPU AMD
# EPYC VM, load 0.5 at the start.  Cells are wall times: an arm over glibc, lower is better.
cd /work/main
R=${R:-15}
O=${O:-docs/results/default-matrix/issue45-morph/everyday-recheck}
A=(-b "glibc,RWLOCK=glibc,LIB=/tmp/morph2.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/cur.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/morph1.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/morph2.so")
for p in xz java python sort; do
	flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 --metric 'seconds: ([0-9.]+)' --lower-is-better --out $O/everyday-$p -- bash bench/apps/everyday.sh $p 8 > $O/everyday-$p.txt 2>&1
done
