/* A shared library the test program links against: its pthread calls come
 * from another object than the executable. */
#include <pthread.h>

static pthread_mutex_t lib_mutex = PTHREAD_MUTEX_INITIALIZER;
static long lib_counter;

long user_locked_increment(pthread_mutex_t *m)
{
	pthread_mutex_lock(m ? m : &lib_mutex);
	long v = ++lib_counter;
	pthread_mutex_unlock(m ? m : &lib_mutex);
	return v;
}

int user_trylock(pthread_mutex_t *m) { return pthread_mutex_trylock(m); }
