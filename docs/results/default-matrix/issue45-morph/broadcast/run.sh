#!/bin/bash
# Broadcast morphing, 9 interleaved rounds a row: glibc, the default with signal morphing
# alone (25bfd23, /tmp/morph1.so),
# and with the broadcast and baton moves too (/tmp/morph2.so, this commit).
# 2026-12-06 16:52 UTC, the 2-vCPU AMD EPYC VM, load 2.4 at the start.
cd /work/main
R=${R:-9}
O=${O:-docs/results/default-matrix/issue45-morph/broadcast}
A=(-b "glibc,RWLOCK=glibc,LIB=/tmp/morph2.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/morph1.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/morph2.so")
ab() { local name=$1; shift; flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 "$@" > $O/$name.txt 2>&1; }
for p in pigz java node lbzip2 python; do
	ab everyday-$p --metric 'seconds: ([0-9.]+)' --lower-is-better --out $O/everyday-$p -- bash bench/apps/everyday.sh $p 8
done
ab condvar-8 --json-key throughput --extra-key min_share --out $O/condvar-8 -- build/bench/mutexbench --seconds 0.5 --json --threads 8 --mode condvar
ab short-32 --json-key throughput --extra-key min_share --out $O/short-32 -- build/bench/mutexbench --seconds 0.5 --json --threads 32 --cs-work 10 --ncs-work 10
