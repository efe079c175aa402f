/*
 * test_claims.c - the futex backend's claims (backends/inline_verbs.h), the
 * statistics' holder word in the lock state: a claim succeeds at once only
 * where the state names its caller, the reclaim takes a free lock whatever
 * it names and reports the name it replaced, neither takes a held lock,
 * the take (the counting table's lock once the process has threads) gets
 * a free lock and leaves its name, and fails on both held states, the
 * naming unlock frees the lock and names its caller, and the backend's
 * own verbs (slow path, unlock) leave the name alone.  Behaviour only.
 * x86-64 only, as the claims are.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../backends/inline_verbs.h"

#ifdef LS_INLINE_CLAIM_NAME_OFF

static _Alignas(16) unsigned char state[LS_LOCK_STATE_BYTES];

/* A caller's name as the claims take it: the serial in the high half. */
static uint64_t name_of(uint32_t serial)
{
	return (uint64_t)serial << 32;
}

static uint32_t lock_word(void)
{
	return atomic_load(&((struct ls_futexlock *)(void *)state)->word);
}

static uint32_t named(void)
{
	return atomic_load(ls_futex_inline_name(state));
}

static void reset(void)
{
	memset(state, 0, sizeof state);
}

/* Claim as the counting table does: the claim, then the reclaim where it
 * failed.  Returns whether it got the lock; *prev: the name it replaced. */
static bool claim(bool single, uint32_t serial, uint32_t *prev)
{
	uint64_t seen, to;
	bool mine = single ? ls_futex_inline_claim_single(state, name_of(serial), &seen, &to)
	                   : ls_futex_inline_claim(state, name_of(serial), &seen, &to);
	if (mine) {
		assert_int_equal(seen, name_of(serial)); /* its low half: the verb's 0 */
		*prev = serial;
		return true;
	}
	if (!ls_futex_inline_reclaim(state, &seen, to))
		return false;
	*prev = (uint32_t)(seen >> 32);
	return true;
}

static void claims_name_their_caller(bool single)
{
	uint32_t prev;
	reset();
	assert_true(claim(single, 7, &prev)); /* a fresh lock names nobody */
	assert_int_equal(prev, 0);
	assert_int_equal(lock_word(), LS_FUTEX_LOCKED);
	assert_int_equal(named(), 7);
	assert_false(claim(single, 9, &prev)); /* held: not taken, nothing written */
	assert_int_equal(lock_word(), LS_FUTEX_LOCKED);
	assert_int_equal(named(), 7);
	ls_futex_inline_unclaim(state, name_of(7));
	assert_int_equal(lock_word(), LS_FUTEX_UNLOCKED);
	assert_int_equal(named(), 7);
	assert_true(claim(single, 7, &prev)); /* the same thread again: no owner change */
	assert_int_equal(prev, 7);
	ls_futexlock_unlock((struct ls_futexlock *)(void *)state); /* the backend's unlock */
	assert_int_equal(named(), 7);                               /* leaves the name */
	assert_true(claim(single, 9, &prev)); /* another thread: the name it replaced */
	assert_int_equal(prev, 7);
	assert_int_equal(named(), 9);
	ls_futex_inline_unclaim(state, name_of(9));
}

static void test_claims_atomic(void **st)
{
	claims_name_their_caller(false);
}

/* The take: gets a free lock whatever it names, leaving the name (the
 * last releaser's) for the caller to compare, and fails on both held
 * states, changing nothing; the naming unlock names the taker. */
static void test_take(void **st)
{
	reset();
	assert_true(ls_futex_inline_take(state)); /* a fresh lock names nobody */
	assert_int_equal(lock_word(), LS_FUTEX_LOCKED);
	assert_int_equal(named(), 0);
	assert_false(ls_futex_inline_take(state)); /* held */
	assert_int_equal(lock_word(), LS_FUTEX_LOCKED);
	ls_futex_inline_unclaim(state, name_of(7));
	assert_int_equal(lock_word(), LS_FUTEX_UNLOCKED);
	assert_int_equal(named(), 7);
	assert_true(ls_futex_inline_take(state)); /* another thread: the name stays */
	assert_int_equal(lock_word(), LS_FUTEX_LOCKED);
	assert_int_equal(named(), 7);
	/* Held with a waiter parked: the backend's mark, which the take must
	 * neither take nor lower (the release must still wake). */
	atomic_store(&((struct ls_futexlock *)(void *)state)->word, (uint32_t)LS_FUTEX_PARKED);
	assert_false(ls_futex_inline_take(state));
	assert_int_equal(lock_word(), LS_FUTEX_PARKED);
	assert_int_equal(named(), 7);
	ls_futex_inline_unclaim(state, name_of(9));
	assert_int_equal(lock_word(), LS_FUTEX_UNLOCKED);
	assert_int_equal(named(), 9);
}

/* Run first, while the process has one thread: the plain verbs. */
static void test_claims_single_threaded(void **st)
{
	claims_name_their_caller(true);
}

/* The naming unlock wakes a waiter parked by the backend's slow path, and
 * that waiter's acquisition (the backend's verbs) leaves the name; its
 * release by the naming unlock names it. */
static _Atomic int waiter_in;

static void *waiter(void *arg)
{
	assert_int_equal(ls_futexlock_lock((struct ls_futexlock *)(void *)state), 0);
	atomic_store(&waiter_in, 1);
	ls_futex_inline_unclaim(state, name_of(5));
	return arg;
}

static void test_unclaim_wakes_and_names(void **st)
{
	uint32_t prev;
	reset();
	atomic_store(&waiter_in, 0);
	assert_true(claim(false, 3, &prev));
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, waiter, NULL), 0);
	/* Until the waiter has marked the word (it spins first, then parks). */
	for (int i = 0; i < 100000 && lock_word() != LS_FUTEX_PARKED; i++)
		usleep(100);
	assert_int_equal(lock_word(), LS_FUTEX_PARKED);
	assert_int_equal(named(), 3);
	assert_int_equal(atomic_load(&waiter_in), 0);
	ls_futex_inline_unclaim(state, name_of(3));
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(atomic_load(&waiter_in), 1);
	assert_int_equal(lock_word(), LS_FUTEX_UNLOCKED);
	assert_int_equal(named(), 5);
	assert_true(claim(false, 3, &prev));
	assert_int_equal(prev, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claims_single_threaded),
		cmocka_unit_test(test_claims_atomic),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_unclaim_wakes_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

static void test_no_claims_here(void **st)
{
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_no_claims_here) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
