/*
 * next_symbol.h - glibc's definition of a function that lockswap also
 * defines (the wrappers of calls.def, away.h), found once with
 * dlsym(RTLD_NEXT): dlsym allocates only when it fails, and these are all
 * in libc.  away.h's GLIBC(name) reads a slot filled this way.
 */
#ifndef LS_INTERPOSE_NEXT_SYMBOL_H
#define LS_INTERPOSE_NEXT_SYMBOL_H

#include <dlfcn.h>
#include <stdatomic.h>

static inline void *ls_next_symbol(const char *name, void *_Atomic *slot)
{
	/* relaxed: a racing look-up finds the same address. */
	void *f = atomic_load_explicit(slot, memory_order_relaxed);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		atomic_store_explicit(slot, f, memory_order_relaxed);
	}
	return f;
}

#endif
