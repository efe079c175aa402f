/*
 * test_combining.c - the combining lock (core/delegation/combining.h): every closure
 * runs exactly once, never two at a time, and its effects are visible to
 * its caller when ls_combining_with returns.  Behaviour only.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/delegation/bcs_park.h"
#include "../../core/delegation/combining.h"
#include "../../core/runtime/spin.h"

#define NTHREADS 4
#define PER_THREAD 100000

static struct ls_combining lock;
static _Atomic int inside;
static _Atomic unsigned overlaps;
static _Atomic long ran_elsewhere;
static long shared;       /* plain: only closures touch it */

struct call {
	pthread_t caller;
	unsigned runs;        /* closure-written, caller reads after return */
	long seen;            /* the value of `shared` the closure produced */
};

static void closure(void *arg)
{
	struct call *c = arg;
	if (atomic_exchange(&inside, 1))
		atomic_fetch_add(&overlaps, 1);
	c->runs++;
	c->seen = ++shared;
	if (!pthread_equal(c->caller, pthread_self()))
		atomic_fetch_add_explicit(&ran_elsewhere, 1, memory_order_relaxed);
	atomic_store(&inside, 0);
}

static void *worker(void *arg)
{
	long last = 0;
	for (int i = 0; i < PER_THREAD; i++) {
		struct call c = { .caller = pthread_self() };  /* on our stack */
		ls_combining_with(&lock, closure, &c);
		/* Plain reads of what another thread may have written: the DONE
		 * reply must make them visible (tsan checks the ordering). */
		if (c.runs != 1 || c.seen <= last)
			return (void *)1;
		last = c.seen;
	}
	return NULL;
}

static void run(unsigned spin)
{
	pthread_t th[NTHREADS];
	unsigned saved = atomic_load(&ls_spin_limit);
	memset(&lock, 0, sizeof lock);
	shared = 0;
	atomic_store(&overlaps, 0);
	atomic_store(&ran_elsewhere, 0);
	atomic_store(&ls_spin_limit, spin);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker, NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
	}
	atomic_store(&ls_spin_limit, saved);
	print_message("spin=%u: %ld of %d closures ran on another thread\n",
	              spin, atomic_load(&ran_elsewhere), NTHREADS * PER_THREAD);
	assert_int_equal(shared, (long)NTHREADS * PER_THREAD);
	assert_int_equal(atomic_load(&overlaps), 0);
	assert_false(ls_combining_busy(&lock));
}

static void combining_exactly_once(void **st) { run(LS_SPIN_ADAPTIVE); }
/* LOCKSWAP_SPIN=0: waiters park on the futex at once. */
static void combining_exactly_once_parking(void **st) { run(0); }

/* Uncontended: the fast path runs the closure on the caller's thread. */
static void combining_uncontended_runs_inline(void **st)
{
	memset(&lock, 0, sizeof lock);
	shared = 0;
	atomic_store(&ran_elsewhere, 0);
	for (int i = 0; i < 100; i++) {
		struct call c = { .caller = pthread_self() };
		ls_combining_with(&lock, closure, &c);
		assert_int_equal(c.runs, 1);
		assert_int_equal(c.seen, i + 1);
	}
	assert_int_equal(atomic_load(&ran_elsewhere), 0);
	assert_false(ls_combining_busy(&lock));
}

/* Queued closures run on the head's thread.  Deterministic set-up: we hold
 * the fast-path flag (as a fast-path caller would), so the first caller
 * becomes the queue's head and waits for the flag; a second caller queues
 * behind it and parks (LOCKSWAP_SPIN=0); then we release the flag and the
 * head must run both closures. */
static struct call head_call, queued_call;

static void *caller(void *arg)
{
	struct call *c = arg;
	c->caller = pthread_self();
	ls_combining_with(&lock, closure, c);
	return NULL;
}

static void combining_head_runs_queued(void **st)
{
	pthread_t h, q;
	unsigned saved = atomic_load(&ls_spin_limit);
	memset(&lock, 0, sizeof lock);
	memset(&head_call, 0, sizeof head_call);
	memset(&queued_call, 0, sizeof queued_call);
	shared = 0;
	atomic_store(&ran_elsewhere, 0);
	atomic_store(&ls_spin_limit, 0);
	assert_int_equal(ls_futexlock_trylock(&lock.flag), 0);
	pthread_create(&h, NULL, caller, &head_call);
	struct ls_combining_node *head;
	while (!(head = atomic_load(&lock.last)))
		sched_yield();
	pthread_create(&q, NULL, caller, &queued_call);
	struct ls_combining_node *tail;
	while ((tail = atomic_load(&lock.last)) == head ||
	       !(atomic_load(&tail->status) & LS_BCS_PARK_SLEEP))
		sched_yield();   /* the second caller linked itself and parked */
	ls_futexlock_unlock(&lock.flag);
	pthread_join(h, NULL);
	pthread_join(q, NULL);
	atomic_store(&ls_spin_limit, saved);
	assert_int_equal(head_call.runs, 1);
	assert_int_equal(queued_call.runs, 1);
	assert_int_equal(head_call.seen, 1);     /* FIFO: head first */
	assert_int_equal(queued_call.seen, 2);
	assert_int_equal(atomic_load(&ran_elsewhere), 1); /* on the head's thread */
	assert_false(ls_combining_busy(&lock));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(combining_uncontended_runs_inline),
		cmocka_unit_test(combining_exactly_once),
		cmocka_unit_test(combining_exactly_once_parking),
		cmocka_unit_test(combining_head_runs_queued),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
