# mk/stats.mk - tests/stats: the programs the statistics group runs
# (tests/stats/run_stats.py; tests/arms and tests/prom run stats_counts and
# stats_prom too), built against stock pthreads, never linked to lockswap,
# into $(B)/stats.  tests/stats/progs/*.c and *.cc each become a program.
STATS_C    := $(wildcard tests/stats/progs/*.c)
STATS_CXX  := $(wildcard tests/stats/progs/*.cc)
STATS_BINS := $(STATS_C:tests/stats/progs/%.c=$(B)/stats/%) \
              $(STATS_CXX:tests/stats/progs/%.cc=$(B)/stats/%)

$(B)/stats/%: tests/stats/progs/%.c tests/preload/check.h tests/thread_state.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread -ldl
$(B)/stats/%: tests/stats/progs/%.cc tests/preload/check.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -o $@ $< -lpthread

# The stripped library of the readable-names tests (tests/stats/progs/
# stats_names.cc): stripped of every symbol but the dynamic ones, as
# distributions install libraries.  Built with -g, its debug information
# goes first into a separate file named by its build ID, laid out as
# Debian's -dbgsym packages lay out /usr/lib/debug, in $(B)/stats-debug
# (`lockswap report --debug-dir`; tests/stats/names.py).
$(B)/stats/libstripped.so: tests/stats/progs/names/stripped.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -g -Wl,--build-id -fno-toplevel-reorder -o $@ $< -lpthread
	@id=$$(readelf -n $@ | sed -n 's/.*Build ID: *//p'); \
	 d=$(B)/stats-debug/.build-id/$$(echo $$id | cut -c1-2); \
	 rm -rf $(B)/stats-debug && mkdir -p $$d && \
	 objcopy --only-keep-debug $@ $$d/$$(echo $$id | cut -c3-).debug
	strip --strip-all $@

# The C++ call-site test's program (tests/stats/cxx_sites.py), at -O0 (the
# standard library's lock wrappers are calls of their own) and at -O2
# (they are inlined into the program's functions).
$(B)/stats/stats_cxx_sites_O%: tests/stats/progs/names/cxx_sites.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O$* -g -Wall -o $@ $< -lpthread

stats-bins: $(STATS_BINS) $(B)/stats/libstripped.so $(B)/stats/stats_cxx_sites_O0 \
            $(B)/stats/stats_cxx_sites_O2
.PHONY: stats-bins
# `make all` builds them, and the groups that make preload-bins (arms, prom)
# get them with it.
preload-bins: stats-bins
