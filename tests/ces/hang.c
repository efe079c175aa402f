/*
 * hang.c - a delegated section that waits, by a means lockswap cannot see
 * (a raw futex), for its releaser's own later progress: the one hang
 * delegation keeps (docs/delegation.md).  Under glibc's locks the section
 * waits on its own thread while the releaser goes on past its unlock and
 * sets the flag: the program ends.  Under ces the releaser runs the
 * section and can never set the flag: the program hangs, and the hang
 * watchdog (on at 1000 ms under ces) must say so on stderr, once, naming
 * the lock, the thread that waits for it and the holder.  tests/ces/run.sh
 * runs it under both and reads stderr.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc.h"

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned flag;
static _Atomic pid_t waiting[2];

/* Waits for the flag in its section, on a raw futex. */
static void *waits_for_flag(void *arg)
{
	(void)arg;
	atomic_store(&waiting[0], (pid_t)syscall(SYS_gettid));
	pthread_mutex_lock(&hot);
	while (!atomic_load(&flag))
		syscall(SYS_futex, &flag, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	pthread_mutex_unlock(&hot);
	return NULL;
}

/* Queued behind it: the thread whose wait the watchdog sees. */
static void *queued_behind(void *arg)
{
	(void)arg;
	atomic_store(&waiting[1], (pid_t)syscall(SYS_gettid));
	pthread_mutex_lock(&hot);
	pthread_mutex_unlock(&hot);
	return NULL;
}

static void until_sleeping(int i)
{
	while (!atomic_load(&waiting[i]))
		usleep(500);
	wait_sleeping(atomic_load(&waiting[i]));
}

int main(void)
{
	pthread_t a, b;
	pthread_mutex_lock(&hot);
	pthread_create(&a, NULL, waits_for_flag, NULL);
	until_sleeping(0);
	pthread_create(&b, NULL, queued_behind, NULL);
	until_sleeping(1);
	pthread_mutex_unlock(&hot); /* under ces: runs a's section here */
	atomic_store(&flag, 1);
	syscall(SYS_futex, &flag, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("hang: ended\n");
	return 0;
}
