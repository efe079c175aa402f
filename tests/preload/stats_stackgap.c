/*
 * stats_stackgap.c - four threads contend on one mutex for a while
 * (argument: milliseconds, default 300), each sleeping 20 us in its
 * section and 20 us out of it, so that most acquisitions wait (about
 * 1,500 in 300 ms here), many waits are timed, and summary mode's 1 in 4
 * of those would take a few hundred stacks: the workload of
 * tests/stats/run_stats.py's test_stack_gap, which checks from the JSON
 * that a thread takes at most one waiter stack per gap (stats/impl.h
 * LS_STATS_STACK_GAP_NS) with STATS_SAMPLE > 1, and that stacks still
 * come.  On its own it prints one "ok" line per check.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#define THREADS 4

static pthread_mutex_t gap_lock = PTHREAD_MUTEX_INITIALIZER;
static long held_count; /* under gap_lock */
static struct timespec end;

static int before_end(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec);
}

/* Its own frame, for the waiter stacks (noinline: the name is checked). */
static __attribute__((noinline, noclone)) void *gap_worker(void *arg)
{
	long mine = 0;
	while (before_end()) {
		pthread_mutex_lock(&gap_lock);
		held_count++;
		/* Sleep holding the lock, and then without it (so that the
		 * thread cannot take it straight back): the others find it
		 * held, even on a loaded machine. */
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
		pthread_mutex_unlock(&gap_lock);
		mine++;
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	}
	__asm__ volatile("" ::: "memory"); /* keeps the frame: no tail call */
	return (void *)mine;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	end = deadline_in(CLOCK_MONOTONIC, ms);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, gap_worker, NULL);
	long total = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	CHECK_EQ(held_count, total, "every acquisition of gap_lock excluded the others");
	return check_finish();
}
