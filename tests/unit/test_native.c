/*
 * test_native.c - the native API (include/lockswap.h): init/flavour/
 * destroy results, and a shared counter under each flavour with many
 * threads.  Behaviour only.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../include/lockswap.h"
#include "../../core/runtime/wait.h"

#define NTHREADS 4
#define PER_THREAD 50000

static const int flavours[] = { LOCKSWAP_BCS, LOCKSWAP_BCS_WF, LOCKSWAP_COMBINING };

static void native_init_flavours(void **st)
{
	lockswap_lock_t l = LOCKSWAP_LOCK_INITIALIZER;
	assert_int_equal(lockswap_lock_flavour(&l), LOCKSWAP_BCS);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(lockswap_lock_init(&l, flavours[i]), 0);
		assert_int_equal(lockswap_lock_flavour(&l), flavours[i]);
		assert_int_equal(lockswap_lock_destroy(&l), 0);
	}
	assert_int_equal(lockswap_lock_init(&l, LOCKSWAP_COMBINING), 0);
	assert_int_equal(lockswap_lock_init(&l, 0), EINVAL);
	assert_int_equal(lockswap_lock_init(&l, 4), EINVAL);
	assert_int_equal(lockswap_lock_init(&l, -1), EINVAL);
	assert_int_equal(lockswap_lock_flavour(&l), LOCKSWAP_COMBINING); /* untouched */
}

static lockswap_lock_t lock;
static long counter;              /* plain: only closures touch it */
static _Atomic int inside;
static _Atomic unsigned overlaps;

struct add { long by, result; };

static void add(void *arg)
{
	struct add *a = arg;
	if (atomic_exchange(&inside, 1))
		atomic_fetch_add(&overlaps, 1);
	counter += a->by;
	a->result = counter;          /* read back by the caller */
	atomic_store(&inside, 0);
}

static void *adder(void *arg)
{
	long prev = 0;
	for (int i = 0; i < PER_THREAD; i++) {
		struct add a = { 1, 0 };
		lockswap_with(&lock, add, &a);
		if (a.result <= prev)   /* effects visible, counter only grows */
			return (void *)1;
		prev = a.result;
	}
	return NULL;
}

static void run_counter(int flavour)
{
	pthread_t th[NTHREADS];
	assert_int_equal(lockswap_lock_init(&lock, flavour), 0);
	counter = 0;
	atomic_store(&overlaps, 0);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, adder, NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
	}
	assert_int_equal(counter, (long)NTHREADS * PER_THREAD);
	assert_int_equal(atomic_load(&overlaps), 0);
	assert_int_equal(lockswap_lock_destroy(&lock), 0);
}

static void native_counter_bcs(void **st) { run_counter(LOCKSWAP_BCS); }
static void native_counter_bcs_wf(void **st) { run_counter(LOCKSWAP_BCS_WF); }
static void native_counter_combining(void **st) { run_counter(LOCKSWAP_COMBINING); }

/* destroy reports EBUSY while a closure runs, and the lock stays usable. */
static _Atomic int gate, running;

static void hold(void *arg)
{
	atomic_store(&running, 1);
	while (!atomic_load(&gate))
		sched_yield();
}

static void *holder(void *arg)
{
	lockswap_with(&lock, hold, NULL);
	return NULL;
}

static void native_destroy_busy(void **st)
{
	for (int i = 0; i < 3; i++) {
		pthread_t t;
		assert_int_equal(lockswap_lock_init(&lock, flavours[i]), 0);
		atomic_store(&gate, 0);
		atomic_store(&running, 0);
		pthread_create(&t, NULL, holder, NULL);
		while (!atomic_load(&running))
			sched_yield();
		assert_int_equal(lockswap_lock_destroy(&lock), EBUSY);
		atomic_store(&gate, 1);
		pthread_join(t, NULL);
		assert_int_equal(lockswap_lock_destroy(&lock), 0);
	}
}

/* The thread-local pitfall, shown the right way round: state reached
 * through arg is the caller's wherever fn runs. */
static _Thread_local int tls_value;

static void set_through_arg(void *arg)
{
	*(int *)arg = 8;
}

static void native_state_through_arg(void **st)
{
	for (int i = 0; i < 3; i++) {
		assert_int_equal(lockswap_lock_init(&lock, flavours[i]), 0);
		tls_value = 0;
		lockswap_with(&lock, set_through_arg, &tls_value);
		assert_int_equal(tls_value, 8);
	}
}

/* lockswap_set_spin: the waiting policy sees the value (spin 0: no waiter
 * is admitted to spin, it parks at once; N: N polls), out-of-range values
 * are refused and change nothing, and every flavour stays exact when all
 * its waiters park at once. */
static bool may_spin(uint32_t *budget)
{
	static int word;
	struct ls_spin s;
	if (!ls_spin_start(&s, &word))
		return false;
	*budget = s.budget;
	ls_spin_stop(&s, false);
	return true;
}

static void native_set_spin(void **st)
{
	uint32_t budget = 0;
	assert_int_equal(lockswap_set_spin(0), 0);
	assert_false(may_spin(&budget));
	assert_int_equal(lockswap_set_spin(-2), EINVAL);
	assert_int_equal(lockswap_set_spin(LOCKSWAP_SPIN_MAX + 1), EINVAL);
	assert_int_equal(lockswap_set_spin(0x100000000L), EINVAL);
	assert_false(may_spin(&budget));            /* still 0 */
	for (int i = 0; i < 3; i++)
		run_counter(flavours[i]);
	assert_int_equal(lockswap_set_spin(LOCKSWAP_SPIN_MAX), 0);
	if (ls_wait_spin_bound() > 0) {
		assert_true(may_spin(&budget));
		assert_int_equal(budget, LOCKSWAP_SPIN_MAX);
	}
	assert_int_equal(lockswap_set_spin(LOCKSWAP_SPIN_ADAPTIVE), 0);
	assert_int_equal(atomic_load(&ls_spin_limit), LS_SPIN_ADAPTIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(native_init_flavours),
		cmocka_unit_test(native_counter_bcs),
		cmocka_unit_test(native_counter_bcs_wf),
		cmocka_unit_test(native_counter_combining),
		cmocka_unit_test(native_destroy_busy),
		cmocka_unit_test(native_state_through_arg),
		cmocka_unit_test(native_set_spin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
