# The stripped library of the readable-names tests (tests/preload/
# stats_names.cc): built without -g and stripped of every symbol but the
# dynamic ones, as distributions install libraries.
$(B)/preload/libstripped.so: tests/preload/names/stripped.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -fno-toplevel-reorder -o $@ $< -lpthread
	strip --strip-all $@

preload-bins: $(B)/preload/libstripped.so
