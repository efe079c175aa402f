/* glibc_fn.c - glibc's definitions of names lockswap defines (glibc_fn.h). */
#include "glibc_fn.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>

#include "../core/runtime/sys.h"

static void *next(const char *name, void *_Atomic *slot)
{
	/* relaxed: racing look-ups find the same address. */
	void *f = atomic_load_explicit(slot, memory_order_relaxed);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		atomic_store_explicit(slot, f, memory_order_relaxed);
	}
	return f;
}

ls_create_fn ls_stats_glibc_create(void)
{
	static void *_Atomic slot;
	return (ls_create_fn)next("pthread_create", &slot);
}

ls_setname_fn ls_stats_glibc_setname(void)
{
	static void *_Atomic slot;
	return (ls_setname_fn)next("pthread_setname_np", &slot);
}

void ls_stats_glibc_abort(void)
{
	static void *_Atomic slot;
	void (*f)(void) = (void (*)(void))next("abort", &slot);
	if (f)
		f();
	/* No glibc abort: the signal itself, then the end. */
	ls_sys6(SYS_kill, ls_sys_getpid(), SIGABRT, 0, 0, 0, 0);
	__builtin_trap();
}
