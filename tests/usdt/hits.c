/*
 * hits.c - lock calls whose USDT probe hits tests/usdt/run.sh counts with
 * bpftrace.  Plain pthreads, run under LD_PRELOAD=liblockswap.so.
 *
 *   hits locks       PAIRS mutex lock/unlock pairs, one timedlock, the
 *                    init/destroy calls, RW reads and RW writes, and a
 *                    condvar wait that is certain to park: the signal comes
 *                    only once the waiter sleeps in the kernel, from the
 *                    mutex's holder (under the default it moves the waiter
 *                    to the lock word: one requeue)
 *   hits queue       a holder and five more threads queued behind it in
 *                    turn, all asleep before the holder lets go.  Under
 *                    capacitor:INNER (bypass 4) the fifth ticket is beyond
 *                    the first platoon, so a platoon opens with a waiter
 *                    beyond it; under slice:INNER (slices that pay) the
 *                    first waiter opens a slice, which is spent (idle)
 *                    by the time the holder lets go, so at its release
 *                    it is handed to the oldest waiter.
 *
 * "Asleep" is read from /proc/self/task/TID/stat (state S): certain, not
 * timed.  Each wait for it gives up after 20 s (exit 1, a message).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../thread_state.h"

#define PAIRS 100
#define RW_EACH 10
#define QUEUE_NAP_MS 20

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;
static _Atomic pid_t tids[8];

static void nap_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000 };
	nanosleep(&t, NULL);
}

/* Until thread slot i has said its id and sleeps in the kernel. */
static void await_asleep(int i)
{
	for (int ms = 0; ms < 20000; ms++) {
		pid_t t = tids[i];
		if (t && thread_state(t) == 'S')
			return;
		nap_ms(1);
	}
	fprintf(stderr, "hits: thread %d never went to sleep\n", i);
	exit(1);
}

static void *cond_waiter(void *arg)
{
	tids[0] = gettid();
	pthread_mutex_lock(&m);
	while (!go)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	return arg;
}

static int locks(void)
{
	/* The mutex's address, which mutex_acquired's argument must be. */
	printf("mutex %lu\n", (unsigned long)(uintptr_t)&m);
	fflush(stdout);
	for (int i = 0; i < PAIRS; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 10;
	if (pthread_mutex_timedlock(&m, &t) != 0)
		return 1;
	pthread_mutex_unlock(&m);

	pthread_mutex_t m2;
	pthread_cond_t c2;
	pthread_mutex_init(&m2, NULL);
	pthread_mutex_destroy(&m2);
	pthread_cond_init(&c2, NULL);
	pthread_cond_destroy(&c2);

	pthread_rwlock_t rw;
	pthread_rwlock_init(&rw, NULL);
	for (int i = 0; i < RW_EACH; i++) {
		pthread_rwlock_rdlock(&rw);
		pthread_rwlock_unlock(&rw);
		pthread_rwlock_wrlock(&rw);
		pthread_rwlock_unlock(&rw);
	}
	pthread_rwlock_destroy(&rw);

	pthread_t w;
	if (pthread_create(&w, NULL, cond_waiter, NULL) != 0)
		return 1;
	await_asleep(0);
	pthread_mutex_lock(&m);
	go = 1;
	pthread_cond_signal(&cv);
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	return pthread_join(w, NULL);
}

static void *contender(void *arg)
{
	tids[(long)arg] = gettid();
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return arg;
}

static int queue(void)
{
	pthread_t t[5];
	pthread_mutex_lock(&m);
	for (long i = 0; i < 5; i++) {
		if (pthread_create(&t[i], NULL, contender, (void *)i) != 0)
			return 1;
		await_asleep((int)i);
	}
	/* The first waiter's slice began at its arrival: QUEUE_NAP_MS is
	 * longer than the slice run.sh sets, so its slice is spent when it
	 * releases, and it hands over rather than keeping the slice. */
	nap_ms(QUEUE_NAP_MS);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "locks") == 0)
		return locks();
	if (strcmp(what, "queue") == 0)
		return queue();
	fprintf(stderr, "usage: hits locks|queue\n");
	return 2;
}
