/* spawn.c - ls_stats_spawn (spawn.h): the statistics' own threads.
 *
 * Created with glibc's pthread_create and pthread_setname_np (glibc_fn.h):
 * the program's names are lockswap's own wrappers (interpose/away/), which
 * the library never calls. */
#include <pthread.h>
#include <signal.h>

#include "../core/runtime/sys.h"
#include "glibc_fn.h"
#include "spawn.h"
#include "state.h"

bool ls_stats_spawn(void *(*fn)(void *), const char *name, size_t stack_bytes)
{
	ls_create_fn do_create = ls_stats_glibc_create();
	ls_setname_fn do_setname = ls_stats_glibc_setname();
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
		pthread_attr_setstacksize(&a, stack_bytes);
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
