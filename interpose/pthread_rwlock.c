/*
 * pthread_rwlock.c - the exported pthread_rwlock_* functions.
 *
 * Every call: the active rwlock backend (one load after ls_active()), the
 * pass-through test (glibc backend, or __shared set: process-shared
 * rwlocks are glibc's for their whole life), the kind, then the backend's
 * verb.  Error codes follow glibc 2.36 as measured (tests/rwlock/errors.c
 * checks them under every rwlock backend, glibc's included):
 *   EDEADLK  rdlock/wrlock/timed/clock forms by the thread holding the
 *            write lock (after the EINVAL checks, before any timeout)
 *   EBUSY    tryrdlock/trywrlock when they would block (also for the
 *            write holder itself)
 *   EINVAL   bad tv_nsec or a clock other than REALTIME/MONOTONIC, checked
 *            eagerly (even when the lock is free)
 *   ETIMEDOUT  deadline passed while blocked (tv_sec < 0 included; a free
 *            lock is still taken)
 *   EAGAIN   reader count would overflow
 * destroy always returns 0, as glibc's does; unlocking a lock the caller
 * does not hold is undefined (glibc corrupts its state too).
 *
 * The fast path is one load of the gate (rwlock_select.h) and the call's
 * body, after, in rdlock and wrlock, the test of the USDT probes'
 * semaphore and, in unlock, the probe's nop (core/runtime/probes.h).  The
 * slow path (gate closed: before initialisation, or statistics
 * on under glibc's rwlocks) serves the call with the same bodies; with
 * statistics on it calls the hooks (stats/hooks.h) around them, as the
 * mutex's slow path does: a lock first tries (tryrdlock/trywrlock), and
 * only a failed try blocks, so "contended" means the first try found the
 * lock unavailable.  With statistics on under a lockswap backend the gate
 * holds the counting table (rwlock_counting.c), which counts an
 * uncontended read inline and leaves its other verbs NULL: a body that
 * finds its verb NULL, or a process-shared object, is "routed" (below) -
 * to glibc, or, from the counting table, to the slow path.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../core/runtime/probes.h"
#include "../core/runtime/thread.h"
#include "../core/runtime/timespec.h"
#include "entry.h"
#include "export.h"
#include "init.h"
#include "rwlock_counted.h"
#include "rwlock_select.h"
#include "rwlock_layout.h"
#include "rwlock_real.h"
#include "../stats/hooks.h"

/* Selected and opened by rwlock_select.c; defined here, where every call
 * reads them (PC-relative, not through the GOT). */
const struct ls_rwlock_ops *_Atomic ls_rwlock_active;
const struct ls_rwlock_ops *_Atomic ls_rwlock_gate;

static inline const struct ls_rwlock_ops *gate(void)
{
	return atomic_load_explicit(&ls_rwlock_gate, memory_order_acquire);
}

static inline const struct ls_rwlock_ops *rw_backend(void)
{
	/* relaxed: stored before ls_init's release store of the mutex
	 * backend, which ls_active() loads with acquire. */
	ls_active();
	return atomic_load_explicit(&ls_rwlock_active, memory_order_relaxed);
}

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
 * program's site.  The bodies test for it what they tested for
 * pass-through before, plus gate_only once routed. */
static SLOW int rdlock_slow(pthread_rwlock_t *l);
static SLOW int tryrdlock_slow(pthread_rwlock_t *l);
static SLOW int wrlock_slow(pthread_rwlock_t *l);
static SLOW int trywrlock_slow(pthread_rwlock_t *l);
static SLOW int unlock_slow(pthread_rwlock_t *l);
#define ROUTED(verb, l, b) (UNLIKELY((b)->gate_only) ? verb##_slow(l) : ls_real_rwlock_##verb(l))

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
static int timed_body(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                      const struct deadline *d, bool write)
{
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x)) {
		if (d->is_clock)
			return (write ? ls_real_rwlock.clockwrlock
			              : ls_real_rwlock.clockrdlock)(l, d->clock, d->abstime);
		return (write ? ls_real_rwlock.timedwrlock : ls_real_rwlock.timedrdlock)(l, d->abstime);
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
		e = block_body(l, b, d, write);
	}
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

static const struct deadline no_deadline = { 0 };

/* The uncommon cases of a plain rdlock or wrlock, out of line so that the
 * common one below keeps no frame for their call records: a hold sample
 * is due (the whole protocol from before the try), or the first try found
 * the lock unavailable. */
static __attribute__((noinline)) int observed_sampled_lock(pthread_rwlock_t *l,
                                                           const struct ls_rwlock_ops *b,
                                                           uintptr_t site, bool write)
{
	return observed_lock(l, b, site, &no_deadline, write);
}

static __attribute__((noinline)) int observed_blocking_lock(pthread_rwlock_t *l,
                                                            const struct ls_rwlock_ops *b,
                                                            uintptr_t site, bool write)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(l, b, &o);
	ls_stats_rw_begin(&k, &o, site, write, false);
	ls_stats_lock_blocks(&k, false);
	int e = block_body(l, b, &no_deadline, write);
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

/* The first try got it, and the quick hook declined (or glibc serves the
 * object: no slot word): the whole object, out of line. */
static __attribute__((noinline)) int observed_locked_slow(pthread_rwlock_t *l,
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
static __attribute__((noinline)) int observed_wanted_unlock(pthread_rwlock_t *l,
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

/* init (before glibc's) and destroy: the next use is a new object. */
static void forget(pthread_rwlock_t *l)
{
	struct ls_stats_obj o;
	stats_obj(l, rw_backend(), &o);
	o.slot = &ls_rw_of(l)->stats; /* checked against the record's key */
	ls_stats_forget(&o);
}

/* ---- the counting table's uncommon cases (rwlock_counted.h) ---- */

/* Each first gives back the countdown step that the table's verb took
 * (stats/quick.h): the hooks take their own.  A read only: the table has
 * no write verbs. */
int ls_rwlock_counted_declined(void *l, uintptr_t site)
{
	ls_counting_declined();
	return observed_plain_lock(l, rw_backend(), site, false);
}

int ls_rwlock_counted_blocked(void *l, uintptr_t site, int e)
{
	ls_stats_quick_give_back();
	if (e != EBUSY) /* EAGAIN: too many readers, not contention */
		return e;
	return observed_blocking_lock(l, rw_backend(), site, false);
}

int ls_rwlock_counted_after(void *l, uintptr_t site)
{
	ls_stats_quick_give_back();
	return observed_locked_hooks(l, rw_backend(), site, false);
}

void ls_rwlock_counted_unlock(void *l)
{
	observed_wanted_unlock(l, rw_backend(), 0);
}

/* ---- the entry points ---- */

/* The statistics are looked at behind a closed gate or the counting
 * table's (after rw_backend(), which initialises). */
static inline bool observing(void)
{
	const struct ls_rwlock_ops *g = gate();
	return (!g || g->gate_only) && ls_observing();
}

LS_EXPORT int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr)
{
	/* glibc validates the attributes, zeroes all 56 bytes (= unlocked for
	 * every backend) and writes __flags and __shared. */
	rw_backend();
	if (UNLIKELY(observing()))
		forget(l);
	return ls_real_rwlock_init(l, attr);
}

LS_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	LS_PROBE1(rwlock_destroy, l);
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(observing()))
		forget(l);
	if (served_by_glibc(b, ls_rw_of(l)))
		return ls_real_rwlock_destroy(l);
	return 0;
}

/* The slow paths' bodies, for the program's call site `site`: the
 * backend's own verbs (never the counting table's, whose routing jumps
 * to a slow path that reads its site from a return address). */
static INLINE int rdlock_at(pthread_rwlock_t *l, uintptr_t site)
{
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(ls_observing()))
		return observed_plain_lock(l, b, site, false);
	return rdlock_body(l, b);
}

static INLINE int wrlock_at(pthread_rwlock_t *l, uintptr_t site)
{
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(ls_observing()))
		return observed_plain_lock(l, b, site, true);
	return wrlock_body(l, b);
}

/* A tracer is attached (core/runtime/probes.h): the probes around the
 * slow path's body.  The rwlock's unlock and destroy fire at their
 * start, as glibc's do: plain nops, no semaphore test needed. */
static SLOW int traced_rdlock(pthread_rwlock_t *l)
{
	LS_PROBE1(rdlock_entry, l);
	int r = rdlock_at(l, CALLER());
	if (r == 0)
		LS_PROBE1(rdlock_acquire_read, l);
	return r;
}

static SLOW int traced_wrlock(pthread_rwlock_t *l)
{
	LS_PROBE1(wrlock_entry, l);
	int r = wrlock_at(l, CALLER());
	if (r == 0)
		LS_PROBE1(wrlock_acquire_write, l);
	return r;
}

static SLOW int rdlock_slow(pthread_rwlock_t *l)
{
	return rdlock_at(l, CALLER());
}

LS_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	if (UNLIKELY(ls_probes_armed()))
		return traced_rdlock(l);
	const struct ls_rwlock_ops *b = gate();
	if (LIKELY(b != NULL))
		return rdlock_body(l, b);
	return rdlock_slow(l);
}

static SLOW int tryrdlock_slow(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(ls_observing()))
		return observed_trylock(l, b, CALLER(), false);
	return tryrdlock_body(l, b);
}

LS_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = gate();
	if (LIKELY(b != NULL))
		return tryrdlock_body(l, b);
	return tryrdlock_slow(l);
}

static SLOW int wrlock_slow(pthread_rwlock_t *l)
{
	return wrlock_at(l, CALLER());
}

LS_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	if (UNLIKELY(ls_probes_armed()))
		return traced_wrlock(l);
	const struct ls_rwlock_ops *b = gate();
	if (LIKELY(b != NULL))
		return wrlock_body(l, b);
	return wrlock_slow(l);
}

static SLOW int trywrlock_slow(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(ls_observing()))
		return observed_trylock(l, b, CALLER(), true);
	return trywrlock_body(l, b);
}

LS_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = gate();
	if (LIKELY(b != NULL))
		return trywrlock_body(l, b);
	return trywrlock_slow(l);
}

/* The four timed forms: a deadline is a slow call, they always take this
 * path (reached by a sibling call, so CALLER() is the program's site). */
static SLOW int timed_entry(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime,
                            bool is_clock, bool write)
{
	const struct ls_rwlock_ops *b = rw_backend();
	const struct deadline d = { clock, abstime, is_clock };
	int r;
	if (write)
		LS_PROBE1(wrlock_entry, l);
	else
		LS_PROBE1(rdlock_entry, l);
	if (UNLIKELY(observing()))
		r = observed_lock(l, b, CALLER(), &d, write);
	else
		r = timed_body(l, b, &d, write);
	if (r == 0 && write)
		LS_PROBE1(wrlock_acquire_write, l);
	else if (r == 0)
		LS_PROBE1(rdlock_acquire_read, l);
	return r;
}

LS_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	return timed_entry(l, CLOCK_REALTIME, abstime, false, false);
}

LS_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	return timed_entry(l, CLOCK_REALTIME, abstime, false, true);
}

LS_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock,
                                         const struct timespec *abstime)
{
	return timed_entry(l, clock, abstime, true, false);
}

LS_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock,
                                         const struct timespec *abstime)
{
	return timed_entry(l, clock, abstime, true, true);
}

static SLOW int unlock_slow(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(ls_observing()))
		return observed_unlock(l, b, CALLER());
	return unlock_body(l, b);
}

LS_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	LS_PROBE1(rwlock_unlock, l);
	const struct ls_rwlock_ops *b = gate();
	if (LIKELY(b != NULL))
		return unlock_body(l, b);
	return unlock_slow(l);
}

/* The rwlock backend serving this process, for tests and tools. */
LS_EXPORT const char *lockswap_rwlock(void)
{
	return rw_backend()->name;
}
