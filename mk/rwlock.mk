# mk/rwlock.mk - the rwlock and C11 test programs (tests/rwlock/*.c, *.cc):
# built against stock pthreads and C11 threads, never linked to lockswap;
# tests/rwlock/run.sh runs them under every rwlock backend.
RW_C    := $(wildcard tests/rwlock/*.c)
RW_CXX  := $(wildcard tests/rwlock/*.cc)
RW_BINS := $(RW_C:tests/rwlock/%.c=$(B)/rwlock/%) $(RW_CXX:tests/rwlock/%.cc=$(B)/rwlock/%)

$(B)/rwlock/%: tests/rwlock/%.c tests/rwlock/rwcheck.h tests/preload/check.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread -ldl
$(B)/rwlock/%: tests/rwlock/%.cc tests/rwlock/rwcheck.h tests/preload/check.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -o $@ $< -lpthread -ldl

all: $(RW_BINS)
