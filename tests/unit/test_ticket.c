/*
 * test_ticket.c - FIFO ticket lock with waiting-array parking and
 * abandoned tickets (core/mutex/ticket.h, backends/ticket.c).
 * Behaviour only, never timing.
 */
#include "lock_checks.h"

#include "../../core/mutex/ticket.h"

extern const struct ls_lock_ops ls_backend_ticket;

static uint64_t word_of(void *s)
{
	return atomic_load(&((struct ls_ticket *)s)->word);
}

/* Tickets handed out and not yet served. */
static uint64_t ticket_sig(void *s)
{
	uint64_t w = word_of(s);
	return (uint16_t)(ls_ticket_next(w) - ls_ticket_grant(w));
}

static int setup(void **state)
{
	ops = &ls_backend_ticket;
	sig = ticket_sig;
	mx_iters = 20000;
	return 0;
}

static void test_mutex(void **state) { check_mutex(); }
static void test_try_timed(void **state) { check_try_timed(); }
static void test_fifo(void **state) { check_fifo(FIFO_N, -1); }
/* A timed-out ticket first in line, in the middle, and last: the first
 * two are skipped by the releaser (abandoned bit), the last is taken back. */
static void test_timeout_head(void **state) { check_fifo(3, 0); }
static void test_timeout_middle(void **state) { check_fifo(3, 1); }
static void test_timeout_tail(void **state)
{
	check_fifo(3, 2);
}
static void test_fork(void **state) { check_fork(3); }

/* After a tail timeout the ticket is taken back: next == grant + 1. */
static void test_tail_retract(void **state)
{
	reset();
	timed_slot = 0;
	assert_int_equal(ops->lock(st), 0);
	join(spawn(fifo_waiter, 0));
	assert_int_equal(timed_result, ETIMEDOUT);
	assert_int_equal(ticket_sig(st), 1);
	assert_false(word_of(st) & LS_TICKET_ABANDON_MASK);
	ops->unlock(st);
	assert_int_equal(ticket_sig(st), 0);
}

/* A timed-out waiter more than 24 places back (not last) cannot mark its
 * ticket at once; it still returns ETIMEDOUT, and every other waiter gets
 * the lock in order. */
static void test_timeout_far_back(void **state)
{
	int n = LS_TICKET_ABANDON_BITS + 3, timed = LS_TICKET_ABANDON_BITS + 1;
	timed_late = true;
	check_fifo(n, timed);
	timed_late = false;
}

/* The word's epoch: a lock left held with waiters by a fork is renewed
 * by the child's first locker (tested whole in test_fork); here the
 * bits themselves after a child renewal. */
static void test_renew_encoding(void **state)
{
	reset();
	assert_int_equal(ops->lock(st), 0);
	/* Fake two dead waiters and a stale epoch. */
	atomic_fetch_add(&((struct ls_ticket *)st)->word, 2 * LS_TICKET_NEXT_ONE);
	atomic_fetch_xor(&((struct ls_ticket *)st)->word, 1ull << LS_TICKET_EPOCH_SHIFT);
	ops->unlock(st); /* holder in an old epoch: waiters dropped */
	assert_int_equal(ticket_sig(st), 0);
	assert_int_equal(ls_ticket_epoch_of(word_of(st)), ls_epoch_now(8));
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
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
		cmocka_unit_test(test_tail_retract),
		cmocka_unit_test(test_timeout_far_back),
		cmocka_unit_test(test_renew_encoding),
		cmocka_unit_test(test_fork),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
