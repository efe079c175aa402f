/*
 * lock_checks.h - checks shared by the per-algorithm lock tests
 * (test_tts.c, test_ticket.c, test_mcs.c, test_queued.c, test_capacitor.c,
 * test_ces.c).
 * Included, not linked: each test binary gets its own copy of the state
 * below.  Before calling a check, the test sets `ops` (the lock under test)
 * and `sig` (a signature of its state that changes whenever one more waiter
 * is queued or parked, used to sequence arrivals).
 */
#ifndef LS_TEST_LOCK_CHECKS_H
#define LS_TEST_LOCK_CHECKS_H
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

#include "../deadline.h"

#include "../../backends/backend.h"
#include "../../core/runtime/spin.h"
#include "../../core/runtime/qnode.h"
#include "../../core/runtime/thread.h"

/* The lock under test: its ops, and a signature of its state that changes
 * whenever one more waiter is queued or parked (to sequence arrivals). */
static const struct ls_lock_ops *ops;
static uint64_t (*sig)(void *state);
static _Alignas(16) unsigned char st[LS_LOCK_STATE_BYTES];

static void reset(void)
{
	memset(st, 0, sizeof st);
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

/* Start fn(arg) and wait until it is observably queued or parked on the
 * lock (sig(st) changed), so that arrivals happen in a known order. */
static pthread_t spawn_queued(void *(*fn)(void *), long arg)
{
	uint64_t s0 = sig(st);
	pthread_t t = spawn(fn, arg);
	await_change(s0);
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
			struct timespec t = deadline_in(CLOCK_MONOTONIC, 0);
			if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != 0)
				continue;
		} else if (mode == 2) {
			struct timespec t = deadline_in(CLOCK_REALTIME, 10000);
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
	t = deadline_in(CLOCK_MONOTONIC, 30);
	if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
		return (void *)2;
	t = deadline_in(CLOCK_REALTIME, 30);
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
	t = deadline_in(CLOCK_REALTIME, 1000);
	assert_int_equal(ops->timedlock(st, CLOCK_REALTIME, &t), 0);
	ops->unlock(st);
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	assert_false(ops->is_locked(st));
	/* Holder retries with timedlock on its own lock: times out, leaves. */
	assert_int_equal(ops->lock(st), 0);
	t = deadline_in(CLOCK_MONOTONIC, 20);
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
		struct timespec t = deadline_in(CLOCK_MONOTONIC, 100);
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
		t[i] = spawn_queued(fifo_waiter, i);
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
	ls_qnode_after_fork();
	alarm(10);              /* a hang fails the test instead of blocking it */
	ops->unlock(st);
	if (ops->lock(st) != 0)
		return 2;
	ops->unlock(st);
	if (ops->trylock(st) != 0)
		return 3;
	ops->unlock(st);
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 50);
	if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != 0)
		return 4;
	ops->unlock(st);
	if (ops->is_locked(st))
		return 5;
	if (ops->trylock(st2) != EBUSY)
		return 6;
	t = deadline_in(CLOCK_MONOTONIC, 20);
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
		w[i] = spawn_queued(fork_waiter, i);
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



/* -- unlock misuse glibc survives: unlocking a free lock changes nothing
 * (word(st) before and after), a second unlock of a released lock neither,
 * and a non-owner's unlock of a held lock followed by the owner's leaves
 * the lock idle (`idle` asserts the algorithm's own notion) and usable. */

static _Atomic int misuse_locked, misuse_go;
static void *misuse_owner(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	atomic_store(&misuse_locked, 1);
	while (!atomic_load(&misuse_go))
		usleep(1000);
	ops->unlock(st);
	return NULL;
}

__attribute__((unused)) static void check_unlock_misuse(uint64_t (*word)(void *s),
                                                        void (*idle)(void))
{
	reset();
	ops->unlock(st);
	assert_int_equal(word(st), 0);
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	uint64_t w = word(st);
	ops->unlock(st);
	assert_int_equal(word(st), w);
	atomic_store(&misuse_locked, 0);
	atomic_store(&misuse_go, 0);
	pthread_t t = spawn(misuse_owner, 0);
	while (!atomic_load(&misuse_locked))
		usleep(1000);
	ops->unlock(st); /* not ours */
	atomic_store(&misuse_go, 1);
	join(t);
	idle();
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	idle();
}

#endif
