/*
 * stats_rwlock.c - a workload with exactly known rwlock statistics,
 * checked by tests/stats/run_stats.py from the JSON that LOCKSWAP_STATS
 * writes, under every rwlock backend.  On its own (any backend,
 * statistics on or off) it only checks its own results.
 *
 * The numbers the stats test expects (keep in step with run_stats.py):
 *   count_rw    first used in count_worker: worker i (0..3) does
 *               (i+1) x COUNT_READS reads and (i+1) x COUNT_WRITES writes,
 *               so each mode's shares are 1/10, 2/10, 3/10, 4/10
 *   try_rw      while a holder thread write-holds it, main's
 *               TRY_READ_FAILS tryrdlock and TRY_WRITE_FAILS trywrlock
 *               fail; after, TRY_READS tryrdlock and TRY_WRITES trywrlock
 *               succeed (writes: + 1 by the holder)
 *   timed_rw    while write-held: 3 timedrdlock + 2 clockrdlock and 2
 *               timedwrlock + 1 clockwrlock with past deadlines time out;
 *               after: 2 + 2 reads and 1 + 1 writes succeed (writes: + 1
 *               by the holder)
 *   contend_rw  first used in contend_reader: CONTEND_READERS readers
 *               each read once, then block on main's write lock (each
 *               read contended), then CONTEND_WRITERS writers block on
 *               main's read lock (each write contended).  reads:
 *               2 x CONTEND_READERS + 1 (main), writes: 1 (main) +
 *               CONTEND_WRITERS
 *   shared_rw   process-shared (glibc serves it): main SHARED_READS reads
 *               and SHARED_WRITES writes
 *
 * Contention is forced, never timed: main holds the lock until every
 * waiter announced it is about to lock and then sleeps in the kernel
 * (state S in /proc/self/task/TID/stat).  A waiter's only step between
 * the two is its lock call, and it cannot sleep there before its first
 * try failed, so each wait is contended.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../preload/check.h"
#include "../../thread_state.h"

#define COUNT_THREADS 4
#define COUNT_READS 1000
#define COUNT_WRITES 100
#define TRY_READ_FAILS 5
#define TRY_WRITE_FAILS 3
#define TRY_READS 10
#define TRY_WRITES 4
#define CONTEND_READERS 3
#define CONTEND_WRITERS 2
#define SHARED_READS 6
#define SHARED_WRITES 4

static pthread_rwlock_t count_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t try_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t timed_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t contend_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t shared_rw;

static volatile long counter;
static _Atomic long torn_reads; /* a write seen inside a read: exclusion broken */

__attribute__((noinline)) static void *count_worker(void *arg)
{
	long n = (long)(intptr_t)arg + 1;
	for (long i = 0; i < n * COUNT_READS; i++) {
		pthread_rwlock_rdlock(&count_rw);
		long seen = counter;
		if (counter != seen)
			atomic_fetch_add(&torn_reads, 1);
		pthread_rwlock_unlock(&count_rw);
		if (i % (COUNT_READS / COUNT_WRITES) == 0) {
			pthread_rwlock_wrlock(&count_rw);
			counter++;
			pthread_rwlock_unlock(&count_rw);
		}
	}
	return NULL;
}

/* ---- a holder thread: write-holds a lock until told ---- */

static sem_t held, release;

static void *write_holder(void *arg)
{
	pthread_rwlock_t *l = arg;
	pthread_rwlock_wrlock(l);
	sem_post(&held);
	while (sem_wait(&release) != 0)
		;
	pthread_rwlock_unlock(l);
	return NULL;
}

static pthread_t hold_start(pthread_rwlock_t *l)
{
	pthread_t t;
	pthread_create(&t, NULL, write_holder, l);
	while (sem_wait(&held) != 0)
		;
	return t;
}

static void hold_end(pthread_t t)
{
	sem_post(&release);
	pthread_join(t, NULL);
}

static struct timespec past(void)
{
	return (struct timespec){ 1, 0 }; /* 1970: always expired */
}

static void try_phase(void)
{
	pthread_t h = hold_start(&try_rw);
	int busy = 0;
	for (int i = 0; i < TRY_READ_FAILS; i++)
		busy += pthread_rwlock_tryrdlock(&try_rw) == EBUSY;
	for (int i = 0; i < TRY_WRITE_FAILS; i++)
		busy += pthread_rwlock_trywrlock(&try_rw) == EBUSY;
	CHECK_EQ(busy, TRY_READ_FAILS + TRY_WRITE_FAILS, "try_rw: every try fails while write-held");
	hold_end(h);
	int got = 0;
	for (int i = 0; i < TRY_READS; i++)
		if (pthread_rwlock_tryrdlock(&try_rw) == 0)
			got++, pthread_rwlock_unlock(&try_rw);
	for (int i = 0; i < TRY_WRITES; i++)
		if (pthread_rwlock_trywrlock(&try_rw) == 0)
			got++, pthread_rwlock_unlock(&try_rw);
	CHECK_EQ(got, TRY_READS + TRY_WRITES, "try_rw: every try succeeds when free");
}

static void timed_phase(void)
{
	struct timespec t = past();
	pthread_t h = hold_start(&timed_rw);
	int out = 0;
	for (int i = 0; i < 3; i++)
		out += pthread_rwlock_timedrdlock(&timed_rw, &t) == ETIMEDOUT;
	for (int i = 0; i < 2; i++)
		out += pthread_rwlock_clockrdlock(&timed_rw, CLOCK_MONOTONIC, &t) == ETIMEDOUT;
	for (int i = 0; i < 2; i++)
		out += pthread_rwlock_timedwrlock(&timed_rw, &t) == ETIMEDOUT;
	out += pthread_rwlock_clockwrlock(&timed_rw, CLOCK_REALTIME, &t) == ETIMEDOUT;
	CHECK_EQ(out, 8, "timed_rw: 5 reads and 3 writes time out while write-held");
	hold_end(h);
	/* A free lock is taken whatever the deadline. */
	int got = 0;
	for (int i = 0; i < 2; i++) {
		if (pthread_rwlock_timedrdlock(&timed_rw, &t) == 0)
			got++, pthread_rwlock_unlock(&timed_rw);
		if (pthread_rwlock_clockrdlock(&timed_rw, CLOCK_MONOTONIC, &t) == 0)
			got++, pthread_rwlock_unlock(&timed_rw);
	}
	if (pthread_rwlock_timedwrlock(&timed_rw, &t) == 0)
		got++, pthread_rwlock_unlock(&timed_rw);
	if (pthread_rwlock_clockwrlock(&timed_rw, CLOCK_MONOTONIC, &t) == 0)
		got++, pthread_rwlock_unlock(&timed_rw);
	CHECK_EQ(got, 6, "timed_rw: 4 reads and 2 writes taken when free");
}

/* ---- forced contention ---- */

static _Atomic int announced;
static _Atomic pid_t waiter_tid[CONTEND_READERS + CONTEND_WRITERS];
static sem_t warm, go;

static void announce(int i)
{
	atomic_store(&waiter_tid[i], (pid_t)syscall(SYS_gettid));
	atomic_fetch_add(&announced, 1);
}

__attribute__((noinline)) static void *contend_reader(void *arg)
{
	int i = (int)(intptr_t)arg;
	pthread_rwlock_rdlock(&contend_rw); /* the first use: contend_rw's site */
	pthread_rwlock_unlock(&contend_rw);
	sem_post(&warm);
	while (sem_wait(&go) != 0) /* until main write-holds contend_rw */
		;
	announce(i);
	pthread_rwlock_rdlock(&contend_rw);
	pthread_rwlock_unlock(&contend_rw);
	return NULL;
}

__attribute__((noinline)) static void *contend_writer(void *arg)
{
	int i = (int)(intptr_t)arg;
	announce(i);
	pthread_rwlock_wrlock(&contend_rw);
	counter++;
	pthread_rwlock_unlock(&contend_rw);
	return NULL;
}

/* Until waiters from..to-1 announced and sleep in the kernel; false
 * after 30 s (the check fails instead of hanging). */
static bool all_asleep(int from, int to)
{
	struct timespec tick = { 0, 1000000 };
	for (int round = 0; round < 30000; round++) {
		int asleep = 0;
		if (atomic_load(&announced) == to)
			for (int i = from; i < to; i++)
				asleep += thread_state(atomic_load(&waiter_tid[i])) == 'S';
		if (asleep == to - from)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

static void contend_phase(void)
{
	pthread_t t[CONTEND_READERS + CONTEND_WRITERS];
	/* Readers: they take contend_rw once (its first use), then block
	 * behind main's write lock. */
	sem_init(&warm, 0, 0);
	sem_init(&go, 0, 0);
	for (int i = 0; i < CONTEND_READERS; i++)
		pthread_create(&t[i], NULL, contend_reader, (void *)(intptr_t)i);
	for (int i = 0; i < CONTEND_READERS; i++)
		while (sem_wait(&warm) != 0)
			;
	pthread_rwlock_wrlock(&contend_rw);
	for (int i = 0; i < CONTEND_READERS; i++)
		sem_post(&go);
	bool r = all_asleep(0, CONTEND_READERS);
	pthread_rwlock_unlock(&contend_rw);
	CHECK(r, "contend_rw: every reader blocked behind the write lock within 30 s");
	for (int i = 0; i < CONTEND_READERS; i++)
		pthread_join(t[i], NULL);
	/* Writers: block behind main's read lock. */
	pthread_rwlock_rdlock(&contend_rw);
	for (int i = CONTEND_READERS; i < CONTEND_READERS + CONTEND_WRITERS; i++)
		pthread_create(&t[i], NULL, contend_writer, (void *)(intptr_t)i);
	bool w = all_asleep(CONTEND_READERS, CONTEND_READERS + CONTEND_WRITERS);
	pthread_rwlock_unlock(&contend_rw);
	CHECK(w, "contend_rw: every writer blocked behind the read lock within 30 s");
	for (int i = CONTEND_READERS; i < CONTEND_READERS + CONTEND_WRITERS; i++)
		pthread_join(t[i], NULL);
}

static void shared_phase(void)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	CHECK_EQ(pthread_rwlock_init(&shared_rw, &a), 0, "shared_rw: init");
	pthread_rwlockattr_destroy(&a);
	int got = 0;
	for (int i = 0; i < SHARED_READS; i++)
		if (pthread_rwlock_rdlock(&shared_rw) == 0)
			got++, pthread_rwlock_unlock(&shared_rw);
	for (int i = 0; i < SHARED_WRITES; i++)
		if (pthread_rwlock_wrlock(&shared_rw) == 0)
			got++, pthread_rwlock_unlock(&shared_rw);
	CHECK_EQ(got, SHARED_READS + SHARED_WRITES, "shared_rw: reads and writes");
}

int main(void)
{
	sem_init(&held, 0, 0);
	sem_init(&release, 0, 0);
	pthread_t t[COUNT_THREADS];
	for (int i = 0; i < COUNT_THREADS; i++)
		pthread_create(&t[i], NULL, count_worker, (void *)(intptr_t)i);
	for (int i = 0; i < COUNT_THREADS; i++)
		pthread_join(t[i], NULL);
	long writes = COUNT_WRITES * COUNT_THREADS * (COUNT_THREADS + 1) / 2;
	CHECK_EQ(counter, writes, "count_rw: every write counted");
	CHECK_EQ(torn_reads, 0, "count_rw: no write inside a read");
	try_phase();
	timed_phase();
	contend_phase();
	shared_phase();
	return check_finish();
}
