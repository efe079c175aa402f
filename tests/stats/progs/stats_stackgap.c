/*
 * stats_stackgap.c - four threads contend on one mutex for a while
 * (argument: milliseconds, default 300), each sleeping 20 us in its
 * section and asking again only once another thread has had the lock, so
 * that nearly every acquisition waits (2,300-3,000 in 300 ms on an idle
 * 2-CPU machine), many waits are timed, and summary mode's 1 in 4 of those
 * would take a few hundred stacks: the workload of
 * tests/stats/run_stats.py's test_stack_gap, which checks from the JSON
 * that a thread takes at most one waiter stack per gap (stats/impl.h
 * LS_STATS_STACK_GAP_NS) with STATS_SAMPLE > 1, and that stacks still
 * come.  On its own it prints one "ok" line per check.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "../../preload/check.h"

#define THREADS 4

static pthread_mutex_t gap_lock = PTHREAD_MUTEX_INITIALIZER;
static long held_count;          /* under gap_lock */
static _Atomic long last_holder; /* written under gap_lock: its last holder's index + 1 */
static struct timespec end;

static int before_end(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec);
}

/* Its own frame, for the waiter stacks (noinline: the name is checked).
 * Each thread sleeps holding the lock, and after its release waits until
 * another thread has taken it before it asks again: so it asks while
 * another holds the lock (sleeping), and nearly every lock call waits,
 * however loaded the machine is (the rate of waits falls with the load,
 * their share does not). */
static __attribute__((noinline, noclone)) void *gap_worker(void *arg)
{
	long me = (long)arg + 1, mine = 0;
	while (before_end()) {
		pthread_mutex_lock(&gap_lock);
		held_count++;
		atomic_store_explicit(&last_holder, me, memory_order_relaxed);
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
		pthread_mutex_unlock(&gap_lock);
		mine++;
		while (atomic_load_explicit(&last_holder, memory_order_relaxed) == me && before_end())
			sched_yield();
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
		pthread_create(&t[i], NULL, gap_worker, (void *)(long)i);
	long total = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	CHECK_EQ(held_count, total, "every acquisition of gap_lock excluded the others");
	return check_finish();
}
