/*
 * errors.c - every pthread_rwlock entry point and error code, with the
 * answers glibc 2.36 gives (measured: run.sh runs this program without
 * lockswap and under LOCKSWAP_RWLOCK=glibc too), and the kinds: recursive
 * reads under reader preference, writer preference for the
 * non-recursive-writer kind and its static initializer.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "rwcheck.h"

static pthread_rwlock_t *target;
static int other_result;

static void *other_tryrd(void *a)
{
	if ((other_result = pthread_rwlock_tryrdlock(target)) == 0)
		pthread_rwlock_unlock(target);
	return NULL;
}

static void *other_trywr(void *a)
{
	if ((other_result = pthread_rwlock_trywrlock(target)) == 0)
		pthread_rwlock_unlock(target);
	return NULL;
}

static void *other_timedwr(void *a)
{
	struct timespec t = deadline_in(CLOCK_REALTIME, 5);
	other_result = pthread_rwlock_timedwrlock(target, &t);
	return NULL;
}

static void *other_clockrd(void *a)
{
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 5);
	other_result = pthread_rwlock_clockrdlock(target, CLOCK_MONOTONIC, &t);
	return NULL;
}

static int in_other(void *(*fn)(void *), pthread_rwlock_t *l)
{
	pthread_t t;
	target = l;
	pthread_create(&t, NULL, fn, NULL);
	pthread_join(t, NULL);
	return other_result;
}

static void write_holder_errors(void)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	struct timespec past = { 1, 0 }, neg = { -1, 0 };
	struct timespec bad = { time(NULL) + 1, 1000000000L }, badneg = { time(NULL) + 1, -1 };
	struct timespec soon = deadline_in(CLOCK_REALTIME, 5);
	CHECK_ERR(pthread_rwlock_wrlock(&l), 0, "wrlock");
	CHECK_ERR(pthread_rwlock_rdlock(&l), EDEADLK, "rdlock by the write holder -> EDEADLK");
	CHECK_ERR(pthread_rwlock_wrlock(&l), EDEADLK, "wrlock by the write holder -> EDEADLK");
	CHECK_ERR(pthread_rwlock_tryrdlock(&l), EBUSY, "tryrdlock by the write holder -> EBUSY");
	CHECK_ERR(pthread_rwlock_trywrlock(&l), EBUSY, "trywrlock by the write holder -> EBUSY");
	CHECK_ERR(pthread_rwlock_timedrdlock(&l, &soon), EDEADLK, "timedrdlock by the write holder -> EDEADLK");
	CHECK_ERR(pthread_rwlock_timedwrlock(&l, &neg), EDEADLK, "timedwrlock tv_sec<0 by the write holder -> EDEADLK");
	CHECK_ERR(pthread_rwlock_clockrdlock(&l, CLOCK_MONOTONIC, &past), EDEADLK, "clockrdlock by the write holder -> EDEADLK");
	CHECK_ERR(pthread_rwlock_clockwrlock(&l, CLOCK_REALTIME, &past), EDEADLK, "clockwrlock by the write holder -> EDEADLK");
	CHECK_ERR(pthread_rwlock_timedrdlock(&l, &bad), EINVAL, "timedrdlock tv_nsec=1e9 by the write holder -> EINVAL (checked first)");
	CHECK_ERR(in_other(other_tryrd, &l), EBUSY, "tryrdlock by another thread -> EBUSY");
	CHECK_ERR(in_other(other_trywr, &l), EBUSY, "trywrlock by another thread -> EBUSY");
	CHECK_ERR(in_other(other_timedwr, &l), ETIMEDOUT, "timedwrlock by another thread -> ETIMEDOUT");
	CHECK_ERR(in_other(other_clockrd, &l), ETIMEDOUT, "clockrdlock MONOTONIC by another thread -> ETIMEDOUT");
	CHECK_ERR(pthread_rwlock_unlock(&l), 0, "unlock the write lock");
	/* Validation is eager: EINVAL even when the lock is free. */
	CHECK_ERR(pthread_rwlock_timedrdlock(&l, &bad), EINVAL, "free: timedrdlock tv_nsec=1e9 -> EINVAL");
	CHECK_ERR(pthread_rwlock_timedwrlock(&l, &badneg), EINVAL, "free: timedwrlock tv_nsec=-1 -> EINVAL");
	CHECK_ERR(pthread_rwlock_clockrdlock(&l, CLOCK_PROCESS_CPUTIME_ID, &past), EINVAL, "free: clockrdlock CPUTIME clock -> EINVAL");
	CHECK_ERR(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC_RAW, &past), EINVAL, "free: clockwrlock MONOTONIC_RAW -> EINVAL");
	CHECK_ERR(pthread_rwlock_clockwrlock(&l, 12345, &past), EINVAL, "free: clockwrlock clock 12345 -> EINVAL");
	/* An expired deadline still takes a free lock. */
	CHECK_ERR(pthread_rwlock_timedrdlock(&l, &neg), 0, "free: timedrdlock tv_sec<0 -> 0");
	CHECK_ERR(pthread_rwlock_unlock(&l), 0, "unlock");
	CHECK_ERR(pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &past), 0, "free: clockwrlock past deadline -> 0");
	CHECK_ERR(pthread_rwlock_unlock(&l), 0, "unlock");
	CHECK_ERR(pthread_rwlock_destroy(&l), 0, "destroy");
}

static void reader_errors(void)
{
	pthread_rwlock_t l;
	struct timespec past = { 1, 0 }, neg = { -1, 0 };
	CHECK_ERR(pthread_rwlock_init(&l, NULL), 0, "init(NULL)");
	CHECK_ERR(pthread_rwlock_rdlock(&l), 0, "rdlock");
	CHECK_ERR(pthread_rwlock_tryrdlock(&l), 0, "tryrdlock while reading -> 0");
	CHECK_ERR(in_other(other_tryrd, &l), 0, "tryrdlock by another thread while read-locked -> 0");
	CHECK_ERR(pthread_rwlock_trywrlock(&l), EBUSY, "trywrlock by a reader -> EBUSY");
	CHECK_ERR(pthread_rwlock_timedwrlock(&l, &past), ETIMEDOUT, "timedwrlock past deadline by a reader -> ETIMEDOUT");
	CHECK_ERR(pthread_rwlock_timedwrlock(&l, &neg), ETIMEDOUT, "timedwrlock tv_sec<0 while read-locked -> ETIMEDOUT");
	CHECK_ERR(in_other(other_timedwr, &l), ETIMEDOUT, "timedwrlock by another thread while read-locked -> ETIMEDOUT");
	CHECK_ERR(pthread_rwlock_destroy(&l), 0, "destroy while read-locked -> 0 (glibc does not check)");
	CHECK_ERR(pthread_rwlock_unlock(&l), 0, "unlock");
	CHECK_ERR(pthread_rwlock_unlock(&l), 0, "unlock");
	CHECK_ERR(in_other(other_trywr, &l), 0, "trywrlock by another thread once free -> 0");
	CHECK_ERR(pthread_rwlock_destroy(&l), 0, "destroy");
}

static void attr_errors(void)
{
	pthread_rwlockattr_t a;
	int kind = -1;
	pthread_rwlockattr_init(&a);
	CHECK_ERR(pthread_rwlockattr_setkind_np(&a, 3), EINVAL, "rwlockattr_setkind_np(3) -> EINVAL");
	pthread_rwlockattr_getkind_np(&a, &kind);
	CHECK_EQ(kind, PTHREAD_RWLOCK_PREFER_READER_NP, "default kind is PREFER_READER");
	pthread_rwlockattr_destroy(&a);
}

/* ---- kinds ---- */

static _Atomic int writer_done;

static void *writer(void *a)
{
	pthread_rwlock_wrlock(target);
	writer_done = 1;
	pthread_rwlock_unlock(target);
	return NULL;
}

/* Reader preference (default and PREFER_WRITER_NP): the read holder reads
 * again while a writer waits. */
static void recursive_reads(pthread_rwlock_t *l, const char *what)
{
	char name[160];
	pthread_t w;
	writer_done = 0;
	target = l;
	CHECK_ERR(pthread_rwlock_rdlock(l), 0, what);
	pthread_create(&w, NULL, writer, NULL);
	usleep(20000); /* let the writer block (the check holds either way) */
	snprintf(name, sizeof name, "%s: recursive rdlock with a writer waiting -> 0", what);
	CHECK_ERR(pthread_rwlock_rdlock(l), 0, name);
	snprintf(name, sizeof name, "%s: recursive tryrdlock with a writer waiting -> 0", what);
	CHECK_ERR(pthread_rwlock_tryrdlock(l), 0, name);
	pthread_rwlock_unlock(l);
	pthread_rwlock_unlock(l);
	snprintf(name, sizeof name, "%s: writer still waiting for the last reader", what);
	CHECK_EQ(writer_done, 0, name);
	pthread_rwlock_unlock(l);
	pthread_join(w, NULL);
	snprintf(name, sizeof name, "%s: writer got in after the last unlock", what);
	CHECK_EQ(writer_done, 1, name);
}

/* PREFER_WRITER_NONRECURSIVE: once a writer waits, new readers wait too. */
static void writer_preference(pthread_rwlock_t *l, const char *what)
{
	char name[160];
	pthread_t w;
	writer_done = 0;
	target = l;
	CHECK_ERR(pthread_rwlock_rdlock(l), 0, what);
	pthread_create(&w, NULL, writer, NULL);
	int r = 0;
	for (int i = 0; i < 10000 && (r = in_other(other_tryrd, l)) == 0; i++)
		usleep(1000);
	snprintf(name, sizeof name, "%s: tryrdlock by another thread with a writer waiting -> EBUSY", what);
	CHECK_ERR(r, EBUSY, name);
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 5);
	snprintf(name, sizeof name, "%s: clockrdlock by another thread with a writer waiting -> ETIMEDOUT", what);
	CHECK_ERR(in_other(other_clockrd, l), ETIMEDOUT, name);
	(void)t;
	pthread_rwlock_unlock(l);
	pthread_join(w, NULL);
	snprintf(name, sizeof name, "%s: writer got in", what);
	CHECK_EQ(writer_done, 1, name);
	CHECK_ERR(in_other(other_tryrd, l), 0, "then readers get in again");
}

static void kinds(void)
{
	pthread_rwlockattr_t a;
	pthread_rwlock_t l;
	pthread_rwlockattr_init(&a);
	pthread_rwlock_init(&l, &a);
	recursive_reads(&l, "default kind");
	pthread_rwlock_destroy(&l);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NP);
	pthread_rwlock_init(&l, &a);
	recursive_reads(&l, "PREFER_WRITER_NP (reader preference in glibc)");
	pthread_rwlock_destroy(&l);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&l, &a);
	writer_preference(&l, "PREFER_WRITER_NONRECURSIVE_NP");
	pthread_rwlock_destroy(&l);
	pthread_rwlockattr_destroy(&a);
	pthread_rwlock_t s = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	writer_preference(&s, "WRITER_NONRECURSIVE static initializer");
	pthread_rwlock_t r = PTHREAD_RWLOCK_INITIALIZER;
	recursive_reads(&r, "PTHREAD_RWLOCK_INITIALIZER");
}

int main(void)
{
	write_holder_errors();
	reader_errors();
	attr_errors();
	kinds();
	return rw_finish();
}
