/*
 * rwstress.c - the rwlock stress harness (run under LD_PRELOAD for each
 * rwlock backend by tests/stress/run.sh; plain pthreads).
 *
 * For a fixed time, with many more threads than cores, every thread takes
 * one of K rwlocks (reader preference, glibc's default, and writer
 * preference, PREFER_WRITER_NONRECURSIVE_NP) at random, for reading or
 * writing, through every entry point: rdlock, tryrdlock, timedrdlock,
 * clockrdlock (and, on reader-preference locks, a second, recursive
 * rdlock), wrlock, trywrlock, timedwrlock, clockwrlock, with deadlines of
 * 200 us retried.  Inside, a writer finds nobody else inside and moves
 * the guarded value and its shadow copy apart and back together; a
 * reader finds no writer inside and the two equal.  Every write is also
 * counted outside the lock, so a lost update shows as value != writes.
 * Any mismatch is reported and the exit status is 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../deadline.h"

#define NRW 4

static struct {
	pthread_rwlock_t rw;
	int prefer_writer;
	long value, shadow;          /* written under the write lock only */
	atomic_int readers, writers; /* inside, checked by everyone */
	atomic_long writes, reads;
} rws[NRW];

static atomic_int stop;
static atomic_long violations;

/* One mode's entry points: plain, try, timed (CLOCK_REALTIME), clock. */
struct verbs {
	int (*lock)(pthread_rwlock_t *);
	int (*trylock)(pthread_rwlock_t *);
	int (*timedlock)(pthread_rwlock_t *, const struct timespec *);
	int (*clocklock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
};
static const struct verbs rd = { pthread_rwlock_rdlock, pthread_rwlock_tryrdlock,
	                         pthread_rwlock_timedrdlock, pthread_rwlock_clockrdlock };
static const struct verbs wr = { pthread_rwlock_wrlock, pthread_rwlock_trywrlock,
	                         pthread_rwlock_timedwrlock, pthread_rwlock_clockwrlock };

/* Take l through entry point `how` of v, retrying tries and deadlines. */
static int take(const struct verbs *v, pthread_rwlock_t *l, unsigned how)
{
	struct timespec t;
	int r;
	switch (how % 4) {
	case 0: return v->lock(l);
	case 1:
		while ((r = v->trylock(l)) == EBUSY)
			sched_yield();
		return r;
	case 2:
		do {
			t = deadline_in_us(CLOCK_REALTIME, 200);
		} while ((r = v->timedlock(l, &t)) == ETIMEDOUT);
		return r;
	default:
		do {
			t = deadline_in_us(CLOCK_MONOTONIC, 200);
		} while ((r = v->clocklock(l, CLOCK_MONOTONIC, &t)) == ETIMEDOUT);
		return r;
	}
}

static void write_section(int k, unsigned seed)
{
	if (atomic_fetch_add(&rws[k].writers, 1) != 0 || atomic_load(&rws[k].readers) != 0)
		atomic_fetch_add(&violations, 1);
	rws[k].value++;
	for (volatile int spin = 0; spin < (int)(seed % 40); spin++)
		;
	rws[k].shadow++;
	atomic_fetch_sub(&rws[k].writers, 1);
}

static void read_section(int k, unsigned seed)
{
	atomic_fetch_add(&rws[k].readers, 1);
	if (atomic_load(&rws[k].writers) != 0)
		atomic_fetch_add(&violations, 1);
	long v = rws[k].value;
	for (volatile int spin = 0; spin < (int)(seed % 40); spin++)
		;
	if (rws[k].shadow != v)
		atomic_fetch_add(&violations, 1);
	atomic_fetch_sub(&rws[k].readers, 1);
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		seed = seed * 1103515245u + 12345u;
		int k = (int)((seed >> 16) % NRW);
		pthread_rwlock_t *l = &rws[k].rw;
		if ((seed >> 12) % 2 == 0) {
			if (take(&wr, l, seed >> 8) != 0)
				abort();
			write_section(k, seed);
			pthread_rwlock_unlock(l);
			atomic_fetch_add_explicit(&rws[k].writes, 1, memory_order_relaxed);
		} else {
			if (take(&rd, l, seed >> 8) != 0)
				abort();
			/* Recursive reads: allowed with writers waiting only under
			 * reader preference. */
			int again = !rws[k].prefer_writer && (seed >> 20) % 8 == 0;
			if (again && pthread_rwlock_rdlock(l) != 0)
				abort();
			read_section(k, seed);
			if (again)
				pthread_rwlock_unlock(l);
			pthread_rwlock_unlock(l);
			atomic_fetch_add_explicit(&rws[k].reads, 1, memory_order_relaxed);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 16;
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	if (threads < 2 || seconds <= 0) {
		fprintf(stderr, "usage: rwstress [THREADS>=2] [SECONDS]\n");
		return 2;
	}
	for (int k = 0; k < NRW; k++) {
		pthread_rwlockattr_t a;
		pthread_rwlockattr_init(&a);
		rws[k].prefer_writer = k % 2;
		if (rws[k].prefer_writer)
			pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&rws[k].rw, &a);
		pthread_rwlockattr_destroy(&a);
	}
	pthread_t *t = calloc((size_t)threads, sizeof *t);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	usleep((useconds_t)(seconds * 1e6));
	atomic_store(&stop, 1);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	int bad = 0;
	long writes = 0, reads = 0;
	for (int k = 0; k < NRW; k++) {
		writes += atomic_load(&rws[k].writes);
		reads += atomic_load(&rws[k].reads);
		if (rws[k].value != atomic_load(&rws[k].writes) || rws[k].shadow != rws[k].value) {
			printf("FAIL - rwlock %d: value %ld, shadow %ld, writes %ld (lost updates)\n", k,
			       rws[k].value, rws[k].shadow, atomic_load(&rws[k].writes));
			bad = 1;
		}
		if (pthread_rwlock_destroy(&rws[k].rw) != 0) {
			printf("FAIL - rwlock %d still locked at the end\n", k);
			bad = 1;
		}
	}
	if (atomic_load(&violations) != 0) {
		printf("FAIL - %ld sections saw a writer beside another holder or a torn value\n",
		       atomic_load(&violations));
		bad = 1;
	}
	if (writes == 0 || reads == 0) {
		printf("FAIL - no progress (writes %ld, reads %ld)\n", writes, reads);
		bad = 1;
	}
	if (!bad)
		printf("ok - %d threads, %.1fs: %ld writes and %ld reads, none lost or overlapped\n",
		       threads, seconds, writes, reads);
	free(t);
	return bad;
}
