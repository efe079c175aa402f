/*
 * stats_fork.c - statistics under fork: the child's numbers are its own.
 * Checked by tests/stats/run.sh (LOCKSWAP_STATS_FILE without %p: the
 * parent writes FILE, the child FILE.<pid>):
 *   parent: fork_lock 1000 before the fork + 500 after = 1500
 *   child:  fork_lock 300, child_lock 200 (and nothing from before the fork)
 * On its own it checks that both sides ran and prints "ok" lines.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../preload/check.h"

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;

static void take(pthread_mutex_t *m, int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(m);
		pthread_mutex_unlock(m);
	}
}

static void *spin(void *arg)
{
	take(&fork_lock, 100); /* a parent thread the child does not have */
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	pthread_join(t, NULL);
	take(&fork_lock, 900);
	pid_t pid = fork();
	if (pid == 0) {
		take(&fork_lock, 300);
		take(&child_lock, 200);
		exit(0); /* exit, not _exit: the child writes its statistics */
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "the child ran");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exited normally");
	take(&fork_lock, 500);
	return check_finish();
}
