/*
 * test_mcs.c - FIFO MCS queue lock with per-thread node pools and
 * abandoned nodes (core/mutex/mcs.h, core/runtime/qnode.h, backends/mcs.c).
 * Behaviour only, never timing.
 */
#include <stdlib.h>
#include "lock_checks.h"

#include "../../core/mutex/mcs.h"
#include "../../core/runtime/qnode.h"

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
		struct timespec t = deadline_in(CLOCK_MONOTONIC, 1);
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
