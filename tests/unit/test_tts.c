/*
 * test_tts.c - test-and-test-and-set lock (core/mutex/tts.h, backends/tts.c).
 * Behaviour only, never timing.
 */
#include "lock_checks.h"

#include "../../core/mutex/tts.h"

extern const struct ls_lock_ops ls_backend_tts;

/* Parked waiters counted in the word. */
static uint64_t tts_sig(void *s)
{
	return atomic_load(&((struct ls_tts *)s)->word) / LS_TTS_WAITER;
}

static int setup(void **state)
{
	ops = &ls_backend_tts;
	sig = tts_sig;
	mx_iters = 40000;
	return 0;
}

static void test_mutex(void **state) { check_mutex(); }
static void test_try_timed(void **state) { check_try_timed(); }
static void test_fork(void **state) { check_fork(2); }

/* Parked waiters all get the lock, one wake per release (the count says
 * when a wake is needed); order is not checked: tts is unfair. */
static void test_parked_waiters(void **state)
{
	pthread_t t[FIFO_N];
	reset();
	atomic_store(&norder, 0);
	timed_slot = -1;
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < FIFO_N; i++) {
		uint64_t s0 = sig(st);
		t[i] = spawn(fifo_waiter, i);
		await_change(s0);
	}
	assert_int_equal(sig(st), FIFO_N);
	ops->unlock(st);
	for (int i = 0; i < FIFO_N; i++)
		join(t[i]);
	assert_int_equal(atomic_load(&norder), FIFO_N);
	assert_int_equal(atomic_load(&((struct ls_tts *)st)->word), 0);
}

/* A parked waiter that times out takes its count back. */
static void test_timeout_uncounts(void **state)
{
	reset();
	timed_slot = 0;
	assert_int_equal(ops->lock(st), 0);
	join(spawn(fifo_waiter, 0));
	assert_int_equal(timed_result, ETIMEDOUT);
	assert_int_equal(atomic_load(&((struct ls_tts *)st)->word), LS_TTS_LOCKED);
	ops->unlock(st);
	assert_int_equal(atomic_load(&((struct ls_tts *)st)->word), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try_timed),
		cmocka_unit_test(test_mutex),
		cmocka_unit_test(test_parked_waiters),
		cmocka_unit_test(test_timeout_uncounts),
		cmocka_unit_test(test_fork),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
