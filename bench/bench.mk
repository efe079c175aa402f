# bench/bench.mk - benchmark programs, included by the top-level Makefile.
#
# Both are ordinary programs built against stock pthreads (and the shared
# system libleveldb), never linked to lockswap: they measure a backend when
# run under LD_PRELOAD=liblockswap.so.  See docs/bench.md.

BENCH_BINS := $(B)/bench/mutexbench $(B)/bench/leveldb_bench

all: $(BENCH_BINS)
bench-bins: $(BENCH_BINS)
.PHONY: bench-bins

$(B)/bench/mutexbench: bench/mutexbench.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -o $@ $< -lpthread

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
