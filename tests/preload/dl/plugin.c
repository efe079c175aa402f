/* A library loaded with dlopen() after start-up: lockswap must still serve
 * its pthread calls, on objects shared with the executable. */
#include <pthread.h>

int plugin_lock(pthread_mutex_t *m) { return pthread_mutex_lock(m); }
int plugin_unlock(pthread_mutex_t *m) { return pthread_mutex_unlock(m); }
int plugin_signal(pthread_cond_t *c) { return pthread_cond_signal(c); }
