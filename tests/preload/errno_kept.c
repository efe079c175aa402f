/*
 * errno_kept.c - lock calls leave the caller's errno as it was, as
 * glibc's own do (its futex calls use its internal syscall macro, which
 * sets no errno).  A program may read errno after taking a lock (a
 * logging mutex taken between a failed read() and the message that
 * prints strerror(errno)); a lock that parked in the kernel and came back
 * with EAGAIN, EINTR or ETIMEDOUT must not leave that in errno.
 *
 * Each case sets errno to a marker, makes one call that certainly parks
 * (a timed wait that times out, a wait for a lock held by another thread)
 * or many that may (threads contending), and checks the marker after.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MARK 4242
#define CONTENDERS 4
#define ROUNDS 5000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static _Atomic long changed;  /* calls after which errno was not the marker */
static _Atomic int ready, flag;
static long counter;

static struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_nsec += ms * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

/* After a call: errno still the marker `k`?  Counted, then set again. */
static void kept(int k)
{
	if (errno != k)
		atomic_fetch_add(&changed, 1);
	errno = k;
}

static void *contender(void *arg)
{
	int k = MARK + (int)(long)arg;
	errno = k;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&m);
		kept(k);
		counter++;
		pthread_mutex_unlock(&m);
		kept(k);
		if (i % 64 == 0) {
			pthread_rwlock_wrlock(&rw);
			kept(k);
			pthread_rwlock_unlock(&rw);
			kept(k);
			pthread_rwlock_rdlock(&rw);
			kept(k);
			pthread_rwlock_unlock(&rw);
			kept(k);
		}
	}
	return NULL;
}

/* Blocks on the mutex the main thread holds until it lets go. */
static void *blocked_locker(void *arg)
{
	errno = MARK;
	atomic_store(&ready, 1);
	pthread_mutex_lock(&m);
	kept(MARK);
	pthread_mutex_unlock(&m);
	kept(MARK);
	return arg;
}

/* Waits on the condvar until the main thread sets the flag. */
static void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&m);
	atomic_store(&ready, 1);
	while (!atomic_load(&flag)) {
		errno = MARK;
		pthread_cond_wait(&c, &m);
		kept(MARK);
	}
	pthread_mutex_unlock(&m);
	return arg;
}

/* Times out on locks the main thread holds. */
static void *timed_out(void *arg)
{
	struct timespec t = in_ms(CLOCK_REALTIME, 2);
	errno = MARK;
	int r = pthread_mutex_timedlock(&m, &t);
	CHECK_EQ(r, ETIMEDOUT, "pthread_mutex_timedlock on a held mutex times out");
	CHECK_EQ(errno, MARK, "errno unchanged by a timed-out pthread_mutex_timedlock");
	t = in_ms(CLOCK_MONOTONIC, 2);
	errno = MARK;
	r = pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &t);
	CHECK_EQ(r, ETIMEDOUT, "pthread_mutex_clocklock on a held mutex times out");
	CHECK_EQ(errno, MARK, "errno unchanged by a timed-out pthread_mutex_clocklock");
	return arg;
}

static void *timed_out_rw(void *arg)
{
	struct timespec t = in_ms(CLOCK_REALTIME, 2);
	errno = MARK;
	int r = pthread_rwlock_timedwrlock(&rw, &t);
	CHECK_EQ(r, ETIMEDOUT, "pthread_rwlock_timedwrlock on a read-held rwlock times out");
	CHECK_EQ(errno, MARK, "errno unchanged by a timed-out pthread_rwlock_timedwrlock");
	return arg;
}

static void *timed_out_rd(void *arg)
{
	struct timespec t = in_ms(CLOCK_REALTIME, 2);
	errno = MARK;
	int r = pthread_rwlock_timedrdlock(&rw, &t);
	CHECK_EQ(r, ETIMEDOUT, "pthread_rwlock_timedrdlock on a write-held rwlock times out");
	CHECK_EQ(errno, MARK, "errno unchanged by a timed-out pthread_rwlock_timedrdlock");
	return arg;
}

static void run(void *(*fn)(void *))
{
	pthread_t t;
	pthread_create(&t, NULL, fn, NULL);
	pthread_join(t, NULL);
}

/* Starts fn, waits until it is about to block, gives it time to park,
 * then lets it through with `release`. */
static void park_then(void *(*fn)(void *), void (*release)(void))
{
	pthread_t t;
	atomic_store(&ready, 0);
	pthread_create(&t, NULL, fn, NULL);
	while (!atomic_load(&ready))
		usleep(100);
	usleep(5000);
	release();
	pthread_join(t, NULL);
}

static void unlock_m(void) { pthread_mutex_unlock(&m); }
static void signal_c(void)
{
	pthread_mutex_lock(&m);
	atomic_store(&flag, 1);
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
}

int main(void)
{
	/* Timed waits that certainly time out in the kernel. */
	pthread_mutex_lock(&m);
	run(timed_out);
	pthread_mutex_unlock(&m);
	pthread_rwlock_rdlock(&rw);
	run(timed_out_rw);
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_wrlock(&rw);
	run(timed_out_rd);
	pthread_rwlock_unlock(&rw);

	pthread_mutex_lock(&m);
	errno = MARK;
	struct timespec t = in_ms(CLOCK_REALTIME, 2);
	int r = pthread_cond_timedwait(&c, &m, &t);
	CHECK_EQ(r, ETIMEDOUT, "pthread_cond_timedwait without a signal times out");
	CHECK_EQ(errno, MARK, "errno unchanged by a timed-out pthread_cond_timedwait");
	pthread_mutex_unlock(&m);

	/* Waits that park until another thread lets them through. */
	atomic_store(&changed, 0);
	pthread_mutex_lock(&m);
	park_then(blocked_locker, unlock_m);
	atomic_store(&flag, 0);
	park_then(cond_waiter, signal_c);
	CHECK_EQ(atomic_load(&changed), 0,
	         "errno unchanged by a lock and a condvar wait that parked until woken");

	/* Contention: some of these calls park, some find the word changed. */
	atomic_store(&changed, 0);
	pthread_t th[CONTENDERS];
	for (long i = 0; i < CONTENDERS; i++)
		pthread_create(&th[i], NULL, contender, (void *)i);
	for (int i = 0; i < CONTENDERS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(counter, (long)CONTENDERS * ROUNDS, "contended increments all counted");
	CHECK_EQ(atomic_load(&changed), 0,
	         "errno unchanged by contended mutex and rwlock calls (each thread's own marker)");
	return check_finish();
}
