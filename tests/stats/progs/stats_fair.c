/*
 * stats_fair.c - fairness over the threads that compete (docs/stats.md,
 * "Fairness"), with exactly known per-thread counts, checked by
 * tests/stats/run_stats.py (test_fair) from the JSON.  On its own it only
 * checks its own results.
 *
 * Two mutexes, the same pattern on each:
 *   main, before any worker exists, takes the lock SETUP_PAIRS times and
 *   then holds it while every worker's trylock fails (EBUSY) and then its
 *   timedlock times out after WAIT_MS (certain: main holds it until the
 *   barrier after both).  So main acquired it SETUP_PAIRS + 1 times and
 *   never waited: not a competitor.  Every worker waited WAIT_MS (or
 *   more, if it was scheduled late), and takes the lock in its loop with
 *   trylock only (a failed trylock adds no waiting time): each waited
 *   about the same, so every worker is a competitor.
 *   fair_equal    3 workers x EQUAL_ITERS acquisitions: over the
 *                 competitors the shares are equal (min share 1/3, Jain 1),
 *                 though main's 4 acquisitions are a tiny share of all.
 *   fair_starved  the same 3 workers plus a 4th that takes it only
 *                 STARVED_ITERS times: that competitor is still counted,
 *                 min share STARVED_ITERS / (3 * EQUAL_ITERS + STARVED_ITERS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "../../preload/check.h"

#define SETUP_PAIRS 3
#define EQUAL_ITERS 1000
#define STARVED_ITERS 10
#define WAIT_MS 100

static pthread_mutex_t fair_equal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fair_starved = PTHREAD_MUTEX_INITIALIZER;

struct job {
	pthread_mutex_t *m;
	pthread_barrier_t *tried, *go;
	long iters;
	int try_result, timed_result;
	long done;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	j->try_result = pthread_mutex_trylock(j->m);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += WAIT_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	j->timed_result = pthread_mutex_timedlock(j->m, &until);
	pthread_barrier_wait(j->tried);
	pthread_barrier_wait(j->go);
	for (long i = 0; i < j->iters; i++) {
		while (pthread_mutex_trylock(j->m) == EBUSY)
			sched_yield();
		j->done++;
		pthread_mutex_unlock(j->m);
	}
	return NULL;
}

static void round_on(pthread_mutex_t *m, int workers, bool starved, const char *what)
{
	for (int i = 0; i < SETUP_PAIRS; i++) {
		pthread_mutex_lock(m);
		pthread_mutex_unlock(m);
	}
	pthread_barrier_t tried, go;
	pthread_barrier_init(&tried, NULL, (unsigned)workers + 1);
	pthread_barrier_init(&go, NULL, (unsigned)workers + 1);
	struct job jobs[4];
	pthread_t th[4];
	pthread_mutex_lock(m);
	for (int i = 0; i < workers; i++) {
		bool last = starved && i == workers - 1;
		jobs[i] = (struct job){ m, &tried, &go, last ? STARVED_ITERS : EQUAL_ITERS, -1, -1, 0 };
		CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0, "worker started");
	}
	pthread_barrier_wait(&tried); /* every worker's trylock failed and timedlock timed out */
	pthread_mutex_unlock(m);
	pthread_barrier_wait(&go);
	long total = 0;
	int busy = 0, timedout = 0;
	for (int i = 0; i < workers; i++) {
		pthread_join(th[i], NULL);
		total += jobs[i].done;
		busy += jobs[i].try_result == EBUSY;
		timedout += jobs[i].timed_result == ETIMEDOUT;
	}
	CHECK_EQ(busy, workers, what);
	CHECK_EQ(timedout, workers, "every worker's timedlock timed out while main held it");
	CHECK_EQ(total, (long)(starved ? 3 * EQUAL_ITERS + STARVED_ITERS : 3 * EQUAL_ITERS),
	         "every acquisition ran");
	pthread_barrier_destroy(&tried);
	pthread_barrier_destroy(&go);
}

int main(void)
{
	round_on(&fair_equal, 3, false, "fair_equal: every worker's trylock failed while main held it");
	round_on(&fair_starved, 4, true, "fair_starved: every worker's trylock failed while main held it");
	return check_finish();
}
