/*
 * selfdead.c - a single-threaded program that escapes a self-deadlock on
 * a normal mutex with alarm(): its SIGALRM handler runs while the thread
 * waits for itself, and siglongjmps out, as under glibc.  Afterwards the
 * mutex is still its own, and waiting works again.  Run under futex and
 * under ces.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include "../preload/check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static sigjmp_buf escape;
static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
	siglongjmp(escape, 1);
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	pthread_mutex_lock(&m);
	for (int round = 0; round < 2; round++) {
		if (sigsetjmp(escape, 1) == 0) {
			alarm(1);
			pthread_mutex_lock(&m); /* waits for itself */
			CHECK(0, "self-deadlock: the second lock cannot succeed");
		}
	}
	CHECK_EQ(alarms, 2, "self-deadlock: alarm()'s handler ran while the thread waited, twice");
	CHECK(pthread_mutex_trylock(&m) == EBUSY, "self-deadlock: the mutex is still held");
	CHECK(pthread_mutex_unlock(&m) == 0, "self-deadlock: and can be unlocked");
	CHECK(pthread_mutex_lock(&m) == 0 && pthread_mutex_unlock(&m) == 0,
	      "self-deadlock: the mutex works again afterwards");
	return check_finish();
}
