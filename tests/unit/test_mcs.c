/*
 * test_mcs.c - FIFO MCS queue lock with per-thread node pools and
 * abandoned nodes (core/mcs.h, core/qnode.h, backends/mcs.c).
 * Behaviour only, never timing.
 */
/* ---- shared checks (every lock test file carries its own copy) -------- */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../backends/backend.h"
#include "../../core/spin.h"
#include "../../core/thread.h"

/* The lock under test: its ops, and a signature of its state that changes
 * whenever one more waiter is queued or parked (to sequence arrivals). */
static const struct ls_lock_ops *ops;
static uint64_t (*sig)(void *state);
static _Alignas(16) unsigned char st[LS_LOCK_STATE_BYTES];

static void reset(void)
{
	memset(st, 0, sizeof st);
}

static struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Poll until sig(st) differs from s0 (10 s at most: a hang is a failure). */
static void await_change(uint64_t s0)
{
	for (int i = 0; i < 100000 && sig(st) == s0; i++)
		usleep(100);
	assert_true(sig(st) != s0);
}

static pthread_t spawn(void *(*fn)(void *), long arg)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fn, (void *)arg), 0);
	return t;
}

static long join(pthread_t t)
{
	void *r;
	pthread_join(t, &r);
	return (long)r;
}

/* -- mutual exclusion: lock, trylock, timedlock and short timeouts mixed */

#define MX_THREADS 8
static int mx_iters = 4000;
static long counter;             /* plain: only critical sections touch it */
static _Atomic int inside, violations;
static _Atomic long successes;
static _Atomic int go;

static void *mx_worker(void *arg)
{
	long id = (long)arg;
	while (!atomic_load(&go))
		sched_yield();
	for (int i = 0; i < mx_iters; i++) {
		int mode = (int)((i + id) % 8);
		if (mode == 0) {
			while (ops->trylock(st) != 0)
				sched_yield();
		} else if (mode == 1) {
			/* A timeout that (almost) always fires under contention. */
			struct timespec t = in_ms(CLOCK_MONOTONIC, 0);
			if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != 0)
				continue;
		} else if (mode == 2) {
			struct timespec t = in_ms(CLOCK_REALTIME, 10000);
			int r = ops->timedlock(st, CLOCK_REALTIME, &t);
			if (r != 0) {
				/* 10 s: a lost wake-up, not slowness (cmocka's asserts
				 * must stay in the main thread). */
				fprintf(stderr, "timedlock(10 s) = %d\n", r);
				atomic_fetch_add(&violations, 1);
				continue;
			}
		} else if (ops->lock(st) != 0) {
			atomic_fetch_add(&violations, 1);
			continue;
		}
		if (atomic_fetch_add(&inside, 1) != 0)
			atomic_fetch_add(&violations, 1);
		counter++;
		for (int k = 0; k < 30; k++) /* widen the critical section */
			ls_cpu_relax();
		atomic_fetch_sub(&inside, 1);
		atomic_fetch_add(&successes, 1);
		ops->unlock(st);
		if (i % 16 == 0) /* mix the threads on 2 cores */
			sched_yield();
	}
	return NULL;
}

static void check_mutex(void)
{
	reset();
	counter = 0;
	atomic_store(&violations, 0);
	atomic_store(&successes, 0);
	atomic_store(&go, 0);
	pthread_t t[MX_THREADS];
	for (long i = 0; i < MX_THREADS; i++)
		t[i] = spawn(mx_worker, i);
	atomic_store(&go, 1);
	for (int i = 0; i < MX_THREADS; i++)
		join(t[i]);
	assert_int_equal(atomic_load(&violations), 0);
	assert_int_equal(counter, atomic_load(&successes));
	assert_true(counter >= (long)MX_THREADS * mx_iters * 7 / 8);
	assert_false(ops->is_locked(st));
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

/* -- trylock / timedlock results */

static void *try_other(void *arg)
{
	struct timespec t, past = { -1, 0 };
	if (ops->trylock(st) != EBUSY)
		return (void *)1;
	t = in_ms(CLOCK_MONOTONIC, 30);
	if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
		return (void *)2;
	t = in_ms(CLOCK_REALTIME, 30);
	if (ops->timedlock(st, CLOCK_REALTIME, &t) != ETIMEDOUT)
		return (void *)3;
	if (ops->timedlock(st, CLOCK_MONOTONIC, &past) != ETIMEDOUT)
		return (void *)4;
	t.tv_sec = 0; /* 1970: expired, but not negative */
	if (ops->timedlock(st, CLOCK_REALTIME, &t) != ETIMEDOUT)
		return (void *)5;
	return NULL;
}

static void check_try_timed(void)
{
	reset();
	struct timespec past = { -1, 0 }, t;
	assert_false(ops->is_locked(st));
	assert_int_equal(ops->trylock(st), 0);
	assert_true(ops->is_locked(st));
	assert_int_equal(join(spawn(try_other, 0)), 0);
	ops->unlock(st);
	assert_false(ops->is_locked(st));
	/* Expired deadlines still take a free lock. */
	assert_int_equal(ops->timedlock(st, CLOCK_MONOTONIC, &past), 0);
	ops->unlock(st);
	t = in_ms(CLOCK_REALTIME, 1000);
	assert_int_equal(ops->timedlock(st, CLOCK_REALTIME, &t), 0);
	ops->unlock(st);
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	assert_false(ops->is_locked(st));
	/* Holder retries with timedlock on its own lock: times out, leaves. */
	assert_int_equal(ops->lock(st), 0);
	t = in_ms(CLOCK_MONOTONIC, 20);
	assert_int_equal(ops->timedlock(st, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	ops->unlock(st);
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

/* -- FIFO admission with controlled arrivals, and timed-out waiters */

#define FIFO_N 6
static int order[64];
static _Atomic int norder;
static int timed_slot = -1;     /* arrival index that uses a short timedlock */
static int timed_result;
static bool timed_late;         /* it may only give up once the line moves */

static void *fifo_waiter(void *arg)
{
	int i = (int)(long)arg;
	if (i == timed_slot) {
		struct timespec t = in_ms(CLOCK_MONOTONIC, 100);
		timed_result = ops->timedlock(st, CLOCK_MONOTONIC, &t);
		if (timed_result == 0)
			ops->unlock(st);
		return NULL;
	}
	assert_int_equal(ops->lock(st), 0);
	order[atomic_fetch_add(&norder, 1)] = i;
	ops->unlock(st);
	return NULL;
}

/* Holder holds; n waiters arrive one at a time (each observably queued
 * before the next starts); one of them (timed) may time out meanwhile;
 * then release and check admission order. */
__attribute__((unused)) static void check_fifo(int n, int timed)
{
	pthread_t t[64];
	reset();
	atomic_store(&norder, 0);
	timed_slot = timed;
	timed_result = -1;
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < n; i++) {
		uint64_t s0 = sig(st);
		t[i] = spawn(fifo_waiter, i);
		await_change(s0);
	}
	if (timed >= 0 && !timed_late) {
		join(t[timed]);
		assert_int_equal(timed_result, ETIMEDOUT);
	}
	ops->unlock(st);
	for (int i = 0; i < n; i++)
		if (i != timed || timed_late)
			join(t[i]);
	if (timed_late)
		assert_true(timed_result == ETIMEDOUT || timed_result == 0);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (i != timed)
			assert_int_equal(order[k++], i);
	assert_int_equal(atomic_load(&norder), k);
	assert_false(ops->is_locked(st));
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

/* -- fork: the parent's other thread is queued on a lock the forking
 * thread holds; the child releases and reuses it.  A lock held by another
 * thread stays held in the child (EBUSY), as with glibc. */

static _Alignas(16) unsigned char st2[LS_LOCK_STATE_BYTES];
static _Atomic int hold2, release2;

static void *fork_waiter(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	return NULL;
}

static void *fork_holder(void *arg)
{
	assert_int_equal(ops->lock(st2), 0);
	atomic_store(&hold2, 1);
	while (!atomic_load(&release2))
		usleep(1000);
	ops->unlock(st2);
	return NULL;
}

static int child_checks(void)
{
	ls_thread_after_fork(); /* what the interposer's atfork handler does */
	alarm(10);              /* a hang fails the test instead of blocking it */
	ops->unlock(st);
	if (ops->lock(st) != 0)
		return 2;
	ops->unlock(st);
	if (ops->trylock(st) != 0)
		return 3;
	ops->unlock(st);
	struct timespec t = in_ms(CLOCK_MONOTONIC, 50);
	if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != 0)
		return 4;
	ops->unlock(st);
	if (ops->is_locked(st))
		return 5;
	if (ops->trylock(st2) != EBUSY)
		return 6;
	t = in_ms(CLOCK_MONOTONIC, 20);
	if (ops->timedlock(st2, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
		return 7;
	return 0;
}

__attribute__((unused)) static void check_fork(int nwaiters)
{
	pthread_t w[4], h;
	reset();
	memset(st2, 0, sizeof st2);
	atomic_store(&hold2, 0);
	atomic_store(&release2, 0);
	h = spawn(fork_holder, 0);
	while (!atomic_load(&hold2))
		usleep(1000);
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < nwaiters; i++) {
		uint64_t s0 = sig(st);
		w[i] = spawn(fork_waiter, i);
		await_change(s0);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_checks());
	assert_true(pid > 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ops->unlock(st);
	for (int i = 0; i < nwaiters; i++)
		join(w[i]);
	atomic_store(&release2, 1);
	join(h);
	assert_false(ops->is_locked(st));
}

#include <stdlib.h>

#include "../../core/mcs.h"
#include "../../core/qnode.h"

extern const struct ls_lock_ops ls_backend_mcs;

static uint32_t word_of(void *s)
{
	return atomic_load(&((struct ls_mcs *)s)->word);
}

/* The queue tail (a node id): changes with every arrival that queues. */
static uint64_t mcs_sig(void *s)
{
	return word_of(s) >> LS_MCS_TAIL_SHIFT;
}

static int setup(void **state)
{
	ops = &ls_backend_mcs;
	sig = mcs_sig;
	mx_iters = 20000;
	return 0;
}

static void test_mutex(void **state) { check_mutex(); }
static void test_try_timed(void **state) { check_try_timed(); }
static void test_fifo(void **state) { check_fifo(FIFO_N, -1); }
/* Timed out as the head (leaves, promoting its successor), in the middle
 * (abandoned node skipped by the promoter), and as the tail. */
static void test_timeout_head(void **state) { check_fifo(3, 0); }
static void test_timeout_middle(void **state) { check_fifo(3, 1); }
static void test_timeout_tail(void **state) { check_fifo(3, 2); }
static void test_fork(void **state) { check_fork(3); }

/* trylock does not pass a live queue even when LOCKED is clear. */
static void test_trylock_respects_queue(void **state)
{
	reset();
	atomic_store(&((struct ls_mcs *)st)->word, 5u << LS_MCS_TAIL_SHIFT);
	struct ls_qnode *n = ls_qnode_get(ls_thread_self());
	assert_non_null(n);
	/* Our own node stands in for a queued waiter of this epoch. */
	atomic_store(&n->epoch, atomic_load(&ls_fork_epoch));
	atomic_store(&n->state, LS_MCS_WAITING);
	atomic_store(&((struct ls_mcs *)st)->word, n->id << LS_MCS_TAIL_SHIFT);
	assert_int_equal(ops->trylock(st), EBUSY);
	/* The same queue stamped with an older epoch is a leftover: free. */
	atomic_store(&n->epoch, atomic_load(&ls_fork_epoch) + 1);
	assert_int_equal(ops->trylock(st), 0);
	assert_int_equal(word_of(st), LS_MCS_LOCKED);
	ops->unlock(st);
	ls_qnode_put(n);
}

/* Nesting: one thread holds many locks at once while other threads queue
 * on each of them; holders keep no node, so this needs one node per
 * waiting thread only. */
#define NEST 256
static _Alignas(16) unsigned char many[NEST][LS_LOCK_STATE_BYTES];
static _Atomic int nest_done;

static void *nest_waiter(void *arg)
{
	long k = (long)arg;
	for (int i = (int)k; i < NEST; i += 4) {
		assert_int_equal(ops->lock(many[i]), 0);
		ops->unlock(many[i]);
		atomic_fetch_add(&nest_done, 1);
	}
	return NULL;
}

static void test_nesting(void **state)
{
	memset(many, 0, sizeof many);
	atomic_store(&nest_done, 0);
	for (int i = 0; i < NEST; i++)
		assert_int_equal(ops->lock(many[i]), 0);
	pthread_t t[4];
	for (long k = 0; k < 4; k++)
		t[k] = spawn(nest_waiter, k);
	/* Each waiter queues on its first lock. */
	for (int i = 0; i < 4; i++)
		while (!(word_of(many[i]) >> LS_MCS_TAIL_SHIFT))
			usleep(100);
	for (int i = 0; i < NEST; i++)
		ops->unlock(many[i]);
	for (int k = 0; k < 4; k++)
		join(t[k]);
	assert_int_equal(atomic_load(&nest_done), NEST);
	for (int i = 0; i < NEST; i++)
		assert_int_equal(word_of(many[i]), 0);
}

/* A thread that times out again and again behind a queued waiter leaves
 * one abandoned node per attempt (its pool grows); the next promotion
 * passes through all of them and frees them; the pool is reused after. */
static void *blocked_head(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	return NULL;
}

#define RETRIES 40
static uint32_t retry_ids[RETRIES];

static void *retrier(void *arg)
{
	for (int i = 0; i < RETRIES; i++) {
		struct timespec t = in_ms(CLOCK_MONOTONIC, 1);
		if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
			return (void *)1;
		retry_ids[i] = word_of(st) >> LS_MCS_TAIL_SHIFT;
	}
	/* All abandoned nodes are still queued: none can be reused yet. */
	for (int i = 1; i < RETRIES; i++)
		if (retry_ids[i] == retry_ids[i - 1])
			return (void *)2;
	return NULL;
}

static void test_abandoned_pool(void **state)
{
	reset();
	assert_int_equal(ops->lock(st), 0);
	uint64_t s0 = sig(st);
	pthread_t h = spawn(blocked_head, 0);
	await_change(s0);
	assert_int_equal(join(spawn(retrier, 0)), 0);
	ops->unlock(st);
	join(h);
	assert_int_equal(word_of(st), 0);
	/* Every abandoned node was freed by the promotion that passed it. */
	for (int i = 0; i < RETRIES; i++)
		assert_int_equal(atomic_load(&ls_qnode_by_id(retry_ids[i])->state), LS_QNODE_FREE);
	check_fifo(3, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try_timed),
		cmocka_unit_test(test_mutex),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_timeout_head),
		cmocka_unit_test(test_timeout_middle),
		cmocka_unit_test(test_timeout_tail),
		cmocka_unit_test(test_trylock_respects_queue),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_abandoned_pool),
		cmocka_unit_test(test_fork),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
