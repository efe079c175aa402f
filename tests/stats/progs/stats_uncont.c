/*
 * stats_uncont.c - N uncontended lock/unlock pairs on one mutex in one
 * thread (argument N, default 100000; a second argument `rdlock` or
 * `wrlock`: pairs on one rwlock instead): the program docs/stats.md runs
 * under callgrind to count the instructions a pair costs with statistics
 * off, summary and full.  On its own it prints one "ok" line.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../preload/check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile long n_done;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *what = argc > 2 ? argv[2] : "mutex";
	if (strcmp(what, "rdlock") == 0) {
		for (long i = 0; i < n; i++) {
			pthread_rwlock_rdlock(&rw);
			n_done++;
			pthread_rwlock_unlock(&rw);
		}
	} else if (strcmp(what, "wrlock") == 0) {
		for (long i = 0; i < n; i++) {
			pthread_rwlock_wrlock(&rw);
			n_done++;
			pthread_rwlock_unlock(&rw);
		}
	} else {
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			n_done++;
			pthread_mutex_unlock(&m);
		}
	}
	CHECK_EQ(n_done, n, "every pair ran");
	return check_finish();
}
