/*
 * nested.c - many mutexes nested two deep: the lock-order check's worst
 * case (issue 46, docs/deadlock.md "Cost").  A measurement probe, not a
 * benchmark of the lock algorithms.
 *
 *   nested [--threads T] [--locks K] [--seconds S] [--json]
 *
 * T threads (default 8) each pick two different mutexes of K (default
 * 4096) at random, lock the one at the lower address and then the other
 * (a consistent order: no cycle, so nothing is reported), bump a counter
 * under both, and unlock.  Each of the K*(K-1)/2 pairs is a lock order of
 * its own, so the graph sees new edges until it is full.  Prints pairs per
 * second (one JSON object with --json: {"pairs_per_sec": ...}).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t *locks;
static long nlocks = 4096;
static atomic_bool stop;
static atomic_long total;

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *worker(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
	long done = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long a = (long)(next(&seed) % (uint64_t)nlocks), b = (long)(next(&seed) % (uint64_t)nlocks);
		if (a == b)
			continue;
		pthread_mutex_t *lo = &locks[a < b ? a : b], *hi = &locks[a < b ? b : a];
		pthread_mutex_lock(lo);
		pthread_mutex_lock(hi);
		done++;
		pthread_mutex_unlock(hi);
		pthread_mutex_unlock(lo);
	}
	atomic_fetch_add(&total, done);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 8, json = 0;
	double seconds = 1.0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--locks") && i + 1 < argc)
			nlocks = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else {
			fprintf(stderr, "usage: nested [--threads T] [--locks K] [--seconds S] [--json]\n");
			return 2;
		}
	}
	if (threads < 1 || nlocks < 2 || seconds <= 0) {
		fprintf(stderr, "nested: need --threads >= 1, --locks >= 2, --seconds > 0\n");
		return 2;
	}
	locks = calloc((size_t)nlocks, sizeof *locks);
	pthread_t *t = calloc((size_t)threads, sizeof *t);
	if (!locks || !t)
		return 1;
	for (long i = 0; i < nlocks; i++)
		pthread_mutex_init(&locks[i], NULL);
	struct timespec t0, t1, d = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	nanosleep(&d, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double rate = (double)atomic_load(&total) / s;
	if (json)
		printf("{\"pairs_per_sec\": %.1f, \"threads\": %d, \"locks\": %ld}\n", rate, threads, nlocks);
	else
		printf("nested: %d threads, %ld locks: %.0f pairs/s\n", threads, nlocks, rate);
	return 0;
}
