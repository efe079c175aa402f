/*
 * test_wait.c - the waiting policy (core/runtime/wait.h): the spinner bound holds
 * under contention, the LOCKSWAP_SPIN override and 0 behave as documented,
 * and cancellation scopes are inert without the embedder's hooks.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../core/runtime/spin.h"
#include "../../core/runtime/thread.h"
#include "../../core/mutex/tts.h"
#include "../../core/runtime/wait.h"

#define THREADS 8
#define ITERS 20000

static struct ls_tts lock;
static volatile long counter;
static atomic_int running;
static atomic_uint max_seen, over_bound;

static void *contender(void *arg)
{
	for (int i = 0; i < ITERS; i++) {
		ls_tts_lock(&lock);
		counter++;
		for (int k = 0; k < 20; k++) /* a critical section worth spinning for */
			ls_cpu_relax();
		ls_tts_unlock(&lock);
	}
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* Samples the spinner count while the contenders run. */
static void *monitor(void *arg)
{
	while (atomic_load(&running) > 0) {
		unsigned n = ls_wait_spinners();
		if (n > ls_wait_spin_bound())
			atomic_fetch_add(&over_bound, 1);
		unsigned m = atomic_load(&max_seen);
		while (n > m && !atomic_compare_exchange_weak(&max_seen, &m, n))
			;
	}
	return NULL;
}

static void run_contenders(void)
{
	pthread_t t[THREADS], mon;
	counter = 0;
	atomic_store(&running, THREADS);
	atomic_store(&max_seen, 0);
	atomic_store(&over_bound, 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, contender, NULL), 0);
	assert_int_equal(pthread_create(&mon, NULL, monitor, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_join(mon, NULL);
	assert_int_equal(counter, (long)THREADS * ITERS);
}

/* Pretend 4 CPUs (bound 2): 8 contenders never have more than 2 spinning
 * (sampled), and every spinner leaves the count. */
static void spinner_bound_holds(void **state)
{
	ls_wait_set_cpus(4);
	assert_int_equal(ls_wait_spin_bound(), 2);
	run_contenders();
	assert_int_equal(atomic_load(&over_bound), 0);
	assert_true(atomic_load(&max_seen) <= 2);
	assert_int_equal(ls_wait_spinners(), 0);
	ls_wait_set_cpus(0);
}

/* The same bound, deterministically: with more live threads than may
 * spin, the third concurrent spin phase is refused until one stops. */
static pthread_barrier_t parked_barrier;
static void *live_thread(void *arg)
{
	ls_thread_self(); /* a record: counts as live */
	pthread_barrier_wait(&parked_barrier);
	pthread_barrier_wait(&parked_barrier);
	return NULL;
}

static void third_spinner_refused(void **state)
{
	pthread_t t[3];
	pthread_barrier_init(&parked_barrier, NULL, 4);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&t[i], NULL, live_thread, NULL), 0);
	pthread_barrier_wait(&parked_barrier); /* 4 live threads > bound 2 */
	ls_thread_self();
	ls_wait_set_cpus(4);
	struct ls_spin a, b, c;
	assert_true(ls_spin_start(&a, &lock));
	assert_true(ls_spin_start(&b, &lock));
	assert_int_equal(ls_wait_spinners(), 2);
	assert_false(ls_spin_start(&c, &lock));
	ls_spin_stop(&a, false);
	assert_true(ls_spin_start(&c, &lock));
	ls_spin_stop(&b, false);
	ls_spin_stop(&c, false);
	assert_int_equal(ls_wait_spinners(), 0);
	ls_wait_set_cpus(0);
	pthread_barrier_wait(&parked_barrier);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&parked_barrier);
}

/* One CPU: nobody may spin at all. */
static void one_cpu_never_spins(void **state)
{
	ls_wait_set_cpus(1);
	assert_int_equal(ls_wait_spin_bound(), 0);
	struct ls_spin s;
	assert_false(ls_spin_start(&s, &lock));
	run_contenders();
	assert_int_equal(atomic_load(&max_seen), 0);
	ls_wait_set_cpus(0);
}

/* LOCKSWAP_SPIN=N: exactly N polls per phase; 0: no spinning. */
static void fixed_override(void **state)
{
	ls_wait_set_cpus(4);
	atomic_store(&ls_spin_limit, 5);
	struct ls_spin s;
	assert_true(ls_spin_start(&s, &lock));
	int polls = 1;
	while (ls_spin_more(&s))
		polls++;
	ls_spin_stop(&s, false);
	assert_int_equal(polls, 5);
	atomic_store(&ls_spin_limit, 0);
	assert_false(ls_spin_start(&s, &lock));
	int evaluated = 0;
	assert_false(LS_SPIN_UNTIL(&lock, ++evaluated > 100));
	assert_int_equal(evaluated, 1); /* checked once, no spinning */
	atomic_store(&ls_spin_limit, LS_SPIN_ADAPTIVE);
	ls_wait_set_cpus(0);
}

/* The adaptive budget ends: a condition that never comes true stops
 * spinning (within LS_SPIN_MAX_NS, not timed here) and halves nothing
 * below 1. */
static void adaptive_budget_ends(void **state)
{
	ls_wait_set_cpus(4);
	int never = 0;
	assert_false(LS_SPIN_UNTIL(&never, never != 0));
	assert_false(LS_SPIN_UNTIL_MOVING(&never, never != 0, never));
	assert_int_equal(ls_wait_spinners(), 0);
	ls_wait_set_cpus(0);
}

static int leave_runs;
static void count_leave(void *arg) { leave_runs++; }

/* Without hooks (a program that is not the interposer), scopes and frames
 * change nothing and parks are plain futex waits. */
static void scopes_inert_without_hooks(void **state)
{
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	ls_wait_enter(&sc);
	assert_false(sc.held);
	ls_wait_push(&f, count_leave, NULL);
	assert_false(f.linked);
	_Atomic uint32_t word = 1;
	assert_int_equal(ls_park(&word, 0, CLOCK_MONOTONIC, NULL), EAGAIN);
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	assert_int_equal(leave_runs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spinner_bound_holds),
		cmocka_unit_test(third_spinner_refused),
		cmocka_unit_test(one_cpu_never_spins),
		cmocka_unit_test(fixed_override),
		cmocka_unit_test(adaptive_budget_ends),
		cmocka_unit_test(scopes_inert_without_hooks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
