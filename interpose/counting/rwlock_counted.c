/*
 * rwlock_counted.c - the rwlock counting table's uncommon cases
 * (rwlock_counted.h): the slow path's statistics protocol for a read
 * lock, entered by a jump from a counting verb (rwlock_counting.c), over
 * the bodies the entry points use too (rwlock_bodies.h).  Apart from the
 * entry points (pthread_rwlock.c), as mutex_counted.c is, so that the
 * calls run one way; they run only behind an open gate, so the backend
 * is ls_rwlock_published(), with no initialisation.
 */
#include "rwlock_counted.h"

/* Here b is always the rwlock backend, never the counting table (whose
 * gate_only routes a call to an entry point's slow path): a routed call
 * is glibc's, and the test folds away. */
#define ROUTED_SLOW(verb, l) ls_real_rwlock_##verb(l)
#include "../entry/rwlock_bodies.h"

/* Each first gives back the countdown step that the table's verb took
 * (stats/quick.h): the hooks take their own.  A read only: the table has
 * no write verbs. */
int ls_rwlock_counted_declined(void *l, uintptr_t site)
{
	ls_counting_declined();
	return observed_plain_lock(l, ls_rwlock_published(), site, false);
}

int ls_rwlock_counted_blocked(void *l, uintptr_t site, int e)
{
	ls_stats_quick_give_back();
	if (e != EBUSY) /* EAGAIN: too many readers, not contention */
		return e;
	return observed_blocking_lock(l, ls_rwlock_published(), site, false);
}

int ls_rwlock_counted_after(void *l, uintptr_t site)
{
	ls_stats_quick_give_back();
	return observed_locked_hooks(l, ls_rwlock_published(), site, false);
}

void ls_rwlock_counted_unlock(void *l)
{
	observed_wanted_unlock(l, ls_rwlock_published(), 0);
}
