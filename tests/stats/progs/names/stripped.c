/*
 * stripped.c - a shared library installed stripped (mk/stats.mk strips
 * it): one exported function and one exported variable, then a static
 * function and a static mutex laid out after them, so that dladdr's
 * nearest dynamic symbol below the static ones is the exported one - a
 * wrong name that lockswap must not print (tests/stats, stats_names).
 *
 *   void stripped_contend(int threads, long rounds)
 */
#include <pthread.h>

int stripped_version = 1;
static pthread_mutex_t hidden_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long hidden_counter;
static long hidden_rounds;

void stripped_contend(int threads, long rounds);

static void *hidden_thread(void *arg);

void stripped_contend(int threads, long rounds)
{
	pthread_t t[16];
	hidden_rounds = rounds;
	threads = threads > 16 ? 16 : threads;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, hidden_thread, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}

static __attribute__((noinline)) void hidden_work(void)
{
	pthread_mutex_lock(&hidden_lock); /* the site of the test (tests/stats/names.py) */
	for (volatile int spin = 0; spin < 200; spin++)
		;
	hidden_counter++;
	pthread_mutex_unlock(&hidden_lock);
}

static void *hidden_thread(void *arg)
{
	for (long i = 0; i < hidden_rounds; i++)
		hidden_work();
	return arg;
}
