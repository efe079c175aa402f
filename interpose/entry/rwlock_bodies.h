/*
 * rwlock_bodies.h - what serves one pthread_rwlock_* call with backend b,
 * and the statistics' protocol around it: shared by the entry points
 * (pthread_rwlock.c) and the counting table's uncommon cases
 * (rwlock_counted.c), as mutex_bodies.h is for mutexes: static functions
 * in a header, so that each file inlines them as before and no call goes
 * from the counted paths back to the entry points.  Nothing here
 * initialises; the caller passes b.  The includer defines
 * ROUTED_SLOW(verb, l) first (below, "routed").
 */
#ifndef LS_INTERPOSE_RWLOCK_BODIES_H
#define LS_INTERPOSE_RWLOCK_BODIES_H

/* The one thing the includer decides (ROUTED, below): where a routed call
 * goes.  Without it every routed body would fail to compile far from the
 * cause, so say it here. */
#ifndef ROUTED_SLOW
#error "rwlock_bodies.h: define ROUTED_SLOW(verb, l) before including it (the entry points: verb##_slow(l); the counted paths: ls_real_rwlock_##verb(l))"
#endif

#include <errno.h>
#include <pthread.h>

#include "../../core/runtime/thread.h"
#include "../../core/runtime/timespec.h"
#include "../../stats/hooks.h"
#include "../../stats/watch.h"
#include "../start/active.h"
#include "entry.h"
#include "rwlock_layout.h"
#include "../away/pinned.h"
#include "../start/rwlock_real.h"

static inline bool served_by_glibc(const struct ls_rwlock_ops *b, struct ls_rw *x)
{
	return ls_rwlock_is_passthrough(b) || ls_rw_is_glibc(x);
}

/* Does the caller hold the write lock?  relaxed: the writer field equals
 * the caller's id only if the caller itself stored it. */
static inline bool writing(struct ls_rw *x)
{
	uint32_t w = atomic_load_explicit(&x->writer, memory_order_relaxed);
	if (!w)
		return false;
	struct ls_thread *t = ls_thread_self();
	return t && t->id == w;
}

static inline int wrote(struct ls_rw *x, int r)
{
	if (r == 0) {
		struct ls_thread *t = ls_thread_self();
		/* relaxed: read back only by this thread (writing()). */
		atomic_store_explicit(&x->writer, t ? t->id : 0, memory_order_relaxed);
	}
	return r;
}

/* ---- the bodies: serve one call with backend b ---- */

/* A call whose verb is NULL in b, or on a process-shared object, is
 * routed: to glibc (b is pass-through, or the object is glibc's), or,
 * when b is the counting table in the gate (gate_only), to the entry
 * point's slow path, reached by a jump so that its CALLER() is still the
 * program's site (ROUTED_SLOW, which the includer defines before this
 * header).  The bodies test for it what they tested for pass-through
 * before, plus gate_only once routed. */
#define ROUTED(verb, l, b)                                                                     \
	(UNLIKELY((b)->gate_only) ? ROUTED_SLOW(verb, l)                                       \
	                          : LS_PINNED(ls_real_rwlock_##verb(l), PIN_ACQUIRES_##verb))
/* Which routed verbs take the lock (away/pinned.h). */
#define PIN_ACQUIRES_rdlock true
#define PIN_ACQUIRES_tryrdlock true
#define PIN_ACQUIRES_wrlock true
#define PIN_ACQUIRES_trywrlock true
#define PIN_ACQUIRES_unlock false

static INLINE int rdlock_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b)
{
	struct ls_rw *x = ls_rw_of(l);
	if (UNLIKELY(!b->rdlock || ls_rw_is_glibc(x)))
		return ROUTED(rdlock, l, b);
	if (writing(x))
		return EDEADLK;
	return b->rdlock(x->lock, ls_rw_flags(x));
}

static INLINE int tryrdlock_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b)
{
	struct ls_rw *x = ls_rw_of(l);
	if (UNLIKELY(!b->tryrdlock || ls_rw_is_glibc(x)))
		return ROUTED(tryrdlock, l, b);
	return b->tryrdlock(x->lock, ls_rw_flags(x));
}

static INLINE int wrlock_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b)
{
	struct ls_rw *x = ls_rw_of(l);
	if (UNLIKELY(!b->wrlock || ls_rw_is_glibc(x)))
		return ROUTED(wrlock, l, b);
	if (writing(x))
		return EDEADLK;
	return wrote(x, b->wrlock(x->lock, ls_rw_flags(x)));
}

static INLINE int trywrlock_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b)
{
	struct ls_rw *x = ls_rw_of(l);
	if (UNLIKELY(!b->trywrlock || ls_rw_is_glibc(x)))
		return ROUTED(trywrlock, l, b);
	return wrote(x, b->trywrlock(x->lock, ls_rw_flags(x)));
}

/* A deadline, for the four timed forms. */
struct deadline {
	clockid_t clock;
	const struct timespec *abstime; /* NULL: no deadline (rdlock, wrlock) */
	bool is_clock;                  /* clockrdlock/clockwrlock */
};

/* glibc checks the clock and tv_nsec first, even when the lock is free,
 * then EDEADLK, then blocks. */
static SHARED int timed_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                      const struct deadline *d, bool write)
{
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x)) {
		if (d->is_clock)
			return LS_PINNED((write ? ls_real_rwlock.clockwrlock
			                        : ls_real_rwlock.clockrdlock)(l, d->clock, d->abstime),
			                 true);
		return LS_PINNED((write ? ls_real_rwlock.timedwrlock
		                        : ls_real_rwlock.timedrdlock)(l, d->abstime),
		                 true);
	}
	if (!ls_clock_supported(d->clock) || !ls_timespec_valid(d->abstime))
		return EINVAL;
	if (writing(x))
		return EDEADLK;
	unsigned f = ls_rw_flags(x);
	if (write)
		return wrote(x, b->timedwrlock(x->lock, f, d->clock, d->abstime));
	return b->timedrdlock(x->lock, f, d->clock, d->abstime);
}

static INLINE int unlock_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b)
{
	struct ls_rw *x = ls_rw_of(l);
	if (UNLIKELY(!b->unlock || ls_rw_is_glibc(x)))
		return ROUTED(unlock, l, b);
	/* Cleared before the backend's release, so the next writer never
	 * finds our id. */
	if (writing(x))
		atomic_store_explicit(&x->writer, 0, memory_order_relaxed);
	b->unlock(x->lock, ls_rw_flags(x));
	return 0;
}

/* ---- statistics on: the same bodies, with the hooks around them ---- */

static inline void stats_obj(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                             struct ls_stats_obj *o)
{
	struct ls_rw *x = ls_rw_of(l);
	bool glibc = served_by_glibc(b, x);
	o->addr = l;
	/* Bytes 32..35 keep the record id while lockswap serves the object;
	 * glibc's bytes are all glibc's: its objects are found by address. */
	o->slot = glibc ? NULL : &x->stats;
	o->holder = NULL; /* the word after the slot word */
	o->release_names = false;
	o->unlock_want = NULL; /* its unlock tests ls_stats_unlock_wanted() */
	/* relaxed: written once by init, before the object is shared. */
	o->kind = atomic_load_explicit(&x->kind, memory_order_relaxed) |
	          (ls_rw_is_glibc(x) ? LS_STATS_RW_PSHARED : 0);
	o->type = LS_REC_RWLOCK;
	o->glibc = glibc;
}

/* The answers a lock call gives before it could block - EINVAL for a bad
 * deadline, EDEADLK for the write holder - are neither contention nor an
 * acquisition: found here, before the first try.  0 = go on.  glibc's
 * own objects get glibc's answers from the blocking call. */
static INLINE int refused(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                          const struct deadline *d)
{
	struct ls_rw *x = ls_rw_of(l);
	if (d->abstime && (!ls_clock_supported(d->clock) || !ls_timespec_valid(d->abstime)))
		return EINVAL;
	if (!served_by_glibc(b, x) && writing(x))
		return EDEADLK;
	return 0;
}

static INLINE int try_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b, bool write)
{
	return write ? trywrlock_body(l, b) : tryrdlock_body(l, b);
}

static INLINE int block_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                             const struct deadline *d, bool write)
{
	if (d->abstime)
		return timed_body(l, b, d, write);
	return write ? wrlock_body(l, b) : rdlock_body(l, b);
}

/* The lock's word for the watch (stats/watch.h): address, type, mode. */
static inline uintptr_t watch_word(pthread_rwlock_t *l, bool write)
{
	return (uintptr_t)l | LS_WATCH_RWLOCK | (write ? 0 : LS_WATCH_READ);
}

/* Block after a failed first try, with the watchdog told of the wait while
 * the watch is on: the contended case only. */
static INLINE int block_for(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                            const struct deadline *d, bool write, uintptr_t site)
{
	bool watch = UNLIKELY(ls_watching());
	if (watch)
		ls_watch_wait_begin(watch_word(l, write), site);
	int e = block_body(l, b, d, write);
	if (watch)
		ls_watch_wait_end();
	return e;
}

/* The whole protocol: begin, try, [blocks, block], end. */
static INLINE int observed_lock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                uintptr_t site, const struct deadline *d, bool write)
{
	int e = refused(l, b, d);
	if (e)
		return e;
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(l, b, &o);
	ls_stats_rw_begin(&k, &o, site, write, false);
	e = try_body(l, b, write);
	if (e == EBUSY) {
		ls_stats_lock_blocks(&k, false);
		e = block_for(l, b, d, write, site);
	}
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

static SHARED const struct deadline no_deadline = { 0 };

/* The uncommon cases of a plain rdlock or wrlock, out of line so that the
 * common one below keeps no frame for their call records: a hold sample
 * is due (the whole protocol from before the try), or the first try found
 * the lock unavailable. */
static SHARED __attribute__((noinline)) int observed_sampled_lock(pthread_rwlock_t *l,
                                                           const struct ls_rwlock_ops *b,
                                                           uintptr_t site, bool write)
{
	return observed_lock(l, b, site, &no_deadline, write);
}

static SHARED __attribute__((noinline)) int observed_blocking_lock(pthread_rwlock_t *l,
                                                            const struct ls_rwlock_ops *b,
                                                            uintptr_t site, bool write)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(l, b, &o);
	ls_stats_rw_begin(&k, &o, site, write, false);
	ls_stats_lock_blocks(&k, false);
	int e = block_for(l, b, &no_deadline, write, site);
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

/* The first try got it, and the quick hook declined (or glibc serves the
 * object: no slot word): the whole object, out of line. */
static SHARED __attribute__((noinline)) int observed_locked_slow(pthread_rwlock_t *l,
                                                          const struct ls_rwlock_ops *b,
                                                          uintptr_t site, bool write)
{
	struct ls_stats_obj o;
	stats_obj(l, b, &o);
	ls_hold_due = ls_stats_rw_locked(&o, site, write);
	return 0;
}

/* The first try got it and the inline step declined: the quick hook
 * counts it (and keys this thread's row), or, where that declines too,
 * the whole object. */
static INLINE int observed_locked_hooks(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                        uintptr_t site, bool write)
{
	int q = ls_stats_rw_locked_quick(&ls_rw_of(l)->stats, l, site, write);
	if (LIKELY(q != LS_STATS_QUICK_DECLINED)) {
		ls_hold_due = q;
		return 0;
	}
	return observed_locked_slow(l, b, site, write);
}

/* The first try got it: counted by the inline step, else by the hooks,
 * when lockswap serves the object. */
static INLINE int observed_locked(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                  uintptr_t site, bool write)
{
	struct ls_rw *x = ls_rw_of(l);
	if (LIKELY(!served_by_glibc(b, x))) {
		/* The inline step (stats/quick.h), as the mutex's counting table
		 * runs it, once the hooks have keyed this thread's row. */
		if (LIKELY(ls_stats_quick_take())) {
			struct ls_stats_count *r =
			        ls_stats_quick_row(&x->stats, write, (uintptr_t)l | LS_REC_RWLOCK);
			if (LIKELY(r != NULL)) {
				if (!write) {
					ls_stats_bump(&r->c[LS_C_ACQ]);
				} else {
					ls_stats_quick_count(r, site);
					if (UNLIKELY(!ls_stats_quick_holder_is_me(&x->stats + 1)))
						ls_stats_quick_handoff(r, &x->stats);
				}
				/* As the hooks answer: the next lock's hold sample is due. */
				ls_hold_due = ls_stats_q.hold_left == 1;
				return 0;
			}
		}
		ls_stats_quick_give_back();
		return observed_locked_hooks(l, b, site, write);
	}
	return observed_locked_slow(l, b, site, write);
}

/* A plain rdlock or wrlock: try, and if that got it (the common case) one
 * hook counts it; otherwise the whole protocol. */
static INLINE int observed_plain_lock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                      uintptr_t site, bool write)
{
	if (UNLIKELY(ls_hold_due))
		return observed_sampled_lock(l, b, site, write);
	int e = refused(l, b, &no_deadline);
	if (e)
		return e;
	e = try_body(l, b, write);
	if (LIKELY(e == 0))
		return observed_locked(l, b, site, write);
	if (e != EBUSY)
		return e;
	return observed_blocking_lock(l, b, site, write);
}

static INLINE int observed_trylock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                   uintptr_t site, bool write)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(l, b, &o);
	ls_stats_rw_begin(&k, &o, site, write, true);
	int e = try_body(l, b, write);
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

/* An unlock with work for the statistics, out of line (as the mutex's). */
static SHARED __attribute__((noinline)) int observed_wanted_unlock(pthread_rwlock_t *l,
                                                            const struct ls_rwlock_ops *b,
                                                            uintptr_t site)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(l, b, &o);
	ls_stats_unlock_begin(&k, &o, site);
	int e = unlock_body(l, b);
	ls_stats_unlock_end(&k, e);
	return e;
}

static INLINE int observed_unlock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                  uintptr_t site)
{
	if (LIKELY(!ls_stats_unlock_wanted()))
		return unlock_body(l, b);
	return observed_wanted_unlock(l, b, site);
}


#endif
