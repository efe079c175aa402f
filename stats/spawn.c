/* spawn.c - ls_stats_spawn (spawn.h): the statistics' own threads.
 *
 * Created with glibc's pthread_create and pthread_setname_np, looked up
 * past lockswap (RTLD_NEXT): the program's names are lockswap's own
 * wrappers (interpose/away/), which the library never calls. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "../core/runtime/sys.h"
#include "spawn.h"
#include "state.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*setname_fn)(pthread_t, const char *);

static void *glibc_fn(const char *name, void *_Atomic *slot)
{
	/* relaxed: racing look-ups find the same address. */
	void *f = atomic_load_explicit(slot, memory_order_relaxed);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		atomic_store_explicit(slot, f, memory_order_relaxed);
	}
	return f;
}

bool ls_stats_spawn(void *(*fn)(void *), const char *name)
{
	static void *_Atomic create, *_Atomic setname;
	create_fn do_create = (create_fn)glibc_fn("pthread_create", &create);
	setname_fn do_setname = (setname_fn)glibc_fn("pthread_setname_np", &setname);
	if (!do_create)
		return false;
	ls_stats_enter();
	/* The new thread inherits the mask: blocked from its first
	 * instruction, so no signal can reach it before it could block it
	 * (all but glibc's own two, as pthread_sigmask would). */
	ls_sigmask_t old;
	ls_sys_block_all(&old);
	pthread_attr_t a;
	pthread_t th;
	bool started = false;
	if (pthread_attr_init(&a) == 0) {
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 256 * 1024);
		if (do_create(&th, &a, fn, NULL) == 0) {
			if (do_setname)
				do_setname(th, name);
			started = true;
		}
		pthread_attr_destroy(&a);
	}
	ls_sys_sigmask_set(&old);
	ls_stats_leave();
	return started;
}
