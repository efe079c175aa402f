/*
 * rwlock_checks.h - checks shared by the rwlock algorithm tests
 * (test_rwlock.c for the futex rwlock, test_bravo.c for BRAVO, test_rwslice.c
 * for the slice rwlock).  Included, not linked.  The test sets `rw` (the
 * backend under test) and `quiet` (true when the state shows nobody holding
 * or waiting) before each check; RW_SHARED_TESTS lists the shared checks.
 * Behaviour only, never timing: waits are bounded polls (10 s = failure).
 */
#ifndef LS_TEST_RWLOCK_CHECKS_H
#define LS_TEST_RWLOCK_CHECKS_H
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../deadline.h"

#include "../../backends/rwlock.h"
#include "../../core/rwlock/rwfutex.h"

static const struct ls_rwlock_ops *rw;
static bool (*quiet)(void *state);
static _Alignas(16) unsigned char rs[LS_RWLOCK_STATE_BYTES];

static void rw_reset(void)
{
	memset(rs, 0, sizeof rs);
}

static pthread_t rw_spawn(void *(*fn)(void *), long arg)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fn, (void *)arg), 0);
	return t;
}

static long rw_join(pthread_t t)
{
	void *r;
	assert_int_equal(pthread_join(t, &r), 0);
	return (long)r;
}

/* Poll until cond() holds (10 s at most). */
static void rw_await(bool (*cond)(void))
{
	for (int i = 0; i < 100000 && !cond(); i++)
		usleep(100);
	assert_true(cond());
}

/* ---- mutual exclusion: writers alone, readers together ---- */

static _Atomic int in_readers, in_writers, violations;
static _Atomic long rw_done;
static unsigned rw_flags;
#define RW_ITERS 20000

static void *mixer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
	for (int i = 0; i < RW_ITERS; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned pick = (seed >> 16) % 8;
		bool write = pick < 2;
		int r;
		struct timespec t = deadline_in(pick & 1 ? CLOCK_MONOTONIC : CLOCK_REALTIME, 50);
		clockid_t c = pick & 1 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
		if (write)
			r = pick == 0 ? rw->wrlock(rs, rw_flags) : rw->timedwrlock(rs, rw_flags, c, &t);
		else if (pick == 7)
			r = rw->tryrdlock(rs, rw_flags);
		else
			r = pick & 1 ? rw->timedrdlock(rs, rw_flags, c, &t) : rw->rdlock(rs, rw_flags);
		if (r != 0)
			continue;
		if (write) {
			if (atomic_fetch_add(&in_writers, 1) != 0 || atomic_load(&in_readers) != 0)
				atomic_fetch_add(&violations, 1);
			atomic_fetch_sub(&in_writers, 1);
		} else {
			atomic_fetch_add(&in_readers, 1);
			if (atomic_load(&in_writers) != 0)
				atomic_fetch_add(&violations, 1);
			atomic_fetch_sub(&in_readers, 1);
		}
		atomic_fetch_add(&rw_done, 1);
		rw->unlock(rs, rw_flags);
	}
	return NULL;
}

static void check_exclusion(unsigned flags)
{
	pthread_t t[6];
	rw_reset();
	rw_flags = flags;
	atomic_store(&violations, 0);
	atomic_store(&rw_done, 0);
	for (long i = 0; i < 6; i++)
		t[i] = rw_spawn(mixer, i);
	for (int i = 0; i < 6; i++)
		rw_join(t[i]);
	assert_int_equal(atomic_load(&violations), 0);
	assert_true(atomic_load(&rw_done) > 0);
	assert_true(quiet(rs));
}

/* ---- readers share; the try forms; expired deadlines ---- */

static int other_result;
/* The try forms from another thread; a lock they get is released at once
 * by that thread (a BRAVO read hold belongs to the thread that took it). */
static void *other_tryrd(void *a)
{
	if ((other_result = rw->tryrdlock(rs, rw_flags)) == 0)
		rw->unlock(rs, rw_flags);
	return NULL;
}

static void *other_trywr(void *a)
{
	if ((other_result = rw->trywrlock(rs, rw_flags)) == 0)
		rw->unlock(rs, rw_flags);
	return NULL;
}

static int in_other(void *(*fn)(void *))
{
	rw_join(rw_spawn(fn, 0));
	return other_result;
}

static void check_try_forms(unsigned flags)
{
	struct timespec past = { 1, 0 }, negative = { -1, 0 };
	rw_reset();
	rw_flags = flags;
	assert_int_equal(rw->rdlock(rs, flags), 0);
	assert_int_equal(in_other(other_tryrd), 0); /* readers share */
	assert_int_equal(in_other(other_trywr), EBUSY);
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 5);
	assert_int_equal(rw->timedwrlock(rs, flags, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	assert_int_equal(rw->timedwrlock(rs, flags, CLOCK_REALTIME, &past), ETIMEDOUT);
	assert_int_equal(rw->timedwrlock(rs, flags, CLOCK_REALTIME, &negative), ETIMEDOUT);
	rw->unlock(rs, flags);
	assert_true(quiet(rs));
	assert_int_equal(rw->timedwrlock(rs, flags, CLOCK_REALTIME, &negative), 0);
	assert_int_equal(rw->tryrdlock(rs, flags), EBUSY);
	assert_int_equal(in_other(other_trywr), EBUSY);
	assert_int_equal(rw->timedrdlock(rs, flags, CLOCK_MONOTONIC, &past), ETIMEDOUT);
	assert_int_equal(rw->timedrdlock(rs, flags, CLOCK_REALTIME, &negative), ETIMEDOUT);
	rw->unlock(rs, flags);
	assert_int_equal(rw->timedrdlock(rs, flags, CLOCK_REALTIME, &negative), 0);
	rw->unlock(rs, flags);
	assert_true(quiet(rs));
}

/* ---- timeouts leave nothing behind ---- */

static _Atomic int timed_out;

static void *timed_reader(void *a)
{
	struct timespec t = deadline_in(CLOCK_REALTIME, 20);
	if (rw->timedrdlock(rs, rw_flags, CLOCK_REALTIME, &t) == ETIMEDOUT)
		atomic_fetch_add(&timed_out, 1);
	return NULL;
}

static void *timed_writer(void *a)
{
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 20);
	if (rw->timedwrlock(rs, rw_flags, CLOCK_MONOTONIC, &t) == ETIMEDOUT)
		atomic_fetch_add(&timed_out, 1);
	return NULL;
}

static void check_timeouts_clean(unsigned flags)
{
	pthread_t t[4];
	rw_reset();
	rw_flags = flags;
	atomic_store(&timed_out, 0);
	assert_int_equal(rw->wrlock(rs, flags), 0);
	for (long i = 0; i < 4; i++)
		t[i] = rw_spawn(i & 1 ? timed_writer : timed_reader, i);
	for (int i = 0; i < 4; i++)
		rw_join(t[i]);
	assert_int_equal(atomic_load(&timed_out), 4);
	rw->unlock(rs, flags);
	assert_true(quiet(rs));
	/* And the lock works normally afterwards. */
	assert_int_equal(rw->trywrlock(rs, flags), 0);
	rw->unlock(rs, flags);
	assert_true(quiet(rs));
}

/* ---- kinds: recursive reads (reader preference), writer preference ---- */

static _Atomic int writer_in;

static void *blocking_writer(void *a)
{
	assert_int_equal(rw->wrlock(rs, rw_flags), 0);
	atomic_store(&writer_in, 1);
	rw->unlock(rs, rw_flags);
	return NULL;
}

static bool readers_refused(void)
{
	return in_other(other_tryrd) == EBUSY;
}

/* Reader preference: the holder of a read lock takes it again although a
 * writer waits (the writer must be waiting first: new readers from other
 * threads are refused once it is). */
static void check_recursive_read(void)
{
	rw_reset();
	rw_flags = 0;
	atomic_store(&writer_in, 0);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	/* Both backends refuse a new reader only through this writer (futex:
	 * never under reader preference, so give the writer time to block). */
	usleep(20000);
	assert_int_equal(rw->rdlock(rs, 0), 0);
	assert_int_equal(rw->tryrdlock(rs, 0), 0);
	assert_int_equal(atomic_load(&writer_in), 0);
	rw->unlock(rs, 0);
	rw->unlock(rs, 0);
	assert_int_equal(atomic_load(&writer_in), 0);
	rw->unlock(rs, 0);
	rw_join(w);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_true(quiet(rs));
}

static _Atomic int reader_in;

static void *blocking_reader(void *a)
{
	assert_int_equal(rw->rdlock(rs, rw_flags), 0);
	atomic_store(&reader_in, 1);
	rw->unlock(rs, rw_flags);
	return NULL;
}

/* Writer preference: once a writer waits, new readers are refused and
 * wait for it; when it gives up (timeout), they get in. */
__attribute__((unused)) static void check_writer_preference(void)
{
	rw_reset();
	rw_flags = LS_RW_PREFER_WRITER;
	atomic_store(&writer_in, 0);
	atomic_store(&reader_in, 0);
	assert_int_equal(rw->rdlock(rs, rw_flags), 0);
	pthread_t w = rw_spawn(blocking_writer, 0);
	rw_await(readers_refused);
	pthread_t r = rw_spawn(blocking_reader, 0);
	usleep(10000);
	assert_int_equal(atomic_load(&reader_in), 0);
	rw->unlock(rs, rw_flags);
	rw_join(w);
	rw_join(r);
	assert_int_equal(atomic_load(&writer_in), 1);
	assert_int_equal(atomic_load(&reader_in), 1);
	assert_true(quiet(rs));
}

static void *timed_writer_long(void *a)
{
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 100);
	return (void *)(long)rw->timedwrlock(rs, rw_flags, CLOCK_MONOTONIC, &t);
}

__attribute__((unused)) static void check_writer_timeout_releases_readers(void)
{
	rw_reset();
	rw_flags = LS_RW_PREFER_WRITER;
	atomic_store(&reader_in, 0);
	assert_int_equal(rw->rdlock(rs, rw_flags), 0);
	pthread_t w = rw_spawn(timed_writer_long, 0);
	rw_await(readers_refused);
	pthread_t r = rw_spawn(blocking_reader, 0);
	assert_int_equal(rw_join(w), ETIMEDOUT);
	rw_join(r); /* would hang if the writer's timeout left readers parked */
	assert_int_equal(atomic_load(&reader_in), 1);
	rw->unlock(rs, rw_flags);
	assert_true(quiet(rs));
}

/* ---- the checks above as cmocka tests, for each algorithm's file ---- */

static void test_exclusion_reader_pref(void **state) { check_exclusion(0); }
static void test_exclusion_writer_pref(void **state) { check_exclusion(LS_RW_PREFER_WRITER); }
static void test_try_forms(void **state) { check_try_forms(0); check_try_forms(LS_RW_PREFER_WRITER); }
static void test_timeouts_clean(void **state) { check_timeouts_clean(0); check_timeouts_clean(LS_RW_PREFER_WRITER); }
static void test_recursive_read(void **state) { check_recursive_read(); }
/* Writer preference: readers (fast ones too) stand back for a waiting writer. */
static void test_writer_preference(void **state) { check_writer_preference(); }
static void test_writer_timeout(void **state) { check_writer_timeout_releases_readers(); }

/* The shared tests' entries in a file's CMUnitTest list. */
#define RW_SHARED_TESTS                                                                    \
	cmocka_unit_test(test_exclusion_reader_pref), cmocka_unit_test(test_exclusion_writer_pref), \
	cmocka_unit_test(test_try_forms), cmocka_unit_test(test_timeouts_clean),               \
	cmocka_unit_test(test_recursive_read), cmocka_unit_test(test_writer_preference),       \
	cmocka_unit_test(test_writer_timeout)

#endif
