/*
 * stats_prom.c - mutexes first used at nine call sites of this program,
 * locked by two threads for a while, plus an rwlock (read every round,
 * written every 16th) and a condvar (a signal every round, a broadcast and
 * a timed wait with a past deadline every 64th): the load of tests/arms
 * (the Prometheus export).
 *
 *   stats_prom SECONDS [fork]
 *
 * Prints "pid N".  With "fork", after the threads are done it forks a
 * child that locks from its main thread for SECONDS and leaves with
 * _exit (so no exit dump: whatever file it has comes from its own
 * writer thread), waits for it and prints "child N".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t site_lock[8] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static double seconds;

/* One function per site, each adding its own amount, so that no two are
 * identical and the compiler cannot fold them into one call site. */
#define SITE(i)                                             \
	static __attribute__((noinline)) void site##i(void) \
	{                                                   \
		pthread_mutex_lock(&site_lock[i]);          \
		counter += i + 1;                           \
		pthread_mutex_unlock(&site_lock[i]);        \
	}
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
static void (*const sites[8])(void) = { site0, site1, site2, site3, site4, site5, site6, site7 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Site i is used i + 1 times per round, so the sites differ in
 * acquisitions; the hot mutex is shared by both threads and contended. */
static void round_of_work(unsigned long n)
{
	for (int i = 0; i < 8; i++)
		for (int k = 0; k <= i; k++)
			sites[i]();
	pthread_mutex_lock(&hot);
	for (volatile int spin = 0; spin < 50; spin++)
		;
	counter += n;
	pthread_mutex_unlock(&hot);
	if (n % 16 == 0) {
		pthread_rwlock_wrlock(&rw);
		counter++;
	} else {
		pthread_rwlock_rdlock(&rw);
	}
	pthread_rwlock_unlock(&rw);
	pthread_cond_signal(&cv);
	if (n % 64 == 0) {
		struct timespec past = { 0, 0 }; /* times out at once: no waiter is ever left */
		pthread_cond_broadcast(&cv);
		pthread_mutex_lock(&cv_lock);
		pthread_cond_timedwait(&cv, &cv_lock, &past);
		pthread_mutex_unlock(&cv_lock);
	}
}

static void work_for(double secs)
{
	double end = now() + secs;
	for (unsigned long n = 0;; n++) {
		round_of_work(n);
		if ((n & 255) == 0 && now() >= end)
			break;
	}
}

static void *worker(void *arg)
{
	work_for(seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: stats_prom SECONDS [fork]\n");
		return 2;
	}
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (argc > 2 && strcmp(argv[2], "fork") == 0) {
		pid_t c = fork();
		if (c == 0) {
			work_for(seconds);
			_exit(0);
		}
		int status = 0;
		waitpid(c, &status, 0);
		printf("child %d\n", (int)c);
	}
	return 0;
}
