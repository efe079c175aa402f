/*
 * queue.h - helpers for leave.c: put threads into a lock's queue one at a
 * time, turn a hang into a FAIL that names the case, and oversubscribe the
 * machine with busy threads.
 *
 * A waiter is "in the queue" once it sleeps: /proc/self/task/TID/stat shows
 * state S after it announced (armed) that it is about to block.  Backends
 * spin for a while before they park, so polling for S (with a bound) is what
 * makes head, middle and tail real queue positions for the FIFO backends.
 */
#ifndef LS_LEAVE_QUEUE_H
#define LS_LEAVE_QUEUE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "../preload/check.h"
#include "../thread_state.h"

/* Work that takes well under a millisecond when the lock works (a few
 * dozen hand-offs) is declared hung after this long. */
#define HANG_MS 3000
/* A waiter that has not gone to sleep after this long is used anyway
 * (the case still runs, its position is then only approximate). */
#define PARK_MS 2000

static char case_name[96]; /* "way/position", printed in every FAIL line */

/* A thread stuck inside a lock call cannot be recovered: report the hang,
 * naming the case, and end the process at once. */
__attribute__((format(printf, 1, 2), noreturn)) static void hang(const char *fmt, ...)
{
	va_list ap;
	printf("FAIL - leave %s: hang: ", case_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n# 0 passed, 1 failed (backend %s)\n", check_backend());
	fflush(stdout);
	_exit(1);
}

static int past(const struct timespec *end)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > end->tv_sec || (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec);
}

/* Waits until the thread has armed (set just before its blocking call) and
 * then sleeps.  Returns 0 if it did not park within PARK_MS. */
static int wait_parked(atomic_int *tid, atomic_int *armed)
{
	struct timespec end = deadline_in(CLOCK_MONOTONIC, PARK_MS);
	while (!atomic_load(armed) || !atomic_load(tid)) {
		if (past(&end))
			return 0;
		usleep(50);
	}
	while (thread_state(atomic_load(tid)) != 'S') {
		if (past(&end))
			return 0;
		usleep(50);
	}
	return 1;
}

static void *join_bounded(pthread_t t, const char *who)
{
	void *res;
	struct timespec d = deadline_in(CLOCK_REALTIME, HANG_MS);
	if (pthread_timedjoin_np(t, &res, &d) != 0)
		hang("%s did not finish within %d ms", who, HANG_MS);
	return res;
}

/* The test's own lock calls are bounded too: a mutex that stays busy is
 * reported, not waited on forever. */
static void lock_bounded(pthread_mutex_t *m, const char *what)
{
	struct timespec d = deadline_in(CLOCK_REALTIME, HANG_MS);
	int rc = pthread_mutex_timedlock(m, &d);
	if (rc == ETIMEDOUT)
		hang("%s: the mutex stays busy", what);
	if (rc != 0)
		hang("%s: timedlock returned %d (%s)", what, rc, strerror(rc));
}

/* Oversubscription: these races hide when threads seldom queue, so busy
 * threads keep every core taken and waiters get preempted at any point.
 * Half of them take and release a mutex of their own (through the
 * interposed lock), half only burn CPU. */
static atomic_int hogs_stop;
static pthread_mutex_t hog_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_t *hog_threads;
static int hog_count;

static void *hog(void *arg)
{
	volatile unsigned long x = 0;
	while (!atomic_load_explicit(&hogs_stop, memory_order_relaxed)) {
		if (arg)
			pthread_mutex_lock(&hog_m);
		for (int i = 0; i < 200; i++)
			x++;
		if (arg)
			pthread_mutex_unlock(&hog_m);
	}
	return NULL;
}

static void hogs_start(int n)
{
	hog_count = n;
	hog_threads = calloc(n ? n : 1, sizeof *hog_threads);
	for (long i = 0; i < n; i++)
		pthread_create(&hog_threads[i], NULL, hog, (void *)(i & 1));
}

static void hogs_stop_all(void)
{
	atomic_store(&hogs_stop, 1);
	for (int i = 0; i < hog_count; i++)
		join_bounded(hog_threads[i], "a busy (oversubscription) thread");
}

#endif
