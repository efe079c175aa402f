/*
 * test_condvar.c - core/condvar/condvar.c, directly linked, with a futex lock as
 * the mutex.
 */
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

#include "../../core/condvar/condvar.h"
#include "../../core/runtime/futex.h"
#include "../../core/mutex/futexlock.h"
#include "../deadline.h"
#include "cv_race.h"

static struct ls_condvar cv;
static struct ls_futexlock mtx;

/* The pthread_cond_wait shape: enqueue, release, wait, re-take, baton. */
static int cond_wait(const struct timespec *deadline)
{
	struct ls_thread *self = ls_thread_self();
	ls_condvar_enqueue(&cv, self);
	ls_futexlock_unlock(&mtx);
	int r = ls_condvar_wait(&cv, self, CLOCK_MONOTONIC, deadline);
	ls_futexlock_lock(&mtx);
	if (r == 0)
		ls_condvar_pass_baton(self);
	return r;
}

static int reset(void **state)
{
	memset(&cv, 0, sizeof cv);
	memset(&mtx, 0, sizeof mtx);
	return 0;
}

static int queue_length(void)
{
	int n = 0;
	for (struct ls_thread *t = atomic_load(&cv.head); t; t = t->cv_next)
		n++;
	return n;
}

/* --- signal wakes the oldest waiter: FIFO order --- */
static atomic_int order[8], next_slot;

static void *fifo_waiter(void *arg)
{
	ls_futexlock_lock(&mtx);
	cond_wait(NULL);
	order[atomic_fetch_add(&next_slot, 1)] = (int)(uintptr_t)arg;
	ls_futexlock_unlock(&mtx);
	return NULL;
}

static void wait_for_queue(int n)
{
	for (;;) {
		ls_futexlock_lock(&mtx);
		int q = queue_length();
		ls_futexlock_unlock(&mtx);
		if (q >= n)
			return;
		usleep(500);
	}
}

static void signal_wakes_oldest_first(void **state)
{
	pthread_t t[8];
	atomic_store(&next_slot, 0);
	for (uintptr_t i = 0; i < 8; i++) {
		pthread_create(&t[i], NULL, fifo_waiter, (void *)i);
		wait_for_queue((int)i + 1); /* controlled arrival order */
	}
	for (int i = 0; i < 8; i++) {
		ls_futexlock_lock(&mtx);
		assert_int_equal(ls_condvar_signal(&cv), 1);
		ls_futexlock_unlock(&mtx);
		while (atomic_load(&next_slot) != i + 1)
			usleep(200);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(order[i], i);
	}
	assert_int_equal(ls_condvar_signal(&cv), 0);
}

/* --- broadcast: one waiter at a time leaves the cond while the mutex is
 * held; the rest follow through the baton chain --- */
static atomic_int left_wait, finished;

static void *baton_waiter(void *arg)
{
	struct ls_thread *self = ls_thread_self();
	ls_futexlock_lock(&mtx);
	ls_condvar_enqueue(&cv, self);
	ls_futexlock_unlock(&mtx);
	assert_int_equal(ls_condvar_wait(&cv, self, CLOCK_MONOTONIC, NULL), 0);
	atomic_fetch_add(&left_wait, 1); /* woken, before re-taking the mutex */
	ls_futexlock_lock(&mtx);
	ls_condvar_pass_baton(self);
	atomic_fetch_add(&finished, 1);
	ls_futexlock_unlock(&mtx);
	return NULL;
}

static void broadcast_wakes_one_at_a_time(void **state)
{
	enum { N = 16 };
	pthread_t t[N];
	atomic_store(&left_wait, 0);
	atomic_store(&finished, 0);
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, baton_waiter, NULL);
	wait_for_queue(N);
	ls_futexlock_lock(&mtx);
	assert_int_equal(ls_condvar_broadcast(&cv), N);
	usleep(50000); /* time for a stampede, were there one */
	assert_true(atomic_load(&left_wait) <= 1);
	ls_futexlock_unlock(&mtx);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&finished), N);
	assert_int_equal(queue_length(), 0);
}

/* --- timeouts leave the queue --- */
static void timeout_leaves_queue(void **state)
{
	ls_futexlock_lock(&mtx);
	struct timespec d = deadline_in(CLOCK_MONOTONIC, 5);
	assert_int_equal(cond_wait(&d), ETIMEDOUT);
	assert_int_equal(queue_length(), 0);
	struct timespec negative = { -1, 0 };
	assert_int_equal(cond_wait(&negative), ETIMEDOUT);
	assert_int_equal(queue_length(), 0);
	ls_futexlock_unlock(&mtx);
	assert_int_equal(ls_condvar_signal(&cv), 0);
}

/* --- every wake-up a signaller reports is consumed by exactly one
 * waiter, while waiters time out all around it --- */
static void race_lock(void) { ls_futexlock_lock(&mtx); }
static void race_unlock(void) { ls_futexlock_unlock(&mtx); }

static void wakeups_consumed_exactly_once(void **state)
{
	static struct cv_race r = { .cv = &cv, .lock = race_lock, .unlock = race_unlock,
	                            .wait = cond_wait };
	cv_race_run(&r);
	print_message("%ld wake-ups reported, %ld waits succeeded\n", atomic_load(&r.reported),
	              atomic_load(&r.succeeded));
	assert_true(atomic_load(&r.reported) > 0);
	assert_int_equal(atomic_load(&r.reported), atomic_load(&r.succeeded));
	assert_int_equal(queue_length(), 0);
}

/* --- a waiter that leaves after consuming a signal hands it on --- */
static atomic_int stage, second_result = -1;

static void *leaving_waiter(void *arg)
{
	struct ls_thread *self = ls_thread_self();
	ls_condvar_enqueue(&cv, self); /* first in line */
	atomic_store(&stage, 1);
	while (atomic_load(&stage) != 3)
		usleep(200);
	ls_condvar_leave(&cv, self); /* as a cancelled waiter does */
	return NULL;
}

static void *second_waiter(void *arg)
{
	struct ls_thread *self = ls_thread_self();
	ls_condvar_enqueue(&cv, self);
	atomic_store(&stage, 2);
	struct timespec d = deadline_in(CLOCK_MONOTONIC, 5000);
	atomic_store(&second_result, ls_condvar_wait(&cv, self, CLOCK_MONOTONIC, &d));
	return NULL;
}

static void consumed_signal_is_passed_on(void **state)
{
	pthread_t a, b;
	atomic_store(&stage, 0);
	pthread_create(&a, NULL, leaving_waiter, NULL);
	while (atomic_load(&stage) != 1)
		usleep(200);
	pthread_create(&b, NULL, second_waiter, NULL);
	while (atomic_load(&stage) != 2)
		usleep(200);
	assert_int_equal(ls_condvar_signal(&cv), 1); /* taken by the first */
	atomic_store(&stage, 3);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_int_equal(atomic_load(&second_result), 0);
}

/* --- fork: the child discards the parent's waiters --- */
static void *parked_forever(void *arg)
{
	ls_futexlock_lock(&mtx);
	struct timespec d = deadline_in(CLOCK_MONOTONIC, 2000);
	cond_wait(&d);
	ls_futexlock_unlock(&mtx);
	return NULL;
}

static void child_discards_ghost_waiters(void **state)
{
	pthread_t t;
	pthread_create(&t, NULL, parked_forever, NULL);
	wait_for_queue(1);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(5);
		int ok = ls_condvar_signal(&cv) == 0; /* the ghost is not woken */
		ok &= queue_length() == 0;
		ls_futexlock_lock(&mtx);
		struct timespec d = deadline_in(CLOCK_MONOTONIC, 2);
		ok &= cond_wait(&d) == ETIMEDOUT;
		ls_futexlock_unlock(&mtx);
		_exit(ok ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	ls_futexlock_lock(&mtx);
	assert_int_equal(ls_condvar_signal(&cv), 1); /* the parent's waiter is intact */
	ls_futexlock_unlock(&mtx);
	pthread_join(t, NULL);
}

int main(void)
{
	pthread_atfork(NULL, NULL, ls_thread_after_fork);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(signal_wakes_oldest_first, reset),
		cmocka_unit_test_setup(broadcast_wakes_one_at_a_time, reset),
		cmocka_unit_test_setup(timeout_leaves_queue, reset),
		cmocka_unit_test_setup(wakeups_consumed_exactly_once, reset),
		cmocka_unit_test_setup(consumed_signal_is_passed_on, reset),
		cmocka_unit_test_setup(child_discards_ghost_waiters, reset),
	};
	return cmocka_run_group_tests_name("condvar", tests, NULL, NULL);
}
