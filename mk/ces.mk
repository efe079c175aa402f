# mk/ces.mk - tests/ces: what a section run delegated can tell apart
# (docs/delegation.md), each program run under futex and under ces by
# tests/ces/run.sh.  Built against stock pthreads, never linked to lockswap.
CES_C    := $(wildcard tests/ces/*.c)
CES_CXX  := $(wildcard tests/ces/*.cc)
CES_BINS := $(CES_C:tests/ces/%.c=$(B)/ces/%) $(CES_CXX:tests/ces/%.cc=$(B)/ces/%)

$(B)/ces/%: tests/ces/%.c tests/ces/harness.h tests/ces/proc.h tests/thread_state.h tests/preload/check.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -o $@ $< -lpthread -ldl -lm
$(B)/ces/%: tests/ces/%.cc tests/ces/proc.h tests/thread_state.h tests/preload/check.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 -g -Wall -o $@ $< -lpthread -ldl

preload-bins: $(CES_BINS)

# The garbage collector's test links Debian's libgc (scripts/install-deps.sh).
$(B)/ces/gc: tests/ces/gc.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -o $@ $< -lgc -lpthread
