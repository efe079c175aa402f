# The stripped library of the readable-names tests (tests/preload/
# stats_names.cc): stripped of every symbol but the dynamic ones, as
# distributions install libraries.  Built with -g, its debug information
# goes first into a separate file named by its build ID, laid out as
# Debian's -dbgsym packages lay out /usr/lib/debug, in $(B)/preload-debug
# (`lockswap report --debug-dir`; tests/stats/names.py).
$(B)/preload/libstripped.so: tests/preload/names/stripped.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -g -Wl,--build-id -fno-toplevel-reorder -o $@ $< -lpthread
	@id=$$(readelf -n $@ | sed -n 's/.*Build ID: *//p'); \
	 d=$(B)/preload-debug/.build-id/$$(echo $$id | cut -c1-2); \
	 rm -rf $(B)/preload-debug && mkdir -p $$d && \
	 objcopy --only-keep-debug $@ $$d/$$(echo $$id | cut -c3-).debug
	strip --strip-all $@

preload-bins: $(B)/preload/libstripped.so

# The C++ call-site test's program (tests/stats/cxx_sites.py), at -O0 (the
# standard library's lock wrappers are calls of their own) and at -O2
# (they are inlined into the program's functions).
$(B)/preload/stats_cxx_sites_O%: tests/preload/names/cxx_sites.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O$* -g -Wall -o $@ $< -lpthread

preload-bins: $(B)/preload/stats_cxx_sites_O0 $(B)/preload/stats_cxx_sites_O2
