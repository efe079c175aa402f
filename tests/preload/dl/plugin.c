/* A library loaded with dlopen() after start-up: lockswap must still serve
 * its pthread calls, on objects shared with the executable. */
#include <pthread.h>

int plugin_lock(pthread_mutex_t *m) { return pthread_mutex_lock(m); }
int plugin_unlock(pthread_mutex_t *m) { return pthread_mutex_unlock(m); }
int plugin_signal(pthread_cond_t *c) { return pthread_cond_signal(c); }

/* A thread started from inside a dlopen()ed library. */
int plugin_spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	return pthread_create(t, NULL, fn, arg);
}
