/*
 * single.c - the single-threaded shortcut (interpose/start/gate.h) carries lock
 * state correctly into the multithreaded phase.
 *
 *   single [PLUGIN.so]      (default: libplugin.so beside the program)
 *
 * While a process has one thread, lockswap takes and releases plain
 * mutexes with plain stores.  Each scenario below runs in a fork child of
 * the (still single-threaded) test process, so it starts in that phase,
 * locks there, and then gains a second thread:
 *   - a mutex held across pthread_create is held for the new thread, which
 *     blocks on it and gets it once released;
 *   - a condvar wait right after pthread_create, on a mutex locked before;
 *   - the same with the thread started by a dlopen()ed library;
 *   - mutual exclusion afterwards on mutexes used in both phases;
 *   - fork in the single-threaded phase with a mutex held, and fork in the
 *     multithreaded phase with a mutex held: the child unlocks and uses it,
 *     then starts threads of its own.
 * Also: glibc's flag behaves as the gate expects (cleared by
 * pthread_create, not set again in a fork child of a threaded parent).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static long counter;
static _Atomic int tried;
static int (*plugin_spawn)(pthread_t *, void *(*)(void *), void *);

/* Runs fn in a fork child; the child's checks print to the same stdout. */
static void in_child(const char *what, void (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(check_failed ? 1 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, what);
}

static void *blocked_on_held(void *arg)
{
	CHECK_ERR(pthread_mutex_trylock(&held), EBUSY,
	          "new thread: a mutex locked before pthread_create is held");
	atomic_store(&tried, 1);
	pthread_mutex_lock(&held); /* blocks until main releases it */
	pthread_mutex_unlock(&held);
	return arg;
}

static void *signal_ready(void *arg)
{
	pthread_mutex_lock(&a);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&a);
	return arg;
}

static void *count(void *arg)
{
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(&counter_lock);
		counter++;
		pthread_mutex_unlock(&counter_lock);
	}
	return arg;
}

/* A second thread contends on counter_lock with this one. */
static void exclusion_now(const char *what)
{
	pthread_t t;
	counter = 0;
	pthread_create(&t, NULL, count, NULL);
	count(NULL);
	pthread_join(t, NULL);
	CHECK_EQ(counter, 200000, what);
}

static void held_across_create(void)
{
	CHECK(__libc_single_threaded, "child starts single-threaded");
	pthread_mutex_lock(&held);
	pthread_mutex_lock(&counter_lock); /* used in both phases */
	pthread_mutex_unlock(&counter_lock);
	pthread_t t;
	pthread_create(&t, NULL, blocked_on_held, NULL);
	CHECK(!__libc_single_threaded, "pthread_create clears __libc_single_threaded");
	while (!atomic_load(&tried))
		sched_yield();
	CHECK_ERR(pthread_mutex_unlock(&held), 0, "main: unlocks the mutex it locked before");
	pthread_join(t, NULL);
	CHECK_ERR(pthread_mutex_trylock(&held), 0, "the mutex is free after both released it");
	pthread_mutex_unlock(&held);
	exclusion_now("held across create: mutual exclusion afterwards");
}

static void wait_after(int (*start)(pthread_t *, void *(*)(void *), void *))
{
	pthread_mutex_lock(&a);
	pthread_t t;
	start(&t, signal_ready, NULL);
	while (!ready)
		pthread_cond_wait(&cv, &a);
	CHECK(ready, "condvar wait right after the second thread started");
	CHECK_ERR(pthread_mutex_trylock(&a), EBUSY, "the wait returned with the mutex held");
	pthread_mutex_unlock(&a);
	pthread_join(t, NULL);
	exclusion_now("after the condvar wait: mutual exclusion");
}

static int create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	return pthread_create(t, NULL, fn, arg);
}

static void wait_after_create(void) { wait_after(create); }
static void wait_after_plugin_thread(void) { wait_after(plugin_spawn); }

/* fork with a mutex held by the forking thread; the child releases it,
 * uses it, and contends on it with a thread of its own. */
static void fork_holding(const char *phase)
{
	char what[160];
	pthread_mutex_lock(&counter_lock);
	pid_t pid = fork();
	if (pid == 0) {
		snprintf(what, sizeof what, "fork child (%s): unlocks the inherited lock", phase);
		CHECK_ERR(pthread_mutex_unlock(&counter_lock), 0, what);
		snprintf(what, sizeof what, "fork child (%s): relocks it", phase);
		CHECK_ERR(pthread_mutex_trylock(&counter_lock), 0, what);
		pthread_mutex_unlock(&counter_lock);
		snprintf(what, sizeof what, "fork child (%s): mutual exclusion with a new thread", phase);
		exclusion_now(what);
		fflush(stdout);
		_exit(check_failed ? 1 : 0);
	}
	pthread_mutex_unlock(&counter_lock);
	int st = 0;
	waitpid(pid, &st, 0);
	snprintf(what, sizeof what, "fork child (%s) passed", phase);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, what);
}

static void fork_in_both_phases(void)
{
	fork_holding("single-threaded parent");
	pthread_t t;
	pthread_create(&t, NULL, count, NULL); /* now multithreaded */
	fork_holding("multithreaded parent");
	pthread_join(t, NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(__libc_single_threaded ? 3 : 0);
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st), "fork child of a threaded parent exits");
	/* glibc 2.36 leaves the flag cleared there; a later glibc may set it,
	 * which the gate also handles (ls_gate_after_fork). */
	printf("# __libc_single_threaded in a fork child of a threaded parent: %d\n",
	       WEXITSTATUS(st) == 3);
}

int main(int argc, char **argv)
{
	printf("# backend %s\n", check_backend());
	char plugin[4096] = "libplugin.so";
	if (argc > 1) {
		snprintf(plugin, sizeof plugin, "%s", argv[1]);
	} else {
		ssize_t n = readlink("/proc/self/exe", plugin, sizeof plugin - 32);
		char *slash = n > 0 ? memrchr(plugin, '/', (size_t)n) : NULL;
		if (slash)
			strcpy(slash + 1, "libplugin.so");
	}
	void *h = dlopen(plugin, RTLD_NOW);
	plugin_spawn = h ? (int (*)(pthread_t *, void *(*)(void *), void *))dlsym(h, "plugin_spawn") : NULL;
	CHECK(plugin_spawn != NULL, "the plugin is loaded");
	CHECK(__libc_single_threaded, "the process starts single-threaded");
	in_child("held across pthread_create", held_across_create);
	in_child("condvar wait after pthread_create", wait_after_create);
	if (plugin_spawn)
		in_child("condvar wait after a thread started by a dlopen()ed library",
		         wait_after_plugin_thread);
	in_child("fork in both phases", fork_in_both_phases);
	CHECK(__libc_single_threaded, "the test process itself stayed single-threaded");
	return check_finish();
}
