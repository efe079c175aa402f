/*
 * stats_counts.c - a workload with exactly known lock statistics, checked
 * by tests/stats/run.sh from the JSON that LOCKSWAP_STATS=full writes.
 * On its own (any backend, statistics on or off) it only checks its own
 * results and prints "ok" lines.
 *
 * The numbers the stats test expects (keep in step with tests/stats/run.sh):
 *   count_lock     first used in count_worker: 4 threads x 10000 lock/unlock
 *   try_lock       main: 1000 trylock successes; 7 trylock failures while the
 *                  holder thread holds it (+1 acquisition by the holder)
 *   timed_lock     main: 500 timedlock + 500 clocklock uncontended; 3
 *                  timedlock + 2 clocklock time out while held (+1 holder)
 *   rec_lock       recursive: 100 x three nested locks = 300
 *   err_lock       errorcheck: 1 lock, the relock fails with EDEADLK
 *   cv / cv_lock   main: 4 timedwait + 3 clockwait with past deadlines
 *                  (7 waits, 7 timeouts), 5 signals, 2 broadcasts; cv_lock
 *                  acquired once by main + 7 re-acquisitions
 *   contend_lock   first used in contend_worker: 3 threads x 50, each holding
 *                  it for 200 us: contended, waiters and holders in
 *                  contend_worker
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>

#include "../../preload/check.h"

#define COUNT_THREADS 4
#define COUNT_ITERS 10000
#define CONTEND_THREADS 3
#define CONTEND_ITERS 50

static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t try_lock;
static pthread_mutex_t timed_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t err_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t contend_lock = PTHREAD_MUTEX_INITIALIZER;

static long counter, contend_counter;
static sem_t held, release;

__attribute__((noinline)) static void *count_worker(void *arg)
{
	for (int i = 0; i < COUNT_ITERS; i++) {
		pthread_mutex_lock(&count_lock);
		counter++;
		pthread_mutex_unlock(&count_lock);
	}
	return arg;
}

__attribute__((noinline)) static void *contend_worker(void *arg)
{
	struct timespec hold = { 0, 200000 };
	for (int i = 0; i < CONTEND_ITERS; i++) {
		pthread_mutex_lock(&contend_lock);
		contend_counter++;
		nanosleep(&hold, NULL);
		pthread_mutex_unlock(&contend_lock);
	}
	return arg;
}

/* Takes m, lets main try it while held, releases when told. */
static void *holder(void *arg)
{
	pthread_mutex_t *m = arg;
	pthread_mutex_lock(m);
	sem_post(&held);
	while (sem_wait(&release) != 0)
		;
	pthread_mutex_unlock(m);
	return NULL;
}

static void while_held(pthread_mutex_t *m, void (*fn)(pthread_mutex_t *))
{
	pthread_t t;
	pthread_create(&t, NULL, holder, m);
	while (sem_wait(&held) != 0)
		;
	fn(m);
	sem_post(&release);
	pthread_join(t, NULL);
}

static int busy_fails;
static void try_while_held(pthread_mutex_t *m)
{
	for (int i = 0; i < 7; i++)
		busy_fails += pthread_mutex_trylock(m) == EBUSY;
}

static int timeouts;
static void time_out_while_held(pthread_mutex_t *m)
{
	for (int i = 0; i < 3; i++) {
		struct timespec t = deadline_in(CLOCK_REALTIME, 1);
		timeouts += pthread_mutex_timedlock(m, &t) == ETIMEDOUT;
	}
	for (int i = 0; i < 2; i++) {
		struct timespec t = deadline_in(CLOCK_MONOTONIC, 1);
		timeouts += pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &t) == ETIMEDOUT;
	}
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t[8];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(void)
{
	sem_init(&held, 0, 0);
	sem_init(&release, 0, 0);

	run_threads(count_worker, COUNT_THREADS);
	CHECK_EQ(counter, COUNT_THREADS * COUNT_ITERS, "count_lock kept every increment");

	pthread_mutex_init(&try_lock, NULL);
	int ok = 0;
	for (int i = 0; i < 1000; i++)
		if (pthread_mutex_trylock(&try_lock) == 0) {
			ok++;
			pthread_mutex_unlock(&try_lock);
		}
	while_held(&try_lock, try_while_held);
	CHECK_EQ(ok, 1000, "trylock on a free mutex succeeds");
	CHECK_EQ(busy_fails, 7, "trylock on a held mutex is EBUSY");

	ok = 0;
	for (int i = 0; i < 500; i++) {
		struct timespec t = deadline_in(CLOCK_REALTIME, 1000);
		ok += pthread_mutex_timedlock(&timed_lock, &t) == 0;
		pthread_mutex_unlock(&timed_lock);
		t = deadline_in(CLOCK_MONOTONIC, 1000);
		ok += pthread_mutex_clocklock(&timed_lock, CLOCK_MONOTONIC, &t) == 0;
		pthread_mutex_unlock(&timed_lock);
	}
	while_held(&timed_lock, time_out_while_held);
	CHECK_EQ(ok, 1000, "timedlock and clocklock on a free mutex succeed");
	CHECK_EQ(timeouts, 5, "timedlock and clocklock on a held mutex time out");

	for (int i = 0; i < 100; i++) {
		for (int k = 0; k < 3; k++)
			pthread_mutex_lock(&rec_lock);
		for (int k = 0; k < 3; k++)
			pthread_mutex_unlock(&rec_lock);
	}
	pthread_mutex_lock(&err_lock);
	CHECK_ERR(pthread_mutex_lock(&err_lock), EDEADLK, "errorcheck relock is EDEADLK");
	pthread_mutex_unlock(&err_lock);

	pthread_mutex_lock(&cv_lock);
	int cv_timeouts = 0;
	for (int i = 0; i < 4; i++) {
		struct timespec t = deadline_in(CLOCK_REALTIME, -1000);
		cv_timeouts += pthread_cond_timedwait(&cv, &cv_lock, &t) == ETIMEDOUT;
	}
	for (int i = 0; i < 3; i++) {
		struct timespec t = deadline_in(CLOCK_MONOTONIC, -1000);
		cv_timeouts += pthread_cond_clockwait(&cv, &cv_lock, CLOCK_MONOTONIC, &t) == ETIMEDOUT;
	}
	for (int i = 0; i < 5; i++)
		pthread_cond_signal(&cv);
	for (int i = 0; i < 2; i++)
		pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&cv_lock);
	CHECK_EQ(cv_timeouts, 7, "waits with past deadlines time out");

	run_threads(contend_worker, CONTEND_THREADS);
	CHECK_EQ(contend_counter, CONTEND_THREADS * CONTEND_ITERS, "contend_lock kept every increment");
	return check_finish();
}
