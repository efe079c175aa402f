/*
 * test_bravo.c - the BRAVO reader-biased rwlock (core/rwlock/bravo.h) through its
 * backend table entry "bravo": the shared rwlock checks, then the bias:
 * set by a slow reader, revoked by a writer who waits for announced
 * readers, re-enabled after the inhibition.  Behaviour only, never timing.
 */
#include "rwlock_checks.h"

#include "../../core/rwlock/bravo.h"

static struct ls_bravo *B = (struct ls_bravo *)(void *)rs;

static bool table_has(struct ls_bravo *b)
{
	for (int i = 0; i < LS_BRAVO_SLOTS; i++)
		if ((atomic_load(&ls_bravo_table[i]) & ~LS_BRAVO_SLOT_WAITED) == (uintptr_t)b)
			return true;
	return false;
}

static bool bravo_quiet(void *s)
{
	struct ls_bravo *b = s;
	return atomic_load(&b->inner.word) == 0 &&
	       !(atomic_load(&b->inner.rq) & LS_RW_SLEEPERS_MASK) &&
	       !(atomic_load(&b->inner.wq) & LS_RW_SLEEPERS_MASK) && !table_has(b);
}

static bool biased(void)
{
	return atomic_load(&B->bias) & LS_BRAVO_BIASED;
}

/* The next writer must scan the table (biased, or a drain left over). */
static bool must_scan(void)
{
	return atomic_load(&B->bias) & (LS_BRAVO_BIASED | LS_BRAVO_DRAINING);
}

static int setup(void **state)
{
	rw = ls_rwlock_backend_find("bravo");
	quiet = bravo_quiet;
	return rw ? 0 : -1;
}

/* A fresh lock is not biased; the first (slow) reader biases it, and the
 * next read is announced in the table, not counted in the inner lock. */
static void test_first_reader_biases(void **state)
{
	rw_reset();
	assert_false(biased());
	assert_int_equal(rw->rdlock(rs, 0), 0);
	assert_false(ls_bravo_held_fast(B));
	assert_true(biased());
	rw->unlock(rs, 0);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	assert_true(ls_bravo_held_fast(B));
	assert_int_equal(ls_rwlock_readers(atomic_load(&B->inner.word)), 0);
	assert_true(table_has(B));
	rw->unlock(rs, 0);
	assert_true(bravo_quiet(rs));
}

static void bias_and_hold_fast(void)
{
	rw_reset();
	assert_int_equal(rw->rdlock(rs, 0), 0);
	rw->unlock(rs, 0);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	assert_true(ls_bravo_held_fast(B));
}

static void *timed_wr(void *a)
{
	struct timespec t = deadline_in(CLOCK_REALTIME, 20);
	return (void *)(long)rw->timedwrlock(rs, 0, CLOCK_REALTIME, &t);
}

/* A writer revokes the bias and cannot get past an announced reader: the
 * try form says EBUSY, the timed form times out, and the inner lock is
 * left free both times. */
static void test_revocation_respects_fast_reader(void **state)
{
	bias_and_hold_fast();
	assert_int_equal(in_other(other_trywr), EBUSY);
	assert_false(biased());
	assert_true(must_scan()); /* still announced: the next writer scans again */
	assert_int_equal(atomic_load(&B->inner.word), 0);
	assert_int_equal(rw_join(rw_spawn(timed_wr, 0)), ETIMEDOUT);
	assert_int_equal(atomic_load(&B->inner.word), 0);
	rw->unlock(rs, 0);
	assert_int_equal(in_other(other_trywr), 0);
	assert_true(bravo_quiet(rs));
}

static bool writer_revoking(void)
{
	return !biased() && (atomic_load(&B->inner.word) & LS_RW_WRITER);
}

/* Reader preference: a writer draining the table must not hold the inner
 * lock, so that a new reader gets in while the announced one holds. */
static bool writer_draining_unheld(void)
{
	uint64_t v = atomic_load(&B->bias);
	return !(v & LS_BRAVO_BIASED) && (v & LS_BRAVO_DRAINING) &&
	       (v >> LS_BRAVO_INHIBIT_SHIFT) == (LS_BRAVO_INHIBIT_FOREVER >> LS_BRAVO_INHIBIT_SHIFT) &&
	       !(atomic_load(&B->inner.word) & LS_RW_WRITER) &&
	       (atomic_load(&B->inner.word) & LS_RW_WWAIT_MASK) == 0;
}

/* Reader preference: a parked writer is woken by the fast reader's
 * unlock; meanwhile other threads' readers still get in (glibc's default
 * kind admits a reader while readers hold, writers waiting or not), and
 * the holder may read again (recursion). */
static void test_writer_waits_for_fast_reader(void **state)
{
	bias_and_hold_fast();
	atomic_store(&writer_in, 0);
	rw_flags = 0;
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_draining_unheld);
	assert_int_equal(in_other(other_tryrd), 0);
	assert_int_equal(rw->rdlock(rs, 0), 0); /* recursive: no deadlock */
	rw->unlock(rs, 0);
	usleep(10000);
	assert_int_equal(atomic_load(&writer_in), 0);
	rw->unlock(rs, 0);
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_false(must_scan()); /* the writer that got in found the table empty */
	assert_true(bravo_quiet(rs));
}

/* Writer preference (PREFER_WRITER_NONRECURSIVE): the writer waits for
 * the announced reader holding the inner lock, so other threads' new
 * readers wait for it, as glibc's kind makes them. */
static void test_writer_pref_revokes_holding(void **state)
{
	rw_reset();
	const unsigned f = LS_RW_PREFER_WRITER;
	assert_int_equal(rw->rdlock(rs, f), 0);
	rw->unlock(rs, f);
	assert_int_equal(rw->rdlock(rs, f), 0);
	assert_true(ls_bravo_held_fast(B));
	atomic_store(&writer_in, 0);
	rw_flags = f;
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_revoking);
	assert_int_equal(in_other(other_tryrd), EBUSY);
	assert_int_equal(atomic_load(&writer_in), 0);
	rw->unlock(rs, f);
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(bravo_quiet(rs));
	rw_flags = 0;
}

static bool read_rebiases(void)
{
	assert_int_equal(rw->rdlock(rs, 0), 0);
	rw->unlock(rs, 0);
	return biased();
}

/* After a revocation the bias stays off until the inhibition (a multiple
 * of the revocation's duration, recorded in the bias word) has passed;
 * then a slow reader turns it on again. */
static void test_rebias_after_inhibition(void **state)
{
	bias_and_hold_fast();
	rw->unlock(rs, 0);
	assert_int_equal(rw->wrlock(rs, 0), 0);
	uint64_t until = atomic_load(&B->bias) >> LS_BRAVO_INHIBIT_SHIFT;
	assert_false(biased());
	assert_true(until > 0);
	rw->unlock(rs, 0);
	rw_await(read_rebiases);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	assert_true((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec >= until);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	assert_true(ls_bravo_held_fast(B));
	rw->unlock(rs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_SHARED_TESTS,
		cmocka_unit_test(test_first_reader_biases),
		cmocka_unit_test(test_revocation_respects_fast_reader),
		cmocka_unit_test(test_writer_waits_for_fast_reader),
		cmocka_unit_test(test_rebias_after_inhibition),
		cmocka_unit_test(test_writer_pref_revokes_holding),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
