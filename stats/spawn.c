/* spawn.c - ls_stats_spawn (spawn.h): the statistics' own threads. */
#include <pthread.h>
#include <signal.h>

#include "spawn.h"
#include "state.h"

bool ls_stats_spawn(void *(*fn)(void *), const char *name)
{
	ls_stats_enter();
	sigset_t all, old;
	sigfillset(&all);
	/* The new thread inherits the mask: blocked from its first
	 * instruction, so no signal can reach it before it could block it. */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t a;
	pthread_t th;
	bool started = false;
	if (pthread_attr_init(&a) == 0) {
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 256 * 1024);
		if (pthread_create(&th, &a, fn, NULL) == 0) {
			pthread_setname_np(th, name);
			started = true;
		}
		pthread_attr_destroy(&a);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ls_stats_leave();
	return started;
}
