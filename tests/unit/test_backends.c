/*
 * test_backends.c - the lock harness for every backend the table lists,
 * wrappers around every inner lock included ("capacitor:mcs"...).  A new
 * backend is covered as soon as it is in backends/list.h.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/runtime/home.h"
#include "../../core/runtime/thread.h"
#include "lock_harness.h"

#define MAX_BACKENDS 64

static char names[MAX_BACKENDS][64];
static size_t nnames;

static void collect(const char *name, const char *about, void *arg)
{
	if (nnames < MAX_BACKENDS)
		snprintf(names[nnames++], sizeof names[0], "%s", name);
}

static const struct ls_lock_ops *select_or_fail(void **state)
{
	char err[512];
	const struct ls_lock_ops *ops = ls_backend_select(*state, err, sizeof err);
	if (!ops)
		fail_msg("%s: %s", (char *)*state, err);
	if (ls_backend_is_passthrough(ops))
		skip();
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	/* ces runs a waiter's critical section on another thread by switching
	 * stacks and TLS under the sanitizers' feet: ASan would need
	 * __sanitizer_start_switch_fiber around every switch and TSan its fiber
	 * calls, and the parking stack runs with no TLS of its own, where their
	 * runtimes keep theirs.  Left out of the sanitized runs on purpose; the
	 * plain run covers it. */
	if (strcmp(*(char **)state, "ces") == 0)
		skip();
#endif
	return ops;
}

/* Sanitizers slow every atomic by 5-20x and serialise spinning threads:
 * fewer iterations keep the same interleavings within CI's time. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ITER_SCALE 10
#else
#define ITER_SCALE 1
#endif

static void exclusion(void **state) { lh_mutual_exclusion(select_or_fail(state), 8, 20000 / ITER_SCALE); }
static void oversubscribed(void **state) { lh_mutual_exclusion(select_or_fail(state), 32, 2000 / ITER_SCALE); }
/* 128 threads: wake-ahead and parking with a queue far longer than the
 * spin window; 1 in 3 acquisitions is a timedlock that often times out, so
 * a wake that went to a thread that had left would hang a survivor. */
static void crowd(void **state) { lh_mutual_exclusion(select_or_fail(state), 128, 300 / ITER_SCALE); }
static void try_and_timed(void **state) { lh_try_and_timed(select_or_fail(state)); }
static void timeouts(void **state) { lh_timeouts_leave_cleanly(select_or_fail(state)); }
static void forked(void **state) { lh_fork_child(select_or_fail(state)); }

int main(void)
{
	/* As the interposer registers them: a delegated section goes home
	 * before it forks (core/runtime/home.h). */
	pthread_atfork(ls_home_before_fork, NULL, ls_thread_after_fork);
	ls_backend_each(collect, NULL);
	static const struct { const char *what; CMUnitTestFunction fn; } checks[] = {
		{ "exclusion", exclusion }, { "oversubscribed", oversubscribed }, { "crowd", crowd },
		{ "try_and_timed", try_and_timed }, { "timeouts", timeouts }, { "fork", forked },
	};
	size_t nchecks = sizeof checks / sizeof checks[0];
	static struct CMUnitTest tests[MAX_BACKENDS * 6];
	static char labels[MAX_BACKENDS * 6][96];
	size_t n = 0;
	for (size_t b = 0; b < nnames; b++) {
		if (strcmp(names[b], "glibc") == 0)
			continue; /* pass-through: no lock of its own */
		for (size_t c = 0; c < nchecks; c++, n++) {
			snprintf(labels[n], sizeof labels[n], "%s/%s", names[b], checks[c].what);
			tests[n] = (struct CMUnitTest){ labels[n], checks[c].fn, NULL, NULL, names[b] };
		}
	}
	return _cmocka_run_group_tests("backends", tests, n, NULL, NULL);
}
