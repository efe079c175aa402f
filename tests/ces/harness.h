/*
 * harness.h - critical sections that the ces backend runs delegated, for
 * the tests of docs/delegation.md's table (tests/ces/).
 *
 * run_sections(n, fn): the main thread takes one mutex, starts n threads
 * that each lock it, run fn(id) inside, and unlock it, waits until every
 * one of them sleeps in its lock call, and unlocks: under ces its unlock
 * runs their sections as a batch, on the main thread, in the waiters'
 * contexts.  Under any other backend the same program runs the sections on
 * their own threads; every check must pass under both (the test is
 * differential), and under ces the scenario also checks that its sections
 * did run delegated (in_delegated(id): the section started on another
 * kernel thread, seen by the raw gettid system call, which no wrapper
 * sends home).
 *
 * Built against stock pthreads, never linked to lockswap.
 */
#ifndef LS_TEST_CES_HARNESS_H
#define LS_TEST_CES_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../preload/check.h"
#include "proc.h"

#define MAX_SECTIONS 16

static pthread_mutex_t h_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int h_id = -1; /* the waiter's id, in its own TLS */
static pid_t h_home[MAX_SECTIONS], h_in[MAX_SECTIONS];
static _Atomic pid_t h_tid[MAX_SECTIONS];
static bool h_is_ces;

static pid_t raw_tid(void) { return (pid_t)syscall(SYS_gettid); }

typedef void (*section_fn)(int id);

/* Optional: run by each waiter at home, before it locks and after it
 * unlocked. */
static section_fn h_prologue, h_epilogue;

struct h_arg {
	int id;
	section_fn fn;
};

static void *h_waiter(void *p)
{
	struct h_arg *a = p;
	h_id = a->id;
	h_home[a->id] = raw_tid();
	if (h_prologue)
		h_prologue(a->id);
	atomic_store(&h_tid[a->id], h_home[a->id]);
	pthread_mutex_lock(&h_lock);
	h_in[a->id] = raw_tid();
	a->fn(a->id);
	pthread_mutex_unlock(&h_lock);
	if (h_epilogue)
		h_epilogue(a->id);
	return NULL;
}

static bool in_delegated(int id) { return h_in[id] != h_home[id]; }

/* The sections that ran delegated, of n. */
static int delegated_count(int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += in_delegated(i);
	return k;
}

/* Optional: run by the main thread right after its unlock, before it
 * joins the waiters. */
static void (*h_after_unlock)(void);

/* Runs fn in n sections queued behind the main thread (see above); hook,
 * if any, runs on the main thread while it still holds the lock and every
 * waiter sleeps.  Returns how many ran delegated. */
static int run_sections_hook(int n, section_fn fn, void (*hook)(pthread_t *t, int n))
{
	pthread_t t[MAX_SECTIONS];
	struct h_arg a[MAX_SECTIONS];
	memset(h_home, 0, sizeof h_home);
	memset(h_in, 0, sizeof h_in);
	pthread_mutex_lock(&h_lock);
	for (int i = 0; i < n; i++) {
		atomic_store(&h_tid[i], 0);
		a[i] = (struct h_arg){ i, fn };
		if (pthread_create(&t[i], NULL, h_waiter, &a[i]) != 0) {
			printf("FAIL - pthread_create\n");
			exit(2);
		}
	}
	for (int i = 0; i < n; i++) {
		while (!atomic_load(&h_tid[i]))
			usleep(500);
		wait_sleeping(atomic_load(&h_tid[i]));
	}
	if (hook)
		hook(t, n);
	pthread_mutex_unlock(&h_lock);
	if (h_after_unlock)
		h_after_unlock();
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return delegated_count(n);
}

static int run_sections(int n, section_fn fn) { return run_sections_hook(n, fn, NULL); }

/* Under ces, the scenario's sections must have run delegated: otherwise
 * it tested nothing of delegation. */
static void check_delegated(int delegated, const char *scenario)
{
	if (!h_is_ces)
		return;
	char what[256];
	snprintf(what, sizeof what, "%.200s: sections ran delegated", scenario);
	CHECK(delegated >= 1, what);
}

static void harness_start(void)
{
	h_is_ces = strcmp(check_backend(), "ces") == 0;
}

#endif
