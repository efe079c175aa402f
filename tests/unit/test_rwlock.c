/*
 * test_rwlock.c - the compact futex rwlock (core/rwlock/rwfutex.h) through its
 * backend table entry "futex".  Behaviour only, never timing.
 */
#include "rwlock_checks.h"

static bool futex_quiet(void *s)
{
	struct ls_rwlock *l = s;
	return atomic_load(&l->word) == 0 && !(atomic_load(&l->rq) & LS_RW_SLEEPERS_MASK) &&
	       !(atomic_load(&l->wq) & LS_RW_SLEEPERS_MASK);
}

static int setup(void **state)
{
	rw = ls_rwlock_backend_find("futex");
	quiet = futex_quiet;
	return rw ? 0 : -1;
}

/* Reader preference: a reader from another thread gets in while a writer
 * waits (once the writer is counted in the word). */
static bool writer_counted(void)
{
	return (atomic_load(&((struct ls_rwlock *)rs)->word) & LS_RW_WWAIT_MASK) != 0;
}

static void test_reader_preference(void **state)
{
	rw_reset();
	rw_flags = 0;
	atomic_store(&writer_in, 0);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_counted);
	assert_int_equal(in_other(other_tryrd), 0);
	rw->unlock(rs, 0);
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(quiet(rs));
}

/* The last reader hands the lock to the waiting writer in its unlock:
 * readers arriving after it are refused although the writer may not have
 * run yet (no window where the woken writer finds readers back in). */
static void test_last_reader_hands_off(void **state)
{
	struct ls_rwlock *l = (struct ls_rwlock *)rs;
	rw_reset();
	rw_flags = 0;
	atomic_store(&writer_in, 0);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_counted);
	rw->unlock(rs, 0);
	assert_true((atomic_load(&l->word) & LS_RW_WRITER) || atomic_load(&writer_in));
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(quiet(rs));
}

/* A hungry writer (LS_RW_HUNGRY, preset here: the time it takes to get
 * there is not a behaviour) gets the lock from the write unlock under
 * reader preference too, instead of the lock being freed for whoever runs
 * first; the writer that takes it clears the mark. */
static void test_hungry_writer_gets_handoff(void **state)
{
	struct ls_rwlock *l = (struct ls_rwlock *)rs;
	rw_reset();
	rw_flags = 0;
	atomic_store(&writer_in, 0);
	assert_int_equal(rw->wrlock(rs, 0), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_counted);
	atomic_fetch_or(&l->word, LS_RW_HUNGRY);
	rw->unlock(rs, 0);
	assert_true((atomic_load(&l->word) & LS_RW_WRITER) || atomic_load(&writer_in));
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(quiet(rs)); /* the mark went with the writer that took it */
}

static void *slow_timed_writer(void *a)
{
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 300);
	if (rw->timedwrlock(rs, 0, CLOCK_MONOTONIC, &t) == ETIMEDOUT)
		atomic_fetch_add(&timed_out, 1);
	return NULL;
}

/* Mark the lock hungry while a writer is still counted; false if it had
 * already left (a busy machine can delay this thread past its deadline). */
static bool mark_hungry_while_counted(struct ls_rwlock *l)
{
	uint64_t w = atomic_load(&l->word);
	while (w & LS_RW_WWAIT_MASK)
		if (atomic_compare_exchange_weak(&l->word, &w, w | LS_RW_HUNGRY))
			return true;
	return false;
}

/* The mark means "a waiting writer is starving": the last waiting writer
 * that gives up takes it away. */
static void test_hungry_cleared_by_last_leaver(void **state)
{
	struct ls_rwlock *l = (struct ls_rwlock *)rs;
	pthread_t w;
	rw_reset();
	rw_flags = 0;
	assert_int_equal(rw->wrlock(rs, 0), 0);
	bool marked = false;
	for (int tries = 0; tries < 20 && !marked; tries++) {
		atomic_store(&timed_out, 0);
		w = rw_spawn(slow_timed_writer, 0);
		rw_await(writer_counted);
		marked = mark_hungry_while_counted(l);
		rw_join(w);
	}
	assert_true(marked);
	assert_int_equal(atomic_load(&timed_out), 1);
	assert_int_equal(atomic_load(&l->word), LS_RW_WRITER);
	rw->unlock(rs, 0);
	assert_true(quiet(rs));
}

/* The reader count saturates with EAGAIN, as glibc's does. */
static void test_reader_overflow(void **state)
{
	struct ls_rwlock *l = (struct ls_rwlock *)rs;
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 5);
	rw_reset();
	atomic_store(&l->word, (LS_RW_READERS_MAX - 1) << LS_RW_READERS_SHIFT);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	assert_int_equal(rw->rdlock(rs, 0), EAGAIN);
	assert_int_equal(rw->tryrdlock(rs, 0), EAGAIN);
	assert_int_equal(rw->timedrdlock(rs, 0, CLOCK_MONOTONIC, &t), EAGAIN);
	rw->unlock(rs, 0);
	assert_int_equal(rw->tryrdlock(rs, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_SHARED_TESTS,
		cmocka_unit_test(test_reader_preference),
		cmocka_unit_test(test_last_reader_hands_off),
		cmocka_unit_test(test_reader_overflow),
		cmocka_unit_test(test_hungry_writer_gets_handoff),
		cmocka_unit_test(test_hungry_cleared_by_last_leaver),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
