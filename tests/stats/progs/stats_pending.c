/*
 * stats_pending.c - a sampled contended wait is recorded after the
 * release of the lock it ended in (stats/record.c wait_defer), and never
 * lost.  Run under LOCKSWAP_STATS=summary, LOCKSWAP_STATS_SAMPLE=1 (every
 * contended wait timed), LOCKSWAP_STATS_SIGNAL=USR2 and LOCKSWAP_STATS_FILE
 * by tests/stats/run_stats.py (test_pending_wait), which reads the dumps.
 *
 * Three waiters, each blocked on a mutex that main holds until the
 * waiter is asleep in its lock call, then let in:
 *   - pend_waiter keeps pend_lock until the end: its wait is still pending
 *     at the mid-run dump (no wait sample), and recorded at its release;
 *   - exit_waiter exits holding exit_lock: its thread's exit records it;
 *   - cond_waiter waits on a condvar holding cv_lock (the wait releases
 *     the mutex without an observed unlock, so its begin records it),
 *     then keeps cv_lock until the end.
 * Then main sends itself the statistics signal, waits for the dump to
 * appear at argv[1], and copies it to argv[1].during before letting the
 * waiters go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../preload/check.h"
#include "../../thread_state.h"

static pthread_mutex_t pend_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t exit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static _Atomic int holding, release_all;

struct waiter {
	pthread_mutex_t *lock;
	_Atomic pid_t tid;
	int cond_wait, keep;
};

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&t, NULL);
}

static void *waiter(void *arg)
{
	struct waiter *w = arg;
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(w->lock);
	if (w->cond_wait) {
		struct timespec until = deadline_in(CLOCK_REALTIME, 10);
		int e;
		while ((e = pthread_cond_timedwait(&cv, w->lock, &until)) == 0)
			;
		CHECK_EQ(e, ETIMEDOUT, "the condvar wait timed out");
	}
	if (!w->keep)
		return NULL; /* exits holding the mutex */
	holding++;
	while (!release_all)
		pause_ms(1);
	pthread_mutex_unlock(w->lock);
	return NULL;
}

/* Start a waiter on a mutex held here; let it in once it sleeps in its
 * lock call (at most 5 s: a waiter let in earlier may find the mutex
 * free, which the test sees as contended != 1). */
static void let_in(pthread_t *t, struct waiter *w)
{
	pthread_mutex_lock(w->lock);
	pthread_create(t, NULL, waiter, w);
	for (int i = 0; i < 5000 && !(w->tid && thread_state(w->tid) == 'S'); i++)
		pause_ms(1);
	pause_ms(5);
	pthread_mutex_unlock(w->lock);
}

static int copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;
	int ok = in >= 0 && out >= 0;
	while (ok && (n = read(in, buf, sizeof buf)) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: stats_pending STATS_FILE\n");
		return 2;
	}
	char during[4096];
	snprintf(during, sizeof during, "%s.during", argv[1]);
	struct waiter ex = { &exit_lock, 0, 0, 0 }, cw = { &cv_lock, 0, 1, 1 },
	              pw = { &pend_lock, 0, 0, 1 };
	pthread_t te, tc, tp;
	let_in(&te, &ex);
	pthread_join(te, NULL);
	let_in(&tc, &cw);
	let_in(&tp, &pw);
	for (int i = 0; i < 10000 && holding < 2; i++)
		pause_ms(1);
	CHECK_EQ(holding, 2, "both keepers hold their mutex");
	kill(getpid(), SIGUSR2);
	int seen = 0;
	for (int i = 0; i < 10000 && !(seen = access(argv[1], R_OK) == 0); i++)
		pause_ms(1);
	CHECK(seen && copy(argv[1], during), "the mid-run dump was written and copied");
	release_all = 1;
	pthread_join(tc, NULL);
	pthread_join(tp, NULL);
	return check_finish();
}
