/*
 * test_queued.c - word-sized queued mutex (core/mutex/queued.h,
 * backends/queued.c): oldest waiter first, timeouts, fork, and the
 * LOCKSWAP_FAIR_US handoff.  Behaviour only, never timing.
 */
#include "lock_checks.h"

#include "../../core/mutex/queued.h"

extern const struct ls_lock_ops ls_backend_queued;

static uint64_t word_of(void *s)
{
	return atomic_load(&((struct ls_queued *)s)->word);
}

/* The newest waiter's record id: changes with every push. */
static uint64_t queued_sig(void *s)
{
	return (word_of(s) & LS_QUEUED_HEAD_MASK) >> LS_QUEUED_HEAD_SHIFT;
}

static int setup(void **state)
{
	ops = &ls_backend_queued;
	sig = queued_sig;
	mx_iters = 20000;
	return 0;
}

static int fair_off(void **state)
{
	atomic_store(&ls_queued_fair_us, 0);
	return 0;
}

static void test_mutex(void **state) { check_mutex(); }
static void test_try_timed(void **state) { check_try_timed(); }
/* Waiters parked one at a time are woken oldest first; nobody barges. */
static void test_fifo(void **state) { check_fifo(FIFO_N, -1); }
/* Timed out as the newest, a middle and the oldest waiter: it unlinks
 * itself under the queue lock; the wake order of the rest is kept. */
static void test_timeout_oldest(void **state) { check_fifo(3, 0); }
static void test_timeout_middle(void **state) { check_fifo(3, 1); }
static void test_timeout_newest(void **state) { check_fifo(3, 2); }
static void test_timeout_many(void **state)
{
	check_fifo(8, 4);
	check_fifo(8, 7);
}
static void test_fork(void **state) { check_fork(3); }

static void test_mutex_fair(void **state)
{
	atomic_store(&ls_queued_fair_us, 1);
	check_mutex();
	atomic_store(&ls_queued_fair_us, 0);
}

/* With LOCKSWAP_FAIR_US, an unlock that finds a waiter older than that
 * hands the lock over: LOCKED never clears, so an immediate trylock by
 * the releasing thread fails, and the waiter holds the lock. */
static _Atomic int got;

static void *fair_waiter(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	atomic_store(&got, 1);
	while (atomic_load(&got) != 2)
		usleep(100);
	ops->unlock(st);
	return NULL;
}

static void test_fair_handoff(void **state)
{
	atomic_store(&ls_queued_fair_us, 1);
	reset();
	atomic_store(&got, 0);
	assert_int_equal(ops->lock(st), 0);
	uint64_t s0 = sig(st);
	pthread_t t = spawn(fair_waiter, 0);
	await_change(s0);
	usleep(2000); /* queued for well over 1 us */
	ops->unlock(st);
	assert_int_equal(ops->trylock(st), EBUSY);
	while (!atomic_load(&got))
		usleep(100);
	assert_true(ops->is_locked(st));
	atomic_store(&got, 2);
	join(t);
	assert_int_equal(word_of(st), 0);
	atomic_store(&ls_queued_fair_us, 0);
	check_fifo(FIFO_N, 2);
}

/* Leftovers of a fork (a list and a queue-lock bit of dead threads, from
 * another epoch) are dropped by the first push or unlock. */
static void test_stale_list(void **state)
{
	reset();
	uint64_t other = ((atomic_load(&ls_fork_epoch) + 1) & 0xffu);
	uint64_t w = LS_QUEUED_LOCKED | LS_QUEUED_QLOCKED | (7ull << LS_QUEUED_HEAD_SHIFT) |
	             (other << LS_QUEUED_EPOCH_SHIFT);
	atomic_store(&((struct ls_queued *)st)->word, w);
	ops->unlock(st);
	assert_int_equal(word_of(st), 0);
	/* Held, stale list: a timed locker starts a fresh list, times out
	 * cleanly, and leaves LOCKED alone. */
	atomic_store(&((struct ls_queued *)st)->word, w);
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 10);
	assert_int_equal(ops->timedlock(st, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	assert_int_equal(word_of(st), LS_QUEUED_LOCKED);
	ops->unlock(st);
	assert_int_equal(word_of(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try_timed),
		cmocka_unit_test(test_mutex),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_timeout_oldest),
		cmocka_unit_test(test_timeout_middle),
		cmocka_unit_test(test_timeout_newest),
		cmocka_unit_test(test_timeout_many),
		cmocka_unit_test_teardown(test_mutex_fair, fair_off),
		cmocka_unit_test_teardown(test_fair_handoff, fair_off),
		cmocka_unit_test(test_stale_list),
		cmocka_unit_test(test_fork),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
