#!/bin/bash
# The matrix's lock-bound rows, 9 interleaved rounds: glibc (the pass-through),
# the default of issue 38's matrix commit (b8b1a80, built into /tmp/old38.so)
# and of e2dbbae (the tip before wait morphing, /tmp/cur.so).
# 2026-12-06 16:10 UTC, the project's 2-vCPU AMD EPYC VM (KVM), load 1.1 -> 3.3.
cd /work/main
R=${R:-9}
A=(-b "glibc,RWLOCK=glibc,LIB=/tmp/cur.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/old38.so" -b "slice:futex,RWLOCK=slice,LIB=/tmp/cur.so")
flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 --metric 'total number of events: *([0-9]+)' --out docs/results/default-matrix/issue45-morph/before-sysbench-threads -- sysbench threads --threads=8 --time=1 run > docs/results/default-matrix/issue45-morph/before-sysbench-threads.txt 2>&1
flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 --json-key ops_per_sec --out docs/results/default-matrix/issue45-morph/before-leveldb-fill -- build/bench/leveldb_bench --benchmarks fillrandom --threads 8 --num 100000 --json > docs/results/default-matrix/issue45-morph/before-leveldb-fill.txt 2>&1
flock /tmp/lockswap-bench.lock /usr/bin/python3 scripts/lockswap ab -q "${A[@]}" --runs $R --warmup 1 --timeout 120 --metric 'mutex +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)' --out docs/results/default-matrix/issue45-morph/before-stress-ng -- sh -c "stress-ng --mutex 8 --timeout 1 --metrics 2>&1" > docs/results/default-matrix/issue45-morph/before-stress-ng.txt 2>&1
