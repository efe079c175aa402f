/*
 * uncontended_rw.c - PAIRS uncontended rdlock+unlock or wrlock+unlock pairs
 * on one pthread_rwlock_t, for callgrind under LD_PRELOAD (docs/hacking.md,
 * "Fast-path instruction counts").  A plain pthreads program, never linked
 * to lockswap:
 *   gcc -O2 -o /tmp/uncontended_rw docs/tools/uncontended_rw.c -lpthread
 *   uncontended_rw PAIRS rd|wr [--idle-thread]
 * --idle-thread first starts a second thread that only waits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long pairs = argc > 2 ? atol(argv[1]) : 0;
	if (pairs <= 0 || (strcmp(argv[2], "rd") != 0 && strcmp(argv[2], "wr") != 0)) {
		fprintf(stderr, "usage: uncontended_rw PAIRS rd|wr [--idle-thread]\n");
		return 2;
	}
	int read = strcmp(argv[2], "rd") == 0;
	pthread_t t;
	if (argc > 3 && strcmp(argv[3], "--idle-thread") == 0 &&
	    pthread_create(&t, NULL, idle, NULL) != 0) {
		fprintf(stderr, "uncontended_rw: cannot start the idle thread\n");
		return 1;
	}
	for (long i = 0; i < pairs; i++) {
		if (read)
			pthread_rwlock_rdlock(&l);
		else
			pthread_rwlock_wrlock(&l);
		pthread_rwlock_unlock(&l);
	}
	return 0;
}
