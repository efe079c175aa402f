/*
 * locks.c - locks whose owner is a kernel thread, under delegation
 * (docs/delegation.md): priority-inheritance, robust and process-shared
 * mutexes, process-shared rwlocks, stdio FILE locks and spin locks.  Run
 * under futex and under ces; a deadlock fails by the alarm below.
 *
 * Hand-over-hand: lock m; lock inner; unlock m; ...; unlock inner.  Under
 * ces the unlock of m could run a waiter's section on this very thread,
 * and that section wants inner, which this thread holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "harness.h"

#define N 3

enum inner_kind { PSHARED, ROBUST, PI, RWLOCK_PSHARED, STDIO, SPIN, NORMAL, KINDS };
static const char *const kind_name[KINDS] = {
	"process-shared mutex", "robust mutex", "priority-inheritance mutex",
	"process-shared rwlock", "stdio FILE lock", "spin lock", "normal mutex",
};

static enum inner_kind kind;
static pthread_mutex_t inner_m;
static pthread_rwlock_t inner_rw;
static pthread_spinlock_t inner_spin;
static FILE *inner_file;
static int inner_errors;
static int counter;

static void make_inner(enum inner_kind k)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	if (k == PSHARED)
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (k == ROBUST)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (k == PI)
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&inner_m, &a);
	pthread_mutexattr_destroy(&a);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&inner_rw, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_spin_init(&inner_spin, PTHREAD_PROCESS_PRIVATE);
}

static int inner_lock(void)
{
	switch (kind) {
	case RWLOCK_PSHARED: return pthread_rwlock_wrlock(&inner_rw);
	case STDIO: flockfile(inner_file); return 0;
	case SPIN: return pthread_spin_lock(&inner_spin);
	default: return pthread_mutex_lock(&inner_m);
	}
}

static int inner_unlock(void)
{
	switch (kind) {
	case RWLOCK_PSHARED: return pthread_rwlock_unlock(&inner_rw);
	case STDIO: funlockfile(inner_file); return 0;
	case SPIN: return pthread_spin_unlock(&inner_spin);
	default: return pthread_mutex_unlock(&inner_m);
	}
}

/* A waiter's section takes inner too, then gives both back. */
static void inner_section(int id)
{
	(void)id;
	if (inner_lock() != 0)
		inner_errors++;
	counter++;
	if (inner_unlock() != 0)
		inner_errors++;
}

/* The same, where a FILE is locked by stdio itself (fputc takes the
 * FILE's lock inside glibc, where no wrapper sends a section home): only
 * the rule that a thread holding a kernel-owned lock runs no one's
 * section keeps this from deadlocking. */
static void stdio_inside(int id)
{
	(void)id;
	if (fputc('x', inner_file) == EOF)
		inner_errors++;
	counter++;
}

/* Hand-over-hand in the releaser: inner taken before m is given up, and
 * given up a little after. */
static void take_inner(pthread_t *t, int n)
{
	(void)t;
	(void)n;
	if (inner_lock() != 0)
		inner_errors++;
}

static void give_inner_later(void)
{
	usleep(20000);
	if (inner_unlock() != 0)
		inner_errors++;
}

static void hand_over_hand(void)
{
	for (enum inner_kind k = 0; k < KINDS; k++) {
		kind = k;
		make_inner(k);
		counter = inner_errors = 0;
		h_after_unlock = give_inner_later;
		run_sections_hook(N, k == STDIO ? stdio_inside : inner_section, take_inner);
		h_after_unlock = NULL;
		char what[160];
		snprintf(what, sizeof what, "hand-over-hand, inner %s: no deadlock, every section took it",
		         kind_name[k]);
		CHECK(counter == N && inner_errors == 0, what);
	}
}

/* The same locks taken and released inside delegated sections: every call
 * succeeds, and nothing is left owned. */
static void inside_sections(void)
{
	for (enum inner_kind k = 0; k < KINDS; k++) {
		kind = k;
		make_inner(k);
		counter = inner_errors = 0;
		int d = run_sections(N, inner_section);
		char what[160];
		snprintf(what, sizeof what, "inside sections, %s: every lock and unlock succeeded",
		         kind_name[k]);
		CHECK(counter == N && inner_errors == 0, what);
		snprintf(what, sizeof what, "inside sections, %s: it is free afterwards", kind_name[k]);
		CHECK(inner_lock() == 0 && inner_unlock() == 0, what);
		snprintf(what, sizeof what, "inside sections, %s", kind_name[k]);
		check_delegated(d, what);
	}
}

int main(void)
{
	harness_start();
	inner_file = tmpfile();
	alarm(30); /* a deadlock ends here, as a failure */
	hand_over_hand();
	inside_sections();
	return check_finish();
}
