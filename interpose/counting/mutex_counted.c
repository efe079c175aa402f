/*
 * mutex_counted.c - the counting table's uncommon cases (mutex_counted.h):
 * the slow path's statistics protocol for a plain mutex, entered by a
 * jump from a counting verb (counting.c), over the bodies that the entry
 * points' slow paths use too (mutex_bodies.h).  A module of its own, below
 * the entry points (mutex.c), so that the calls run one way: the entry
 * points reach the gate, the gate the counting table, the table these;
 * and these reach no entry point and no start-up (they run only behind
 * an open gate: the backend is ls_active_published()).
 */
#include "mutex_counted.h"

#include "../entry/mutex_bodies.h"

size_t ls_mutex_holder_off = offsetof(struct ls_mutex, holder);

void ls_mutex_holder_in_state(size_t state_off)
{
	ls_mutex_holder_off = offsetof(struct ls_mutex, lock) + state_off;
}


/* Each case first gives back the countdown step that the inline step
 * took (quick.h): the hooks take their own. */
int ls_mutex_counted_declined(void *m, uintptr_t site)
{
	ls_counting_declined();
	const struct ls_lock_ops *b = ls_active_published();
	if (ls_hold_due) {
		/* A hold sample due: in the common case (stats/hooks.h
		 * ls_stats_hold_quick_begin) two hooks around the try instead of
		 * the whole protocol, which builds a call record to learn what
		 * these already know.  A plain kind (the gate's test), served
		 * by the backend's own verbs (the counting table's). */
		_Atomic uint32_t *w = &ls_mutex_of(m)->stats;
		uint64_t t0 = ls_stats_hold_quick_begin(w, m);
		if (t0) {
			int32_t kind = ls_mutex_kind(ls_mutex_of(m));
			int e = try_body(m, b, kind);
			if (LIKELY(e == 0)) {
				ls_hold_due = ls_stats_hold_quick_end(w, holder_word(m), m, site,
				                                      &ls_mutex_of(m)->unlock_want, t0);
				return 0;
			}
			/* Held: the whole protocol from the block on, which
			 * starts this sample's clock again before it waits. */
			return observed_blocking_lock(m, b, kind, site);
		}
	}
	return observed_plain_lock(m, b, site);
}

int ls_mutex_counted_blocked(void *m, uintptr_t site)
{
	ls_stats_quick_give_back();
	return observed_blocking_lock(m, ls_active_published(), ls_mutex_kind(ls_mutex_of(m)), site);
}

int ls_mutex_counted_first(void *m, uintptr_t site)
{
	ls_stats_quick_give_back();
	/* A plain kind (the fast path's test): the slot word is there. */
	ls_hold_due = observed_first_try(m, ls_active_published(), ls_mutex_kind(ls_mutex_of(m)),
	                                 &ls_mutex_of(m)->stats, site);
	return 0;
}

int ls_mutex_counted_changed(void *m, uintptr_t site)
{
	_Atomic uint32_t *w = &ls_mutex_of(m)->stats;
	struct ls_stats_count *r = ls_stats_quick_row(w, 0, (uintptr_t)m);
	if (LIKELY(r != NULL)) {
		ls_stats_quick_count(r, site);
		return ls_stats_quick_handoff(r, w);
	}
	return ls_mutex_counted_first(m, site);
}

int ls_mutex_counted_trylock(void *m, uintptr_t site)
{
	return observed_trylock(m, ls_active_published(), site);
}

void ls_mutex_counted_unlock(void *m, uintptr_t site)
{
	const struct ls_lock_ops *b = ls_active_published();
	int32_t kind = ls_mutex_kind(ls_mutex_of(m));
	uint32_t hslot;
	uint64_t t0;
	/* A hold sample's end: in the common case two hooks around the
	 * release (stats/hooks.h ls_stats_hold_quick_unlock). */
	if (LIKELY(ls_stats_hold_quick_unlock(&ls_mutex_of(m)->unlock_want, m, &hslot, &t0))) {
		unlock_body(m, b, kind);
		ls_stats_hold_quick_done(hslot, t0);
		return;
	}
	observed_wanted_unlock(m, b, kind, site);
}
