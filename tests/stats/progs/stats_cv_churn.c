/*
 * stats_cv_churn.c - N hand-shakes, each through a condvar that lives on
 * the stack of one function and is destroyed after it (LevelDB's queued
 * writers do this), then one more destroyed condvar at another site
 * (argument N, default 2000).  The statistics JSON should hold one record
 * for the N condvars of handshake() (tests/stats run_stats.py test_fold),
 * with every signal of them counted, and the lone one apart.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "../../preload/check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t posted = PTHREAD_COND_INITIALIZER;
static pthread_cond_t *current; /* the hand-shake's condvar, under m */
static int *current_done;
static long served;

static void *worker(void *arg)
{
	long n = *(long *)arg;
	pthread_mutex_lock(&m);
	for (long i = 0; i < n; i++) {
		while (!current)
			pthread_cond_wait(&posted, &m);
		*current_done = 1;
		pthread_cond_signal(current);
		current = NULL;
		served++;
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

static __attribute__((noinline)) void handshake(void)
{
	pthread_cond_t cv;
	int done = 0;
	pthread_cond_init(&cv, NULL);
	pthread_mutex_lock(&m);
	current = &cv;
	current_done = &done;
	pthread_cond_signal(&posted);
	while (!done)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	pthread_cond_destroy(&cv);
}

static __attribute__((noinline)) void lone(void)
{
	pthread_cond_t cv;
	pthread_cond_init(&cv, NULL);
	pthread_mutex_lock(&m);
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	pthread_cond_destroy(&cv);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	pthread_t t;
	CHECK_EQ(pthread_create(&t, NULL, worker, &n), 0, "worker started");
	for (long i = 0; i < n; i++)
		handshake();
	CHECK_EQ(pthread_join(t, NULL), 0, "worker joined");
	lone();
	CHECK_EQ(served, n, "every hand-shake served");
	return check_finish();
}
