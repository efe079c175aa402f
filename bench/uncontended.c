/*
 * uncontended.c - the cost of an uncontended pthread_mutex_lock + unlock
 * pair (plain pthreads; run it under LD_PRELOAD).
 *
 *   uncontended [PAIRS] [--json]
 *
 * One thread locks and unlocks one mutex PAIRS times (default 10^7) and
 * prints ns per pair.  For a deterministic figure run it under callgrind
 * twice with different PAIRS: (Ir(N2) - Ir(N1)) / (N2 - N1) is the
 * instruction count of one pair, start-up cancelled out
 * (scripts/measure-uncontended.sh does exactly that).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	long pairs = 10000000;
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if ((pairs = atol(argv[i])) <= 0) {
			fprintf(stderr, "uncontended: PAIRS must be a positive number, not '%s'\n", argv[i]);
			return 2;
		}
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < pairs; i++) {
		pthread_mutex_lock(&m);
		__asm__ __volatile__("" ::: "memory");
		pthread_mutex_unlock(&m);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)pairs;
	if (json)
		printf("{\"bench\":\"uncontended\",\"pairs\":%ld,\"ns_per_pair\":%.3f}\n", pairs, ns);
	else
		printf("uncontended: %ld lock+unlock pairs, %.2f ns per pair\n", pairs, ns);
	return 0;
}
