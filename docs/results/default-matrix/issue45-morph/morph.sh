#!/bin/bash
# Wait morphing (core/condvar/morph.h), 9 interleaved rounds per row: glibc
# (the pass-through), the default at e2dbbae (/tmp/cur.so) and with wait
# morphing (/tmp/morph.so, 25bfd23's parent tree: the hint told after the
# lock, 2 instructions more per pair than the commit).  2026-12-06 16:30 UTC,
# the project's 2-vCPU AMD EPYC VM (KVM), load 0.1 -> 10.2 (fill 0.1 -> 1.1,
# condvar 8 threads 1.1 -> 4.3, 32 threads 4.3 -> 10.2: the rows' own threads).
cd /work/main
R=${R:-9}
A=(-b "glibc,RWLOCK=glibc,LIB=/tmp/cur.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/cur.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/morph.so")
flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 --json-key ops_per_sec --out docs/results/default-matrix/issue45-morph/morph-leveldb-fill -- build/bench/leveldb_bench --benchmarks fillrandom --threads 8 --num 100000 --json > docs/results/default-matrix/issue45-morph/morph-leveldb-fill.txt 2>&1
for t in 8 32; do
flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 --json-key throughput --extra-key min_share --out docs/results/default-matrix/issue45-morph/morph-condvar-$t -- build/bench/mutexbench --seconds 1 --json --threads $t --mode condvar > docs/results/default-matrix/issue45-morph/morph-condvar-$t.txt 2>&1
done
