# bench/bench.mk - benchmark programs, included by the top-level Makefile.
#
# Both are ordinary programs built against stock pthreads (and the shared
# system libleveldb), never linked to lockswap: they measure a backend when
# run under LD_PRELOAD=liblockswap.so.  See docs/bench.md.

BENCH_BINS := $(B)/bench/mutexbench $(B)/bench/leveldb_bench

all: $(BENCH_BINS)
bench-bins: $(BENCH_BINS)
.PHONY: bench-bins

# One program from bench/mutexbench/*.c (one idea a file: mutexbench.h lists them).
MUTEXBENCH_SRC := $(sort $(wildcard bench/mutexbench/*.c))
$(B)/bench/mutexbench: $(MUTEXBENCH_SRC) $(wildcard bench/mutexbench/*.h) bench/rng.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -o $@ $(MUTEXBENCH_SRC) -lpthread -lm

# Shared -lleveldb on purpose: LevelDB's own std::mutex calls must resolve
# to pthread_mutex_* at run time, where the preloaded interposer wins.
$(B)/bench/leveldb_bench: bench/leveldb_bench.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -o $@ $< -lleveldb -lpthread

# uncontended lock+unlock cost (callgrind and timing: scripts/measure-uncontended.sh)
all: $(B)/bench/uncontended
$(B)/bench/uncontended: bench/uncontended.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread

# a measurement-only probe of seat rotation (not a backend; docs/bench.md)
all: $(B)/bench/seats
$(B)/bench/seats: bench/probes/seats.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -o $@ $< -lpthread

# MutexBench's short-CS mode for the native API (lockswap_with) against a
# pthread mutex; linked to liblockswap-native.a, which defines no pthread
# function, so --lock pthread still measures what LD_PRELOAD put in place.
all: $(B)/bench/nativebench
$(B)/bench/nativebench: bench/nativebench.c bench/rng.h include/lockswap.h liblockswap-native.a
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Iinclude -o $@ $< liblockswap-native.a -lpthread

# ces: the raw calls of its context switch and signal work, timed
# (docs/delegation.md; docs/results.md section 18)
all: $(B)/bench/ces_costs
$(B)/bench/ces_costs: bench/probes/ces_costs.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $<

# many mutexes nested two deep, the lock-order check's worst case (docs/deadlock.md)
all: $(B)/bench/nested
$(B)/bench/nested: bench/probes/nested.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -o $@ $< -lpthread
