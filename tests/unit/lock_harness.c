#include "lock_harness.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../core/runtime/thread.h"
#include "../deadline.h"

struct shared {
	const struct ls_lock_ops *ops;
	_Alignas(8) unsigned char state[LS_LOCK_STATE_BYTES];
	long iters;
	volatile long counter;
	atomic_int inside;
	atomic_int overlap;
	atomic_int failures;
};

static void *hammer(void *arg)
{
	struct shared *s = arg;
	for (long i = 0; i < s->iters; i++) {
		int r = 0;
		switch (i % 3) {
		case 0: r = s->ops->lock(s->state); break;
		case 1:
			while (s->ops->trylock(s->state) == EBUSY)
				sched_yield();
			break;
		default: {
			do {
				struct timespec t = deadline_in(i & 4 ? CLOCK_REALTIME : CLOCK_MONOTONIC, 1);
				r = s->ops->timedlock(s->state, i & 4 ? CLOCK_REALTIME : CLOCK_MONOTONIC, &t);
			} while (r == ETIMEDOUT);
		}
		}
		if (r != 0)
			atomic_fetch_add(&s->failures, 1);
		if (atomic_fetch_add(&s->inside, 1) != 0)
			atomic_fetch_add(&s->overlap, 1);
		long v = s->counter;
		s->counter = v + 1;
		atomic_fetch_sub(&s->inside, 1);
		s->ops->unlock(s->state);
	}
	return NULL;
}

void lh_mutual_exclusion(const struct ls_lock_ops *ops, int threads, long iters)
{
	static struct shared s;
	memset(&s, 0, sizeof s);
	s.ops = ops;
	s.iters = iters;
	pthread_t t[128];
	assert_true(threads <= 128);
	for (int i = 0; i < threads; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, &s), 0);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&s.failures), 0);
	assert_int_equal(atomic_load(&s.overlap), 0);
	assert_int_equal(s.counter, threads * iters);
	assert_false(ops->is_locked(s.state));
}

static struct shared ts;
static int other_try;

static void *try_from_other(void *arg)
{
	other_try = ts.ops->trylock(ts.state);
	if (other_try == 0)
		ts.ops->unlock(ts.state);
	return NULL;
}

static int try_in_other_thread(void)
{
	pthread_t t;
	pthread_create(&t, NULL, try_from_other, NULL);
	pthread_join(t, NULL);
	return other_try;
}

void lh_try_and_timed(const struct ls_lock_ops *ops)
{
	memset(&ts, 0, sizeof ts);
	ts.ops = ops;
	assert_false(ops->is_locked(ts.state));
	assert_int_equal(ops->trylock(ts.state), 0);
	assert_true(ops->is_locked(ts.state));
	assert_int_equal(try_in_other_thread(), EBUSY);
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 5);
	assert_int_equal(ops->timedlock(ts.state, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	t = deadline_in(CLOCK_REALTIME, 5);
	assert_int_equal(ops->timedlock(ts.state, CLOCK_REALTIME, &t), ETIMEDOUT);
	struct timespec past = { 1, 0 }, negative = { -1, 0 };
	assert_int_equal(ops->timedlock(ts.state, CLOCK_REALTIME, &past), ETIMEDOUT);
	assert_int_equal(ops->timedlock(ts.state, CLOCK_MONOTONIC, &negative), ETIMEDOUT);
	ops->unlock(ts.state);
	assert_false(ops->is_locked(ts.state));
	assert_int_equal(try_in_other_thread(), 0);
	/* An expired deadline on a free lock still acquires it, as glibc. */
	assert_int_equal(ops->timedlock(ts.state, CLOCK_MONOTONIC, &negative), 0);
	ops->unlock(ts.state);
	t = deadline_in(CLOCK_MONOTONIC, 1000);
	assert_int_equal(ops->timedlock(ts.state, CLOCK_MONOTONIC, &t), 0);
	ops->unlock(ts.state);
	assert_int_equal(ops->lock(ts.state), 0);
	ops->unlock(ts.state);
}

static atomic_int timed_out, plain_got;

static void *timed_waiter(void *arg)
{
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 2 + (long)(uintptr_t)arg % 5);
	if (ts.ops->timedlock(ts.state, CLOCK_MONOTONIC, &t) == ETIMEDOUT)
		atomic_fetch_add(&timed_out, 1);
	else
		ts.ops->unlock(ts.state);
	return NULL;
}

static void *plain_waiter(void *arg)
{
	ts.ops->lock(ts.state);
	atomic_fetch_add(&plain_got, 1);
	ts.ops->unlock(ts.state);
	return NULL;
}

void lh_timeouts_leave_cleanly(const struct ls_lock_ops *ops)
{
	memset(&ts, 0, sizeof ts);
	ts.ops = ops;
	atomic_store(&timed_out, 0);
	atomic_store(&plain_got, 0);
	assert_int_equal(ops->lock(ts.state), 0);
	pthread_t t[9];
	for (uintptr_t i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, timed_waiter, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&timed_out), 8);
	pthread_create(&t[8], NULL, plain_waiter, NULL);
	usleep(10000);
	ops->unlock(ts.state);
	pthread_join(t[8], NULL);
	assert_int_equal(atomic_load(&plain_got), 1);
	assert_false(ops->is_locked(ts.state));
	/* Round two, waiters time out while a plain waiter is queued too. */
	assert_int_equal(ops->lock(ts.state), 0);
	pthread_create(&t[8], NULL, plain_waiter, NULL);
	for (uintptr_t i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, timed_waiter, (void *)i);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	ops->unlock(ts.state);
	pthread_join(t[8], NULL);
	assert_int_equal(atomic_load(&plain_got), 2);
}

static atomic_int stop_waiters;

static void *fork_waiter(void *arg)
{
	while (!atomic_load(&stop_waiters)) {
		if ((uintptr_t)arg & 1) {
			struct timespec t = deadline_in(CLOCK_MONOTONIC, 50);
			if (ts.ops->timedlock(ts.state, CLOCK_MONOTONIC, &t) == 0)
				ts.ops->unlock(ts.state);
		} else {
			ts.ops->lock(ts.state);
			ts.ops->unlock(ts.state);
		}
	}
	return NULL;
}

void lh_fork_child(const struct ls_lock_ops *ops)
{
	memset(&ts, 0, sizeof ts);
	ts.ops = ops;
	atomic_store(&stop_waiters, 0);
	pthread_t t[4];
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fork_waiter, (void *)i);
	int bad = 0;
	for (int round = 0; round < 20; round++) {
		ops->lock(ts.state);
		usleep(500); /* let the waiters queue or park behind us */
		pid_t pid = fork();
		if (pid == 0) {
			alarm(10);
			ops->unlock(ts.state);       /* no hand-off to a ghost */
			int ok = ops->trylock(ts.state) == 0;
			ops->unlock(ts.state);
			ok &= ops->lock(ts.state) == 0;
			ops->unlock(ts.state);
			ok &= !ops->is_locked(ts.state);
			_exit(ok ? 0 : 1);
		}
		ops->unlock(ts.state);
		int st;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	atomic_store(&stop_waiters, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(bad, 0);
}
