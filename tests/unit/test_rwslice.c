/*
 * test_rwslice.c - lock slices in front of the futex rwlock
 * (core/rwlock/rwslice.h) through its backend table entry "slice": the
 * shared rwlock checks, then what the slice adds: a reader joins readers
 * that hold the lock while another thread owns the slice (it neither
 * queues nor waits for a take-over), and under contention the slice is
 * handed from thread to thread with every thread served.  Behaviour only,
 * never timing.
 */
#include "rwlock_checks.h"

#include "../../core/runtime/spin.h"
#include "../../core/rwlock/rwslice.h"

static struct ls_rwslice *S = (struct ls_rwslice *)(void *)rs;

static bool rwslice_quiet(void *s)
{
	struct ls_rwslice *l = s;
	uint64_t w = atomic_load(&l->slice.word);
	return atomic_load(&l->inner.word) == 0 &&
	       !(atomic_load(&l->inner.rq) & LS_RW_SLEEPERS_MASK) &&
	       !(atomic_load(&l->inner.wq) & LS_RW_SLEEPERS_MASK) && !(w & LS_SL_OWNED) &&
	       ls_slice_queue_of(w) == 0;
}

static int setup(void **state)
{
	rw = ls_rwlock_backend_find("slice");
	quiet = rwslice_quiet;
	return rw ? 0 : -1;
}

/* ---- a reader joins readers, whoever owns the slice ---- */

static _Atomic long queued_events, takeovers, handovers, shared_flushes;

static void count_events(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_FLUSH_SHARED)
		atomic_fetch_add(&shared_flushes, 1);
	else if (ev == LS_SL_TRACE_QUEUED)
		atomic_fetch_add(&queued_events, 1);
	else if (ev == LS_SL_TRACE_TAKEOVER)
		atomic_fetch_add(&takeovers, 1);
	else if (ev == LS_SL_TRACE_HANDOVER)
		atomic_fetch_add(&handovers, 1);
}

static void reset_events(void)
{
	atomic_store(&queued_events, 0);
	atomic_store(&takeovers, 0);
	atomic_store(&handovers, 0);
	atomic_store(&shared_flushes, 0);
}

/* The blocked writer owns the slice and waits inside the inner lock. */
static bool writer_owns_slice(void)
{
	return (atomic_load(&S->slice.word) & LS_SL_OWNED) &&
	       (atomic_load(&S->inner.word) & LS_RW_WWAIT_MASK);
}

static void *other_rd(void *a)
{
	if ((other_result = rw->rdlock(rs, rw_flags)) == 0)
		rw->unlock(rs, rw_flags);
	return NULL;
}

/* glibc's default kind lets a new reader in while readers hold the lock,
 * writers waiting or not (a reader may wait for another thread that needs
 * a read lock: tests/rwlock/readers_meet.c).  Here the waiting writer owns
 * the slice; the second reader must get in without queueing for it and
 * without the take-over that would end a stalled slice. */
static void test_reader_joins_readers(void **state)
{
	rw_reset();
	rw_flags = 0;
	reset_events();
	atomic_store(&writer_in, 0);
	atomic_store(&ls_slice_trace, count_events);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_owns_slice);
	uint32_t gen = ls_slice_gen_of(atomic_load(&S->slice.word));
	assert_int_equal(in_other(other_rd), 0);
	assert_int_equal(in_other(other_tryrd), 0);
	assert_int_equal(atomic_load(&queued_events), 0);
	assert_int_equal(atomic_load(&takeovers), 0);
	assert_int_equal(ls_slice_gen_of(atomic_load(&S->slice.word)), gen);
	rw->unlock(rs, 0);
	rw_join(w);
	atomic_store(&ls_slice_trace, NULL);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(quiet(rs));
}

/* The same pattern when the second reader queued before the readers came:
 * it arrived while a writer held the lock and the slice's owner (another
 * writer, not yet run) waited; then the first writer let go and a reader
 * took the lock with a try (a try never waits for a slice).  The owner now
 * waits for that reader, the reader for the queued one: the queue must not
 * wait for an owner stuck behind readers (slice.c, watch: flushed). */
static _Atomic int q_in;

static void *queued_reader(void *a)
{
	assert_int_equal(rw->rdlock(rs, 0), 0);
	atomic_store(&q_in, 1);
	rw->unlock(rs, 0);
	return NULL;
}

static bool writer_parked(void)
{
	return writer_owns_slice() && (atomic_load(&S->inner.wq) & LS_RW_SLEEPERS_MASK);
}

static bool reader_queued(void)
{
	return atomic_load(&queued_events) >= 1;
}

static bool queued_reader_in(void)
{
	return atomic_load(&q_in) != 0;
}

static void test_queued_reader_not_stranded(void **state)
{
	bool staged = false;
	/* The try races the woken owner for the freed lock; the owner wins
	 * only if it runs within the few instructions between the unlock and
	 * the try, so a handful of rounds stage it. */
	for (int round = 0; round < 50 && !staged; round++) {
		rw_reset();
		rw_flags = 0;
		reset_events();
		atomic_store(&writer_in, 0);
		atomic_store(&q_in, 0);
		atomic_store(&ls_slice_trace, count_events);
		assert_int_equal(rw->wrlock(rs, 0), 0);
		pthread_t w = rw_spawn(blocking_writer, 0);
		rw_await(writer_parked);
		pthread_t q = rw_spawn(queued_reader, 0);
		rw_await(reader_queued);
		rw->unlock(rs, 0);
		bool got = rw->tryrdlock(rs, 0) == 0;
		/* Staged only if the owner has not run: a thread preempted
		 * between its unlock and its try can find the owner's whole
		 * write section done (then the queued reader is served by the
		 * ordinary take-over of a gone owner).  While this thread holds
		 * the read lock the owner cannot get in, so writer_in stays. */
		staged = got && atomic_load(&writer_in) == 0;
		if (staged) {
			rw_await(queued_reader_in); /* this thread holds its read lock meanwhile */
			assert_true(atomic_load(&shared_flushes) >= 1);
		}
		if (got)
			rw->unlock(rs, 0);
		rw_join(q);
		rw_join(w);
		atomic_store(&ls_slice_trace, NULL);
		assert_int_equal(atomic_load(&writer_in), 1);
		assert_true(quiet(rs));
	}
	assert_true(staged);
}

/* Writer preference: the same reader stands back for the waiting writer
 * (glibc's "nonrecursive" kind does too). */
static void test_writer_pref_reader_waits(void **state)
{
	rw_reset();
	rw_flags = LS_RW_PREFER_WRITER;
	atomic_store(&writer_in, 0);
	assert_int_equal(rw->rdlock(rs, rw_flags), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(writer_owns_slice);
	assert_int_equal(in_other(other_tryrd), EBUSY);
	rw->unlock(rs, rw_flags);
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(quiet(rs));
}

/* ---- under contention the slice rotates and every thread is served ---- */

#define ROT_THREADS 4
static _Atomic int rot_stop;
static _Atomic long rot_ops[ROT_THREADS], rot_writes[ROT_THREADS];
static long rot_shared; /* read and written under the write lock only */

static void *rotator(void *arg)
{
	long me = (long)arg;
	unsigned seed = (unsigned)me * 2654435761u + 7;
	while (!atomic_load(&rot_stop)) {
		seed = seed * 1103515245u + 12345u;
		bool write = (seed >> 16) & 1;
		if (write) {
			assert_int_equal(rw->wrlock(rs, 0), 0);
			long v = rot_shared;
			for (int k = 0; k < 20; k++)
				ls_cpu_relax();
			rot_shared = v + 1; /* a second writer inside would lose an update */
		} else {
			assert_int_equal(rw->rdlock(rs, 0), 0);
			for (int k = 0; k < 20; k++)
				ls_cpu_relax();
		}
		rw->unlock(rs, 0);
		atomic_fetch_add(&rot_ops[me], 1);
		if (write)
			atomic_fetch_add(&rot_writes[me], 1);
		if ((seed >> 20) % 64 == 0)
			sched_yield(); /* let the others pile up behind the holder */
	}
	return NULL;
}

static bool rotated(void)
{
	for (int i = 0; i < ROT_THREADS; i++)
		if (atomic_load(&rot_ops[i]) == 0)
			return false;
	return atomic_load(&handovers) >= 3;
}

static void test_slices_rotate(void **state)
{
	pthread_t t[ROT_THREADS];
	rw_reset();
	reset_events();
	rot_shared = 0;
	atomic_store(&rot_stop, 0);
	atomic_store(&ls_slice_trace, count_events);
	/* Every return to the lock counts as near, so every slice pays and is
	 * handed over.  With the default bar the gap probe decides, and under
	 * ThreadSanitizer an owner's gaps are long enough that each slice
	 * ends in a flush and a quiet period (one hand-over in 10 s seen):
	 * the probe is test_slice.c's subject, rotation is this test's. */
	unsigned gap_ns = atomic_load(&ls_slice_gap_ns);
	atomic_store(&ls_slice_gap_ns, 1000000000u);
	for (long i = 0; i < ROT_THREADS; i++) {
		atomic_store(&rot_ops[i], 0);
		atomic_store(&rot_writes[i], 0);
		t[i] = rw_spawn(rotator, i);
	}
	rw_await(rotated);
	atomic_store(&rot_stop, 1);
	long writes = 0;
	for (int i = 0; i < ROT_THREADS; i++)
		rw_join(t[i]);
	atomic_store(&ls_slice_trace, NULL);
	atomic_store(&ls_slice_gap_ns, gap_ns);
	for (int i = 0; i < ROT_THREADS; i++)
		writes += atomic_load(&rot_writes[i]);
	assert_int_equal(rot_shared, writes); /* no write lost */
	assert_true(atomic_load(&handovers) >= 3);
	assert_true(quiet(rs));
}

/* ---- the reservation (LS_RW_RESERVED, rwslice.h) ----
 * A stale one on an open lock (a race between two mirrors leaves one,
 * simulated here) is cleared by the first lock call that finds it, read
 * or write, which then holds the lock as in an open lock. */
static void test_stale_reservation(void **state)
{
	rw_reset();
	for (int write = 0; write < 2; write++) {
		atomic_fetch_or(&S->inner.word, LS_RW_RESERVED);
		assert_int_equal(write ? rw->wrlock(rs, rw_flags) : rw->rdlock(rs, rw_flags), 0);
		assert_false(atomic_load(&S->inner.word) & LS_RW_RESERVED);
		rw->unlock(rs, rw_flags);
		assert_true(quiet(rs));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_SHARED_TESTS,
		cmocka_unit_test(test_reader_joins_readers),
		cmocka_unit_test(test_queued_reader_not_stranded),
		cmocka_unit_test(test_writer_pref_reader_waits),
		cmocka_unit_test(test_slices_rotate),
		cmocka_unit_test(test_stale_reservation),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
