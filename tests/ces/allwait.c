/*
 * allwait.c - a process whose threads all wait for mutexes (a deadlock:
 * two threads take two mutexes in opposite orders, the main thread waits
 * for one of them) must still end on SIGTERM or SIGINT, or run their
 * handler, as under glibc.  tests/ces/run.sh starts it, waits for
 * "ready", sends the signal and checks how it ended.
 *
 *   allwait default   no handler: the signal's default action
 *   allwait handler   a SIGTERM/SIGINT handler that exits with status 7
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *ab(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&b);
	return NULL;
}

static void *ba(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&a);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	static const char msg[] = "handled\n";
	if (write(1, msg, sizeof msg - 1) < 0)
		_exit(8);
	_exit(7);
}

int main(int argc, char **argv)
{
	bool handled = argc > 1 && strcmp(argv[1], "handler") == 0;
	/* A shell starts background jobs with SIGINT ignored: set both. */
	signal(SIGTERM, handled ? on_signal : SIG_DFL);
	signal(SIGINT, handled ? on_signal : SIG_DFL);
	pthread_barrier_init(&both, NULL, 2);
	pthread_t t1, t2;
	pthread_create(&t1, NULL, ab, NULL);
	pthread_create(&t2, NULL, ba, NULL);
	usleep(100000);
	printf("ready\n");
	fflush(stdout);
	pthread_mutex_lock(&a); /* the third waiter: every thread now waits */
	return 1;
}
