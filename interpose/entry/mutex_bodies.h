/*
 * mutex_bodies.h - what serves one plain pthread_mutex_* call, and the
 * statistics' protocol around it: shared by the entry points' slow paths
 * (mutex.c) and the counting table's uncommon cases (mutex_counted.c).
 *
 * Static functions in a header, not a module of their own, so that each
 * of the two inlines them as it did when they were one file: the entry
 * points' fast path and the counting table's verbs are unchanged, and no
 * call goes from the counted paths back to the entry points (the layering
 * check, docs/hacking.md).  Nothing here initialises: the caller passes
 * the backend `b`, from ls_active() (an entry point) or from
 * ls_active_published() (behind an open gate).  SHARED marks the
 * functions that not every includer calls.
 *
 * The bodies go through kind_*(): recursion and ownership for
 * recursive/errorcheck mutexes, pass-through to glibc for robust, PI, PP,
 * process-shared and destroyed objects (and for every object under the
 * "glibc" backend).  Error codes follow glibc 2.36 as measured
 * (docs/glibc.md section 5, re-checked by tests/preload/errors.c).
 */
#ifndef LS_INTERPOSE_MUTEX_BODIES_H
#define LS_INTERPOSE_MUTEX_BODIES_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>

#include "../../core/runtime/thread.h"
#include "../../core/runtime/timespec.h"
#include "../../stats/hooks.h"
#include "../../stats/watch.h"
#include "../start/active.h"
#include "../away/pinned.h"
#include "entry.h"
#include "mutex_layout.h"
#include "../start/real.h"

/* Where a mutex's holder word is (mutex_layout.h): set once, by the
 * counting table's choice (mutex_counted.h ls_mutex_holder_in_state),
 * before the gate publishes it and so before any lock is counted.
 * Hidden: read PC-relative, as the static it was. */
extern size_t ls_mutex_holder_off __attribute__((visibility("hidden")));

static inline bool served_by_glibc(const struct ls_lock_ops *b, int32_t kind)
{
	return ls_backend_is_passthrough(b) || ls_kind_is_glibc(kind);
}

/* The caller's identity as an owner (ls_thread_tag: not inherited by a
 * thread that reuses an exited owner's record), 0 if no record could be
 * had (mmap failed). */
static inline uint32_t self_id(void)
{
	struct ls_thread *t = ls_thread_self();
	return t ? ls_thread_tag(t) : 0;
}

static inline bool owned_by(struct ls_mutex *x, uint32_t me)
{
	/* relaxed: only the owner itself can observe its own id here. */
	return atomic_load_explicit(&x->owner, memory_order_relaxed) == me;
}

static inline void set_owner(struct ls_mutex *x, uint32_t me)
{
	atomic_store_explicit(&x->owner, me, memory_order_relaxed);
}

static inline bool tracks_owner(int32_t kind)
{
	int32_t t = kind & LS_KIND_TYPE_MASK;
	return t == LS_KIND_RECURSIVE || t == LS_KIND_ERRORCHECK;
}

/* Before a recursive or errorcheck mutex is acquired: sets *me to the
 * caller's id and returns true if the call is already answered in *result:
 * EAGAIN (no thread record could be had), or a relock by the owner: 0
 * (recursive, depth bumped), EAGAIN (depth would wrap) or `errorcheck_err`.
 * Other kinds go straight on (*me = 0). */
static SHARED bool answered_by_owner(struct ls_mutex *x, int32_t kind, int errorcheck_err,
                              uint32_t *me, int *result)
{
	*me = 0;
	if (!tracks_owner(kind))
		return false;
	if (!(*me = self_id())) {
		*result = EAGAIN;
		return true;
	}
	if (!owned_by(x, *me))
		return false;
	if ((kind & LS_KIND_TYPE_MASK) == LS_KIND_ERRORCHECK)
		*result = errorcheck_err;
	else if (x->count == UINT_MAX)
		*result = EAGAIN;
	else {
		x->count++;
		*result = 0;
	}
	return true;
}

/* After the backend granted the lock. */
static inline int acquired(struct ls_mutex *x, int32_t kind, uint32_t me)
{
	if (tracks_owner(kind)) {
		set_owner(x, me);
		x->count = 1;
	}
	return 0;
}

static SHARED int kind_lock_with(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind,
                          int (*lock)(void *))
{
	struct ls_mutex *x = ls_mutex_of(m);
	if (served_by_glibc(b, kind))
		return LS_PINNED(ls_real_mutex_lock(m), true);
	uint32_t me;
	int r;
	if (answered_by_owner(x, kind, EDEADLK, &me, &r))
		return r;
	lock(x->lock);
	return acquired(x, kind, me);
}

static SHARED int kind_lock(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	return kind_lock_with(m, b, kind, b->lock);
}

/* The same, for a caller whose try has just failed (the observed lock's
 * contended case): the backend's lock_after_try where it has one, which
 * goes straight to waiting (backends/backend.h). */
static SHARED int kind_lock_after_try(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	return kind_lock_with(m, b, kind, b->lock_after_try ? b->lock_after_try : b->lock);
}

static SHARED int kind_trylock(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	struct ls_mutex *x = ls_mutex_of(m);
	if (served_by_glibc(b, kind))
		return LS_PINNED(ls_real_mutex_trylock(m), true);
	uint32_t me;
	int r;
	if (answered_by_owner(x, kind, EBUSY, &me, &r))
		return r;
	if (b->trylock(x->lock) != 0)
		return EBUSY;
	return acquired(x, kind, me);
}

/* The deadline is only looked at when the call would block, as in glibc:
 * an uncontended timedlock with tv_nsec = 1e9 succeeds. */
static SHARED int timed(pthread_mutex_t *m, const struct ls_lock_ops *b, clockid_t clock,
                        const struct timespec *abstime, bool is_clocklock)
{
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	if (is_clocklock && !ls_clock_supported(clock))
		return EINVAL;
	if (served_by_glibc(b, kind)) {
		if (is_clocklock)
			return ls_real.mutex_clocklock
			               ? LS_PINNED(ls_real.mutex_clocklock(m, clock, abstime), true)
			               : EINVAL;
		return ls_real.mutex_timedlock ? LS_PINNED(ls_real.mutex_timedlock(m, abstime), true)
		                               : EINVAL;
	}
	uint32_t me;
	int r;
	if (answered_by_owner(x, kind, EDEADLK, &me, &r))
		return r;
	if (b->trylock(x->lock) != 0) {
		if (!ls_timespec_valid(abstime))
			return EINVAL;
		if ((r = b->timedlock(x->lock, clock, abstime)) != 0)
			return r;
	}
	return acquired(x, kind, me);
}

static SHARED int kind_unlock(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	struct ls_mutex *x = ls_mutex_of(m);
	if (served_by_glibc(b, kind))
		return LS_PINNED(ls_real_mutex_unlock(m), false);
	if (tracks_owner(kind)) {
		uint32_t me = self_id();
		if (!me || !owned_by(x, me))
			return EPERM;
		if (--x->count != 0)
			return 0;
		/* Cleared before the backend's release-unlock, so the next owner
		 * never sees our id. */
		set_owner(x, 0);
	}
	b->unlock(x->lock);
	return 0;
}


/* Whether a plain mutex's releases write its holder word: exactly where
 * the word is in the lock state (the claims' naming unlock). */
static inline bool releases_name(void)
{
	return ls_mutex_holder_off != offsetof(struct ls_mutex, holder);
}

static inline _Atomic uint32_t *holder_word(pthread_mutex_t *m)
{
	return (_Atomic uint32_t *)(void *)((char *)m + ls_mutex_holder_off);
}

/* A release of a plain mutex other than the counting table's own (which
 * writes the word in the instruction that frees the lock): the releasing
 * thread names itself first, since it may have got the mutex by waiting,
 * which writes nothing (stats/hooks.h ls_stats_obj.release_names).
 * Relaxed: the release that follows orders it. */
static inline void name_releaser(pthread_mutex_t *m)
{
	if (releases_name()) {
		_Atomic uint32_t *h = holder_word(m);
		if (atomic_load_explicit(h, memory_order_relaxed) != ls_stats_q.serial)
			atomic_store_explicit(h, ls_stats_q.serial, memory_order_relaxed);
	}
}

/* ---- statistics on: the same bodies, with the hooks around them ---- */

static inline void stats_obj(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind,
                             struct ls_stats_obj *o)
{
	/* Bytes 28..31 are free for every kind glibc does not keep (glibc
	 * uses bytes 24..39 only for robust mutexes). */
	o->addr = m;
	o->slot = (kind & LS_KIND_GLIBC_ONLY) ? NULL : &ls_mutex_of(m)->stats;
	o->kind = kind;
	o->type = LS_REC_MUTEX;
	o->glibc = served_by_glibc(b, kind);
	/* NULL: the word after the slot word (stats/hooks.h). */
	o->holder = NULL;
	o->release_names = false;
	if (UNLIKELY(releases_name()) && o->slot) {
		o->holder = holder_word(m);
		o->release_names = ls_kind_is_plain(kind);
	}
	/* Only where lockswap serves the mutex: its counting unlock reads
	 * the word; glibc's unlock would never clear it. */
	o->unlock_want = o->glibc ? NULL : &ls_mutex_of(m)->unlock_want;
}

struct blocking {
	clockid_t clock;
	const struct timespec *abstime; /* NULL: plain lock */
	bool is_clocklock;
};

/* The bodies of trylock and unlock for the observed paths, with the plain
 * native case inline. */
static inline int try_body(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	if (LIKELY(ls_kind_is_plain(kind) && !ls_backend_is_passthrough(b)))
		return b->trylock(ls_mutex_of(m)->lock);
	return kind_trylock(m, b, kind);
}

static inline int unlock_body(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	if (LIKELY(ls_kind_is_plain(kind) && !ls_backend_is_passthrough(b))) {
		name_releaser(m);
		b->unlock(ls_mutex_of(m)->lock);
		return 0;
	}
	return kind_unlock(m, b, kind);
}

/* Block for a mutex whose first try failed: the timed lock of a deadline,
 * else the backend's lock after a try; while the watch is on (stats/
 * watch.h), with the watchdog told of the wait.  The contended case only:
 * the uncontended paths never get here. */
static inline int block_for(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind,
                            const struct blocking *w, uintptr_t site)
{
	bool watch = UNLIKELY(ls_watching());
	if (watch)
		ls_watch_wait_begin((uintptr_t)m, site);
	int e = w->abstime ? timed(m, b, w->clock, w->abstime, w->is_clocklock)
	                   : kind_lock_after_try(m, b, kind);
	if (watch)
		ls_watch_wait_end();
	return e;
}

/* After a failed try: the mutex is held right now, by another thread (a
 * try can also fail with the lock free: a capacitor's full platoon).
 * Only for mutexes lockswap serves; glibc's own: cannot tell (false). */
static inline bool held_now(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	return !served_by_glibc(b, kind) && b->is_locked(ls_mutex_of(m)->lock);
}

/* Lock, timedlock, clocklock: try first (an uncontended acquisition), then
 * block (a contended one), as the hooks count them. */
static INLINE int observed_lock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site,
                                const struct blocking *w)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	/* An unsupported clock is EINVAL even when the mutex is free. */
	if (w->abstime && w->is_clocklock && !ls_clock_supported(w->clock))
		return EINVAL;
	int32_t kind = ls_mutex_kind(ls_mutex_of(m));
	stats_obj(m, b, kind, &o);
	ls_stats_lock_begin(&k, &o, site, false);
	int e = try_body(m, b, kind);
	if (e == EBUSY) {
		ls_stats_lock_blocks(&k, held_now(m, b, kind));
		e = block_for(m, b, kind, w, site);
	}
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

static INLINE int observed_trylock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	int32_t kind = ls_mutex_kind(ls_mutex_of(m));
	stats_obj(m, b, kind, &o);
	ls_stats_lock_begin(&k, &o, site, true);
	int e = try_body(m, b, kind);
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

/* An unlock with work for the statistics (a hold sample open in this
 * thread, or a stack asked for): out of line, so that the common unlock
 * below needs no frame for its call records. */
static SHARED __attribute__((noinline)) int observed_wanted_unlock(pthread_mutex_t *m,
                                                            const struct ls_lock_ops *b,
                                                            int32_t kind, uintptr_t site)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(m, b, kind, &o);
	ls_stats_unlock_begin(&k, &o, site);
	int e = unlock_body(m, b, kind);
	ls_stats_unlock_end(&k, e);
	return e;
}

static INLINE int observed_unlock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	int32_t kind = ls_mutex_kind(ls_mutex_of(m));
	if (LIKELY(!ls_stats_unlock_wanted()))
		return unlock_body(m, b, kind);
	return observed_wanted_unlock(m, b, kind, site);
}


/* The two uncommon cases of a plain lock, out of line so that the common
 * one below needs no frame for their call records: a hold sample is due
 * (the whole protocol from before the try), or the first try found the
 * mutex held. */
static SHARED __attribute__((noinline)) int observed_sampled_lock(pthread_mutex_t *m,
                                                           const struct ls_lock_ops *b,
                                                           uintptr_t site)
{
	return observed_lock(m, b, site, &(struct blocking){ 0 });
}

static SHARED __attribute__((noinline)) int observed_blocking_lock(pthread_mutex_t *m,
                                                            const struct ls_lock_ops *b,
                                                            int32_t kind, uintptr_t site)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(m, b, kind, &o);
	ls_stats_lock_begin(&k, &o, site, false);
	ls_stats_lock_blocks(&k, held_now(m, b, kind));
	int e = block_for(m, b, kind, &(struct blocking){ 0 }, site);
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

/* The first try got it, and the quick hook declined: the whole object. */
static SHARED __attribute__((noinline)) bool observed_locked_slow(pthread_mutex_t *m,
                                                          const struct ls_lock_ops *b,
                                                          int32_t kind, uintptr_t site)
{
	struct ls_stats_obj o;
	stats_obj(m, b, kind, &o);
	return ls_stats_locked(&o, site);
}

/* The first try got a plain mutex: one hook counts it, or, where the
 * quick hook declines, the whole object; returns whether the next lock's
 * hold sample is due.  `slot` is the mutex's slot word, NULL for a kind
 * that has none. */
static INLINE bool observed_first_try(pthread_mutex_t *m, const struct ls_lock_ops *b,
                                      int32_t kind, _Atomic uint32_t *slot, uintptr_t site)
{
	int q = ls_stats_mutex_locked_quick(slot, holder_word(m), m, site);
	return LIKELY(q != LS_STATS_QUICK_DECLINED) ? q : observed_locked_slow(m, b, kind, site);
}

/* A plain lock with statistics on: try, and if that got the mutex (the
 * common case) one hook counts it; otherwise the whole protocol. */
static INLINE int observed_plain_lock(pthread_mutex_t *m, const struct ls_lock_ops *b,
                                      uintptr_t site)
{
	if (UNLIKELY(ls_hold_due))
		return observed_sampled_lock(m, b, site);
	int32_t kind = ls_mutex_kind(ls_mutex_of(m));
	int e = try_body(m, b, kind);
	if (LIKELY(e == 0 || e == EOWNERDEAD)) {
		ls_hold_due = observed_first_try(
		        m, b, kind, (kind & LS_KIND_GLIBC_ONLY) ? NULL : &ls_mutex_of(m)->stats, site);
		return e;
	}
	if (e != EBUSY)
		return e;
	return observed_blocking_lock(m, b, kind, site);
}
#endif
