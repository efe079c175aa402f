/*
 * mutex_watch.h - what serves one pthread_mutex_* call while the watch is
 * on (LOCKSWAP_DEADLOCK, LOCKSWAP_HANG_MS; stats/watch.h): the bodies of
 * mutex_bodies.h, or the statistics' protocol when they are on too, with
 * the watch's hooks around them.  Static functions in a header, as
 * mutex_bodies.h's, for the entry points' slow paths (mutex.c) and the
 * gate's watching table (watching.c), whose uncommon cases they are.
 *
 * A lock tells the watch its request before anything can block (the
 * lock-order edge from the newest lock held), its wait only once the first
 * try failed (block_for), and its acquisition after; an unlock tells the
 * release before it releases, so that the next holder is never listed
 * after the lock changed hands (under ces the release runs the next
 * waiters' sections before it returns).
 */
#ifndef LS_INTERPOSE_MUTEX_WATCH_H
#define LS_INTERPOSE_MUTEX_WATCH_H

#include "../../stats/watch.h"
#include "mutex_bodies.h"

/* Lock, timedlock, clocklock (w->abstime set): the request, the body
 * (tries, then blocks), the acquisition. */
static SHARED int watched_lock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site,
                               const struct blocking *w)
{
	if (w->abstime && w->is_clocklock && !ls_clock_supported(w->clock))
		return EINVAL;
	struct ls_watch_thread *t = ls_watch_self();
	if (t && atomic_load_explicit(&t->n, memory_order_relaxed))
		ls_watch_request(t, (uintptr_t)m | (w->abstime ? LS_WATCH_TIMED : 0), site);
	int e;
	if (ls_observing()) {
		e = w->abstime ? observed_lock(m, b, site, w) : observed_plain_lock(m, b, site);
	} else {
		int32_t kind = ls_mutex_kind(ls_mutex_of(m));
		e = try_body(m, b, kind);
		if (e == EBUSY)
			e = block_for(m, b, kind, w, site);
	}
	if (e == 0 || e == EOWNERDEAD)
		ls_watch_acquired(t, (uintptr_t)m, site);
	return e;
}

/* A try adds no lock-order edge (it cannot wait), but what it got is held. */
static SHARED int watched_trylock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	int e = ls_observing() ? observed_trylock(m, b, site)
	                       : kind_trylock(m, b, ls_mutex_kind(ls_mutex_of(m)));
	if (e == 0 || e == EOWNERDEAD)
		ls_watch_acquired(ls_watch_self(), (uintptr_t)m, site);
	return e;
}

static SHARED int watched_unlock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	ls_watch_released(ls_watch_me, (uintptr_t)m);
	if (ls_observing())
		return observed_unlock(m, b, site);
	return kind_unlock(m, b, ls_mutex_kind(ls_mutex_of(m)));
}

#endif
