/*
 * stress.c - the stress harness every backend plugs into (run under
 * LD_PRELOAD for each backend by tests/stress/run.sh; plain pthreads).
 *
 * For a fixed time, with many more threads than cores, it mixes:
 *   - counters: K mutexes of every kind, each guarding a plain counter,
 *     taken with lock / trylock / timedlock / clocklock (recursive ones
 *     nested twice); every acquisition is also counted per thread, so a
 *     lost update shows as counter != sum of acquisitions;
 *   - queues: bounded producer/consumer queues through two condvars
 *     (signal, broadcast, timedwait, clockwait), carrying numbered items;
 *     every item must be consumed exactly once (count and checksum).
 * Any mismatch is reported and the exit status is 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../deadline.h"

#define NLOCKS 6
#define QCAP 4

static const int lock_kinds[NLOCKS] = {
	PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
	PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_ADAPTIVE_NP, PTHREAD_MUTEX_NORMAL,
};
static struct {
	pthread_mutex_t m;
	long counter;
	atomic_long acquired;
} locks[NLOCKS];

static struct {
	pthread_mutex_t m;
	pthread_cond_t not_full, not_empty;
	long buf[QCAP];
	int head, count;
	long produced, consumed, produced_sum, consumed_sum;
} q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };

static atomic_int stop;
static atomic_long next_item = 1;

static int acquire(pthread_mutex_t *m, unsigned how)
{
	struct timespec t;
	int r;
	switch (how % 4) {
	case 0: return pthread_mutex_lock(m);
	case 1:
		while ((r = pthread_mutex_trylock(m)) == EBUSY)
			sched_yield();
		return r;
	case 2:
		do {
			t = deadline_in_us(CLOCK_REALTIME, 200);
		} while ((r = pthread_mutex_timedlock(m, &t)) == ETIMEDOUT);
		return r;
	default:
		do {
			t = deadline_in_us(CLOCK_MONOTONIC, 200);
		} while ((r = pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &t)) == ETIMEDOUT);
		return r;
	}
}

static void *counter_worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		seed = seed * 1103515245u + 12345u;
		int k = (int)((seed >> 16) % NLOCKS);
		if (acquire(&locks[k].m, seed >> 8) != 0)
			abort();
		if (lock_kinds[k] == PTHREAD_MUTEX_RECURSIVE)
			pthread_mutex_lock(&locks[k].m);
		long v = locks[k].counter;
		for (volatile int spin = 0; spin < (int)(seed % 50); spin++)
			;
		locks[k].counter = v + 1;
		if (lock_kinds[k] == PTHREAD_MUTEX_RECURSIVE)
			pthread_mutex_unlock(&locks[k].m);
		pthread_mutex_unlock(&locks[k].m);
		atomic_fetch_add_explicit(&locks[k].acquired, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *producer(void *arg)
{
	unsigned n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		pthread_mutex_lock(&q.m);
		while (q.count == QCAP && !atomic_load(&stop)) {
			struct timespec t = deadline_in_us(CLOCK_REALTIME, 2000);
			pthread_cond_timedwait(&q.not_full, &q.m, &t);
		}
		/* stop is read under q.m: a consumer that left (queue empty,
		 * stop set) did so in an earlier critical section, so no item
		 * can be added after the last consumer is gone. */
		if (q.count < QCAP && !atomic_load(&stop)) {
			long item = atomic_fetch_add(&next_item, 1);
			q.buf[(q.head + q.count++) % QCAP] = item;
			q.produced++;
			q.produced_sum += item;
			if (++n % 16 == 0)
				pthread_cond_broadcast(&q.not_empty);
			else
				pthread_cond_signal(&q.not_empty);
		}
		pthread_mutex_unlock(&q.m);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&q.m);
		while (q.count == 0 && !atomic_load(&stop)) {
			struct timespec t = deadline_in_us(CLOCK_MONOTONIC, 2000);
			pthread_cond_clockwait(&q.not_empty, &q.m, CLOCK_MONOTONIC, &t);
		}
		if (q.count == 0) { /* stopped and drained */
			pthread_mutex_unlock(&q.m);
			return NULL;
		}
		long item = q.buf[q.head];
		q.head = (q.head + 1) % QCAP;
		q.count--;
		q.consumed++;
		q.consumed_sum += item;
		pthread_cond_signal(&q.not_full);
		pthread_mutex_unlock(&q.m);
	}
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 16;
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	if (threads < 4 || seconds <= 0) {
		fprintf(stderr, "usage: stress [THREADS>=4] [SECONDS]\n");
		return 2;
	}
	for (int k = 0; k < NLOCKS; k++) {
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, lock_kinds[k]);
		pthread_mutex_init(&locks[k].m, &a);
		pthread_mutexattr_destroy(&a);
	}
	int nq = threads / 4 > 0 ? threads / 4 : 1; /* producers = consumers = nq */
	int nc = threads - 2 * nq;
	pthread_t *t = calloc((size_t)threads, sizeof *t);
	for (int i = 0; i < nc; i++)
		pthread_create(&t[i], NULL, counter_worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nq; i++) {
		pthread_create(&t[nc + i], NULL, producer, NULL);
		pthread_create(&t[nc + nq + i], NULL, consumer, NULL);
	}
	usleep((useconds_t)(seconds * 1e6));
	atomic_store(&stop, 1);
	pthread_mutex_lock(&q.m);
	pthread_cond_broadcast(&q.not_empty);
	pthread_cond_broadcast(&q.not_full);
	pthread_mutex_unlock(&q.m);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	int bad = 0;
	long total = 0;
	for (int k = 0; k < NLOCKS; k++) {
		total += locks[k].counter;
		if (locks[k].counter != atomic_load(&locks[k].acquired)) {
			printf("FAIL - lock %d (kind %d): counter %ld != acquisitions %ld (lost updates)\n", k,
			       lock_kinds[k], locks[k].counter, atomic_load(&locks[k].acquired));
			bad = 1;
		}
		if (pthread_mutex_destroy(&locks[k].m) != 0) {
			printf("FAIL - lock %d still locked at the end\n", k);
			bad = 1;
		}
	}
	if (q.produced != q.consumed || q.produced_sum != q.consumed_sum) {
		printf("FAIL - queue: produced %ld (sum %ld) consumed %ld (sum %ld): lost or duplicated items\n",
		       q.produced, q.produced_sum, q.consumed, q.consumed_sum);
		bad = 1;
	}
	if (!bad)
		printf("ok - %d threads, %.1fs: %ld lock acquisitions and %ld queue items, none lost\n", threads,
		       seconds, total, q.consumed);
	if (total == 0 || q.consumed == 0) {
		printf("FAIL - no progress (acquisitions %ld, items %ld)\n", total, q.consumed);
		bad = 1;
	}
	free(t);
	return bad;
}
