/*
 * readers_meet.c - under reader preference (glibc's default kind, and
 * PREFER_WRITER_NP, which glibc treats the same), a new reader gets in
 * while other readers hold the lock, even with writers waiting.  So a
 * reader may hold the lock while it waits, on a condition variable, for a
 * second thread that needs a read lock of its own, while writers keep
 * arriving.  glibc runs this pattern; a lock that lets a waiting writer
 * shut new readers out (as BRAVO's revocation did, holding the underlying
 * lock while the first reader's announcement stayed in the table)
 * deadlocks on it.
 *
 * A watchdog turns a hang into a FAIL line and exit 1, so the group reports
 * it rather than blocking.  The second reader alternates rdlock,
 * clockrdlock (with a deadline far beyond any honest wait) and tryrdlock
 * in a loop, so every read entry point meets the waiting writers.
 *
 * (PREFER_WRITER_NONRECURSIVE_NP is left out on purpose: there glibc
 * makes the second reader wait for the writer, so this pattern deadlocks
 * under glibc too; errors.c checks that kind's writer preference.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "rwcheck.h"

#define ROUNDS 60
#define WRITERS 3
#define WATCHDOG_MS 30000

static pthread_rwlock_t *lock;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int second_result; /* -1 until the second reader reports */
static atomic_int stop_writers, writers_go, writers_inside;
static atomic_long writes;

/* Watchdog: the whole program must finish within WATCHDOG_MS. */
static pthread_mutex_t wd_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_c = PTHREAD_COND_INITIALIZER;
static int wd_done;
static const char *volatile wd_stage = "start";

static void *watchdog(void *arg)
{
	struct timespec t = deadline_in(CLOCK_REALTIME, WATCHDOG_MS);
	pthread_mutex_lock(&wd_m);
	int r = 0;
	while (!wd_done && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&wd_c, &wd_m, &t);
	if (!wd_done) {
		printf("FAIL - readers meet: no progress within %d ms at %s (deadlock)\n",
		       WATCHDOG_MS, wd_stage);
		printf("# rwlock %s\n", rw_backend());
		fflush(stdout);
		_exit(1);
	}
	pthread_mutex_unlock(&wd_m);
	return NULL;
}

/* Writers loop while writers_go is set.  Pausing them (see pause_writers)
 * lets a round start on a quiet lock, which under BRAVO comes back biased,
 * so the first reader holds through the table as the pattern needs. */
static void *writer(void *arg)
{
	for (;;) {
		/* seq_cst: pairs with pause_writers() (store go, load inside). */
		atomic_fetch_add(&writers_inside, 1);
		if (!atomic_load(&writers_go)) {
			atomic_fetch_sub(&writers_inside, 1);
			if (atomic_load(&stop_writers))
				return NULL;
			usleep(100);
			continue;
		}
		pthread_rwlock_wrlock(lock);
		atomic_fetch_add(&writes, 1);
		pthread_rwlock_unlock(lock);
		atomic_fetch_sub(&writers_inside, 1);
	}
}

static void pause_writers(void)
{
	atomic_store(&writers_go, 0);
	while (atomic_load(&writers_inside) != 0)
		sched_yield();
}

static int read_lock(int how)
{
	if (how == 0)
		return pthread_rwlock_rdlock(lock);
	if (how == 1) {
		struct timespec t = deadline_in(CLOCK_MONOTONIC, WATCHDOG_MS * 2);
		return pthread_rwlock_clockrdlock(lock, CLOCK_MONOTONIC, &t);
	}
	int r;
	while ((r = pthread_rwlock_tryrdlock(lock)) == EBUSY)
		sched_yield();
	return r;
}

/* The second reader: read-lock, tell the first, unlock. */
static void *second_reader(void *arg)
{
	int r = read_lock((int)(intptr_t)arg);
	pthread_mutex_lock(&m);
	second_result = r;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	if (r == 0)
		pthread_rwlock_unlock(lock);
	return NULL;
}

static void meet(pthread_rwlock_t *l, const char *what)
{
	static const char *const how[] = { "rdlock", "clockrdlock", "tryrdlock" };
	char name[200];
	pthread_t w[WRITERS];
	lock = l;
	atomic_store(&stop_writers, 0);
	atomic_store(&writers_go, 0);
	for (int i = 0; i < WRITERS; i++)
		pthread_create(&w[i], NULL, writer, NULL);
	int ok = 0, bad = -1, bad_how = 0;
	for (int round = 0; round < ROUNDS; round++) {
		wd_stage = what;
		/* A quiet lock first: a few read locks alone (under BRAVO the
		 * slow ones set the bias again once the writers' inhibition is
		 * over), then the first reader takes it and writers arrive. */
		pause_writers();
		usleep(1000);
		int r = 0;
		for (int i = 0; i < 40 && r == 0; i++)
			if ((r = pthread_rwlock_rdlock(l)) == 0)
				pthread_rwlock_unlock(l);
		if (r == 0)
			r = pthread_rwlock_rdlock(l);
		if (r != 0) {
			bad = r;
			break;
		}
		atomic_store(&writers_go, 1);
		usleep(round % 2 ? 2000 : 100); /* writers reach the lock */
		pthread_t t;
		second_result = -1;
		pthread_create(&t, NULL, second_reader, (void *)(intptr_t)(round % 3));
		pthread_mutex_lock(&m);
		while (second_result == -1)
			pthread_cond_wait(&c, &m); /* holding the read lock */
		r = second_result;
		pthread_mutex_unlock(&m);
		pthread_rwlock_unlock(l);
		pthread_join(t, NULL);
		if (r != 0) {
			bad = r;
			bad_how = round % 3;
			break;
		}
		ok++;
	}
	atomic_store(&stop_writers, 1);
	atomic_store(&writers_go, 0);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	snprintf(name, sizeof name,
	         "%s: %d rounds of a read holder waiting for a second reader, writers arriving",
	         what, ROUNDS);
	if (bad == -1)
		CHECK_EQ(ok, ROUNDS, name);
	else
		check_report(0, name, "round %d: %s -> %d (%s)", ok, how[bad_how], bad, strerror(bad));
}

int main(void)
{
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog, NULL);

	pthread_rwlock_t d = PTHREAD_RWLOCK_INITIALIZER;
	meet(&d, "PTHREAD_RWLOCK_INITIALIZER");

	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlock_t l;
	pthread_rwlock_init(&l, &a);
	meet(&l, "default kind");
	pthread_rwlock_destroy(&l);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NP);
	pthread_rwlock_init(&l, &a);
	meet(&l, "PREFER_WRITER_NP (reader preference in glibc)");
	pthread_rwlock_destroy(&l);
	pthread_rwlockattr_destroy(&a);
	CHECK(atomic_load(&writes) > 0, "writers got in between the rounds");

	pthread_mutex_lock(&wd_m);
	wd_done = 1;
	pthread_cond_signal(&wd_c);
	pthread_mutex_unlock(&wd_m);
	pthread_join(wd, NULL);
	return rw_finish();
}
