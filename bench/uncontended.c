/*
 * uncontended.c - the cost of an uncontended pthread_mutex_lock + unlock
 * pair (plain pthreads; run it under LD_PRELOAD).
 *
 *   uncontended [PAIRS] [--json] [--idle-thread]
 *
 * One thread locks and unlocks one mutex PAIRS times (default 10^7) and
 * prints ns per pair.  --idle-thread first starts a second thread that
 * only sleeps, so the process is multithreaded (glibc and lockswap both
 * take a shortcut while a process has one thread).  For a deterministic figure run it under callgrind
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
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	long pairs = 10000000;
	int json = 0, idle_thread = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--idle-thread") == 0)
			idle_thread = 1;
		else if ((pairs = atol(argv[i])) <= 0) {
			fprintf(stderr, "uncontended: PAIRS must be a positive number, not '%s'\n", argv[i]);
			return 2;
		}
	}
	pthread_t t;
	if (idle_thread && pthread_create(&t, NULL, idle, NULL) != 0) {
		fprintf(stderr, "uncontended: cannot start the idle thread\n");
		return 1;
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
		printf("{\"bench\":\"uncontended\",\"pairs\":%ld,\"threads\":%d,\"ns_per_pair\":%.3f}\n",
		       pairs, 1 + idle_thread, ns);
	else
		printf("uncontended: %ld lock+unlock pairs, %s, %.2f ns per pair\n", pairs,
		       idle_thread ? "one idle thread beside" : "single-threaded process", ns);
	return 0;
}
