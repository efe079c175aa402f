/*
 * stats_counting.c - the cases of the statistics' inline counting step
 * (interpose/counting/counting.c, stats/quick.h) whose numbers are known exactly,
 * checked by tests/stats/run_stats.py (test_counting) from the JSON of
 * LOCKSWAP_STATS=summary.  On its own it only checks its own results.
 *
 *   hand_lock   main: 1000 pairs while the process has one thread (the
 *               single-threaded counting table), then a worker starts:
 *               1000 more by main, then 1000 by the worker (the gate has
 *               moved to the atomic counting table) = 3000; per thread
 *               2000 and 1000; exactly 1 owner change (main -> worker)
 *   copy_src    main: 10 pairs; then its bytes are copied into copy_dst
 *   copy_dst    main: 5 pairs on the copy (its slot word names copy_src's
 *               record: the row's key must tell them apart) = 5
 *   ping_lock   two threads take turns (semaphores): 100 pairs each =
 *               200 acquisitions and 199 owner changes, none contended
 *   crowd_lock  4 threads x 3000 pairs, a short spin inside, so many are
 *               contended; each critical section notes whether its thread
 *               differs from the previous holder: the program prints that
 *               count ("crowd owner changes N"), which the statistics'
 *               owner changes must equal, contended or not
 *   relay_lock  the same with a condition variable: 4 threads x 1500
 *               rounds, each waits on relay_cv (50 us at most) every
 *               other round and signals it every round; every return to
 *               the mutex (lock or wait) is an acquisition, and the
 *               program counts the owner changes among them ("relay
 *               acquisitions N owner changes M"): a holder that got the
 *               mutex by waiting, then gave it up to wait on the condvar,
 *               must still be seen as the holder by the next one
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

#include "../../preload/check.h"

#define PING_TURNS 100

static pthread_mutex_t hand_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t copy_src = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t copy_dst;
static pthread_mutex_t ping_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t crowd_lock = PTHREAD_MUTEX_INITIALIZER;
#define CROWD_THREADS 4
#define CROWD_PAIRS 3000
static long crowd_last = -1, crowd_changes, crowd_done; /* under crowd_lock */
static pthread_mutex_t relay_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t relay_cv = PTHREAD_COND_INITIALIZER;
#define RELAY_ROUNDS 1500
static long relay_last = -1, relay_changes, relay_gains; /* under relay_lock */
static sem_t go_worker, turn[2];
static long n_done;
static _Atomic int n_errors;

static void pairs(pthread_mutex_t *m, int n)
{
	for (int i = 0; i < n; i++) {
		if (pthread_mutex_lock(m) != 0)
			n_errors++;
		n_done++;
		if (pthread_mutex_unlock(m) != 0)
			n_errors++;
	}
}

static void *hand_worker(void *arg)
{
	sem_wait(&go_worker);
	pairs(&hand_lock, 1000);
	return arg;
}

static void *ping_worker(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < PING_TURNS; i++) {
		sem_wait(&turn[me]);
		pairs(&ping_lock, 1);
		sem_post(&turn[!me]);
	}
	return NULL;
}

static void *crowd_worker(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < CROWD_PAIRS; i++) {
		if (pthread_mutex_lock(&crowd_lock) != 0)
			n_errors++;
		if (crowd_last != -1 && crowd_last != me)
			crowd_changes++;
		crowd_last = me;
		crowd_done++;
		for (volatile int k = 0; k < 1000; k++)
			;
		if (pthread_mutex_unlock(&crowd_lock) != 0)
			n_errors++;
	}
	return NULL;
}

/* This thread has (again) got relay_lock. */
static void relay_gain(long me)
{
	if (relay_last != -1 && relay_last != me)
		relay_changes++;
	relay_last = me;
	relay_gains++;
}

static void *relay_worker(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < RELAY_ROUNDS; i++) {
		if (pthread_mutex_lock(&relay_lock) != 0)
			n_errors++;
		relay_gain(me);
		for (volatile int k = 0; k < 500; k++)
			;
		if (i % 2 == 0) {
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += 50000;
			if (t.tv_nsec >= 1000000000) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000;
			}
			int r = pthread_cond_timedwait(&relay_cv, &relay_lock, &t);
			if (r != 0 && r != ETIMEDOUT)
				n_errors++;
			relay_gain(me);
		}
		pthread_cond_signal(&relay_cv);
		if (pthread_mutex_unlock(&relay_lock) != 0)
			n_errors++;
	}
	return NULL;
}

int main(void)
{
	sem_init(&go_worker, 0, 0);
	pairs(&hand_lock, 1000);
	pthread_t w;
	CHECK(pthread_create(&w, NULL, hand_worker, NULL) == 0, "hand_worker starts");
	pairs(&hand_lock, 1000);
	sem_post(&go_worker);
	pthread_join(w, NULL);

	pairs(&copy_src, 10);
	memcpy(&copy_dst, &copy_src, sizeof copy_dst);
	pairs(&copy_dst, 5);

	sem_init(&turn[0], 0, 1);
	sem_init(&turn[1], 0, 0);
	pthread_t p[2];
	for (long i = 0; i < 2; i++)
		CHECK(pthread_create(&p[i], NULL, ping_worker, (void *)i) == 0, "ping_worker starts");
	for (int i = 0; i < 2; i++)
		pthread_join(p[i], NULL);

	pthread_t c[CROWD_THREADS];
	for (long i = 0; i < CROWD_THREADS; i++)
		CHECK(pthread_create(&c[i], NULL, crowd_worker, (void *)i) == 0, "crowd_worker starts");
	for (int i = 0; i < CROWD_THREADS; i++)
		pthread_join(c[i], NULL);
	CHECK_EQ(crowd_done, CROWD_THREADS * CROWD_PAIRS, "every crowd pair ran");
	printf("crowd owner changes %ld\n", crowd_changes);

	pthread_t r[CROWD_THREADS];
	for (long i = 0; i < CROWD_THREADS; i++)
		CHECK(pthread_create(&r[i], NULL, relay_worker, (void *)i) == 0, "relay_worker starts");
	for (int i = 0; i < CROWD_THREADS; i++)
		pthread_join(r[i], NULL);
	printf("relay acquisitions %ld owner changes %ld\n", relay_gains, relay_changes);
	CHECK_EQ(n_errors, 0, "every lock and unlock returned 0");
	/* Under the locks, or with one thread running at a time. */
	CHECK_EQ(n_done, 3000 + 15 + 2 * PING_TURNS, "every pair ran");
	return check_finish();
}
