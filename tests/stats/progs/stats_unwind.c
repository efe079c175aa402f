/*
 * stats_unwind.c - heavy contention with nested locks and allocation in
 * the critical sections: with LOCKSWAP_STATS=full every contended wait
 * unwinds its stack (libgcc's unwinder, which may take its own lock
 * through our entry points), possibly with a preloaded jemalloc locking
 * inside malloc.
 * tests/stats/run.sh runs it under a time limit: it must finish.
 * Argument: iterations per thread (default 3000).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../preload/check.h"

#define THREADS 8
#define LOCKS 4

static pthread_mutex_t locks[LOCKS] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long iters = 3000, sum;

__attribute__((noinline)) static void nested(int i)
{
	int a = i % LOCKS, b = (a + 1) % LOCKS;
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	pthread_mutex_lock(&locks[a]);
	pthread_mutex_lock(&locks[b]);
	char *p = malloc(64 + (size_t)(i % 512));
	memset(p, i, 64);
	sum += p[1];
	free(p);
	if (i % 64 == 0)
		pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&locks[b]);
	pthread_mutex_unlock(&locks[a]);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < iters; i++) {
		nested((int)(i + id));
		if (i % 256 == 0) {
			struct timespec t = deadline_in(CLOCK_MONOTONIC, 1);
			pthread_mutex_lock(&locks[0]);
			pthread_cond_clockwait(&cv, &locks[0], CLOCK_MONOTONIC, &t);
			pthread_mutex_unlock(&locks[0]);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		iters = atol(argv[1]);
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(1, "every thread finished");
	return check_finish();
}
