# mk/deadlock.mk - tests/deadlock: the lock-order and hang programs (issue
# 46), built against stock pthreads and never linked to lockswap; the C++
# one at -O0 (the standard library's lock wrappers are calls of their
# own) and -O2 (inlined).  Run by tests/deadlock/run.sh.
$(B)/deadlock/order: tests/deadlock/order.c tests/preload/check.h tests/deadline.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread -ldl
$(B)/deadlock/cxx_O%: tests/deadlock/cxx.cc tests/preload/check.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O$* -g -Wall -o $@ $< -lpthread -ldl

all: $(B)/deadlock/order $(B)/deadlock/cxx_O0 $(B)/deadlock/cxx_O2
