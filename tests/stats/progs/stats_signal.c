/*
 * stats_signal.c - a program that keeps running while its statistics are
 * dumped on a signal (tests/stats/run.sh sends LOCKSWAP_STATS_SIGNAL and
 * reads the file while the program runs).  Arguments: the longest run time
 * in ms (default 200), then "stdin" to end sooner, when standard input
 * reaches its end (the test closes the pipe once it has read the dump).
 * Two workers and the main thread take sig_lock until then.  On its own it
 * prints "ok" lines.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../preload/check.h"

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long taken;

static void *worker(void *arg)
{
	struct timespec pause = { 0, 20000 };
	while (!stop) {
		pthread_mutex_lock(&sig_lock);
		taken++;
		pthread_mutex_unlock(&sig_lock);
		nanosleep(&pause, NULL);
	}
	return arg;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 200;
	bool until_eof = argc > 2 && !strcmp(argv[2], "stdin");
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	struct timespec end = deadline_in(CLOCK_MONOTONIC, ms), now, tick = { 0, 1000000 };
	do {
		pthread_mutex_lock(&sig_lock);
		taken++;
		pthread_mutex_unlock(&sig_lock);
		nanosleep(&tick, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* The pipe's end (POLLHUP, or readable at EOF) ends the run. */
		struct pollfd in = { .fd = 0, .events = POLLIN };
		if (until_eof && poll(&in, 1, 0) > 0)
			break;
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(taken > 0, "the lock was taken while running");
	return check_finish();
}
