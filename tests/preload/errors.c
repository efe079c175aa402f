/*
 * errors.c - every error code the issue lists, with the values glibc 2.36
 * gives (docs/glibc.md, section 5).  Run under the "glibc" backend the
 * same program checks that these expectations really are glibc's.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t *target;
static int other_result;

static void *other_trylock(void *a) { other_result = pthread_mutex_trylock(target); return NULL; }
static void *other_unlock(void *a) { other_result = pthread_mutex_unlock(target); return NULL; }

static int in_other_thread(void *(*fn)(void *), pthread_mutex_t *m)
{
	pthread_t t;
	target = m;
	pthread_create(&t, NULL, fn, NULL);
	pthread_join(t, NULL);
	return other_result;
}

static void init_kind(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

static void normal_errors(void)
{
	pthread_mutex_t m;
	init_kind(&m, PTHREAD_MUTEX_NORMAL);
	CHECK_ERR(pthread_mutex_lock(&m), 0, "normal: lock");
	CHECK_ERR(pthread_mutex_trylock(&m), EBUSY, "normal: trylock by owner -> EBUSY");
	CHECK_ERR(in_other_thread(other_trylock, &m), EBUSY, "normal: trylock by other thread -> EBUSY");
	struct timespec t = deadline_in(CLOCK_REALTIME, 5);
	CHECK_ERR(pthread_mutex_timedlock(&m, &t), ETIMEDOUT, "normal: timedlock by owner -> ETIMEDOUT");
	struct timespec past = { 1, 0 };
	CHECK_ERR(pthread_mutex_timedlock(&m, &past), ETIMEDOUT, "normal: timedlock past deadline -> ETIMEDOUT");
	struct timespec negative = { -1, 0 };
	CHECK_ERR(pthread_mutex_timedlock(&m, &negative), ETIMEDOUT, "normal: timedlock tv_sec<0 -> ETIMEDOUT");
	struct timespec bad = { time(NULL) + 1, 1000000000L };
	CHECK_ERR(pthread_mutex_timedlock(&m, &bad), EINVAL, "normal: contended timedlock tv_nsec=1e9 -> EINVAL");
	t = deadline_in(CLOCK_MONOTONIC, 5);
	CHECK_ERR(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &t), ETIMEDOUT, "normal: clocklock MONOTONIC by owner -> ETIMEDOUT");
	CHECK_ERR(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &t), EINVAL, "normal: contended clocklock CPUTIME clock -> EINVAL");
	CHECK_ERR(pthread_mutex_destroy(&m), EBUSY, "normal: destroy while locked -> EBUSY");
	CHECK_ERR(pthread_mutex_unlock(&m), 0, "normal: unlock");
	CHECK_ERR(pthread_mutex_timedlock(&m, &bad), 0, "normal: uncontended timedlock tv_nsec=1e9 -> 0 (deadline unused)");
	CHECK_ERR(pthread_mutex_unlock(&m), 0, "normal: unlock after timedlock");
	CHECK_ERR(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &t), EINVAL, "normal: uncontended clocklock CPUTIME clock -> EINVAL");
	CHECK_ERR(pthread_mutex_clocklock(&m, (clockid_t)12345, &t), EINVAL, "normal: clocklock clock 12345 -> EINVAL");
	CHECK_ERR(pthread_mutex_consistent(&m), EINVAL, "normal: consistent on non-robust -> EINVAL");
	CHECK_ERR(pthread_mutex_destroy(&m), 0, "normal: destroy");
	CHECK_ERR(pthread_mutex_lock(&m), EINVAL, "normal: lock after destroy -> EINVAL");
	CHECK_ERR(pthread_mutex_init(&m, NULL), 0, "normal: init again after destroy");
	CHECK_ERR(pthread_mutex_lock(&m), 0, "normal: lock after re-init");
	CHECK_ERR(pthread_mutex_unlock(&m), 0, "normal: unlock after re-init");
}

static void errorcheck_errors(void)
{
	pthread_mutex_t m;
	init_kind(&m, PTHREAD_MUTEX_ERRORCHECK);
	CHECK_ERR(pthread_mutex_unlock(&m), EPERM, "errorcheck: unlock when unlocked -> EPERM");
	CHECK_ERR(pthread_mutex_lock(&m), 0, "errorcheck: lock");
	CHECK_ERR(pthread_mutex_lock(&m), EDEADLK, "errorcheck: relock by owner -> EDEADLK");
	CHECK_ERR(pthread_mutex_trylock(&m), EBUSY, "errorcheck: trylock by owner -> EBUSY");
	struct timespec t = deadline_in(CLOCK_REALTIME, 5);
	CHECK_ERR(pthread_mutex_timedlock(&m, &t), EDEADLK, "errorcheck: timedlock by owner -> EDEADLK");
	CHECK_ERR(in_other_thread(other_unlock, &m), EPERM, "errorcheck: unlock by non-owner -> EPERM");
	CHECK_ERR(in_other_thread(other_trylock, &m), EBUSY, "errorcheck: trylock by other thread -> EBUSY");
	CHECK_ERR(pthread_mutex_unlock(&m), 0, "errorcheck: unlock by owner");
	CHECK_ERR(pthread_mutex_unlock(&m), EPERM, "errorcheck: second unlock -> EPERM");
	CHECK_ERR(pthread_mutex_destroy(&m), 0, "errorcheck: destroy");
}

/* The recursion counter lives at a different offset in each implementation;
 * this white-box poke is the only way to reach UINT_MAX in a test. */
static uint32_t *count_field(pthread_mutex_t *m)
{
	size_t off = strcmp(check_backend(), "glibc") == 0 || strcmp(check_backend(), "none") == 0 ? 4 : 24;
	return (uint32_t *)((char *)m + off);
}

static void recursive_errors(void)
{
	pthread_mutex_t m;
	init_kind(&m, PTHREAD_MUTEX_RECURSIVE);
	CHECK_ERR(pthread_mutex_unlock(&m), EPERM, "recursive: unlock when unlocked -> EPERM");
	CHECK_ERR(pthread_mutex_lock(&m), 0, "recursive: lock");
	CHECK_ERR(pthread_mutex_lock(&m), 0, "recursive: relock by owner -> 0");
	CHECK_ERR(pthread_mutex_trylock(&m), 0, "recursive: trylock by owner -> 0");
	struct timespec t = deadline_in(CLOCK_REALTIME, 5);
	CHECK_ERR(pthread_mutex_timedlock(&m, &t), 0, "recursive: timedlock by owner -> 0");
	CHECK_ERR(in_other_thread(other_unlock, &m), EPERM, "recursive: unlock by non-owner -> EPERM");
	CHECK_ERR(in_other_thread(other_trylock, &m), EBUSY, "recursive: trylock by other thread -> EBUSY");
	CHECK_EQ(*count_field(&m), 4, "recursive: depth is 4");
	*count_field(&m) = UINT_MAX;
	CHECK_ERR(pthread_mutex_lock(&m), EAGAIN, "recursive: lock at UINT_MAX depth -> EAGAIN");
	CHECK_ERR(pthread_mutex_trylock(&m), EAGAIN, "recursive: trylock at UINT_MAX depth -> EAGAIN");
	*count_field(&m) = 4;
	for (int i = 0; i < 4; i++)
		CHECK_ERR(pthread_mutex_unlock(&m), 0, "recursive: unlock one level");
	CHECK_ERR(in_other_thread(other_trylock, &m), 0, "recursive: free after 4 unlocks (other thread takes it)");
	CHECK_ERR(pthread_mutex_unlock(&m), EPERM, "recursive: unlock of other thread's mutex -> EPERM");
}

static void cond_errors(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_t e;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	init_kind(&e, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_lock(&m);
	struct timespec bad = { time(NULL) + 1, 1000000000L };
	CHECK_ERR(pthread_cond_timedwait(&c, &m, &bad), EINVAL, "cond: timedwait tv_nsec=1e9 -> EINVAL");
	bad.tv_nsec = -1;
	CHECK_ERR(pthread_cond_timedwait(&c, &m, &bad), EINVAL, "cond: timedwait tv_nsec=-1 -> EINVAL");
	struct timespec past = { 1, 0 };
	CHECK_ERR(pthread_cond_timedwait(&c, &m, &past), ETIMEDOUT, "cond: timedwait past -> ETIMEDOUT");
	struct timespec negative = { -1, 0 };
	CHECK_ERR(pthread_cond_timedwait(&c, &m, &negative), ETIMEDOUT, "cond: timedwait tv_sec=-1 -> ETIMEDOUT");
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 5);
	CHECK_ERR(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &t), EINVAL, "cond: clockwait CPUTIME -> EINVAL");
	CHECK_ERR(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC_RAW, &t), EINVAL, "cond: clockwait MONOTONIC_RAW -> EINVAL");
	CHECK_ERR(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &t), ETIMEDOUT, "cond: clockwait MONOTONIC 5ms -> ETIMEDOUT");
	CHECK_ERR(pthread_mutex_trylock(&m), EBUSY, "cond: mutex held again after timed-out wait");
	pthread_mutex_unlock(&m);
	t = deadline_in(CLOCK_REALTIME, 5);
	CHECK_ERR(pthread_cond_timedwait(&c, &e, &t), EPERM, "cond: timedwait with errorcheck mutex not held -> EPERM");
	CHECK_ERR(pthread_cond_signal(&c), 0, "cond: signal with no waiter");
	CHECK_ERR(pthread_cond_broadcast(&c), 0, "cond: broadcast with no waiter");
	CHECK_ERR(pthread_cond_destroy(&c), 0, "cond: destroy with no waiters -> 0");
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	CHECK_ERR(pthread_condattr_setclock(&ca, CLOCK_PROCESS_CPUTIME_ID), EINVAL, "condattr: setclock CPUTIME -> EINVAL");
	pthread_condattr_destroy(&ca);
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	CHECK_ERR(pthread_mutexattr_settype(&ma, 99), EINVAL, "mutexattr: settype 99 -> EINVAL");
	pthread_mutexattr_destroy(&ma);
}

int main(void)
{
	printf("# errors under backend %s\n", check_backend());
	normal_errors();
	errorcheck_errors();
	recursive_errors();
	cond_errors();
	return check_finish();
}
