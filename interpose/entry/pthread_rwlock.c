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
 * to glibc, or, from the counting table, to the slow path.  The bodies and
 * the observed protocol are rwlock_bodies.h, shared with the counting
 * table's uncommon cases (rwlock_counted.c).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../../core/runtime/probes.h"
#include "../../core/runtime/thread.h"
#include "../../core/runtime/timespec.h"
#include "entry.h"
#include "export.h"
#include "../start/init.h"
#include "../start/rwlock_select.h"
#include "rwlock_layout.h"
#include "../start/rwlock_real.h"
#include "../../stats/hooks.h"

/* The gate and the backend, selected and opened by rwlock_select.c,
 * declared hidden (rwlock_select.h, active.h): every call reads them
 * PC-relative, not through the GOT. */
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

static SLOW int rdlock_slow(pthread_rwlock_t *l);
static SLOW int tryrdlock_slow(pthread_rwlock_t *l);
static SLOW int wrlock_slow(pthread_rwlock_t *l);
static SLOW int trywrlock_slow(pthread_rwlock_t *l);
static SLOW int unlock_slow(pthread_rwlock_t *l);
/* The counting table in the gate routes a call to its slow path
 * (rwlock_bodies.h ROUTED). */
#define ROUTED_SLOW(verb, l) verb##_slow(l)
#include "rwlock_bodies.h"

/* init (before glibc's) and destroy: the next use is a new object
 * (statistics, watch). */
static void forget(pthread_rwlock_t *l)
{
	if (ls_watching())
		ls_watch_forget(l);
	if (!ls_observing())
		return;
	struct ls_stats_obj o;
	stats_obj(l, rw_backend(), &o);
	o.slot = &ls_rw_of(l)->stats; /* checked against the record's key */
	ls_stats_forget(&o);
}

/* ---- the watch on (stats/watch.h; the gate is closed): the bodies, or
 * the statistics' protocol if they are on too, with its hooks around, as
 * mutex_watch.h does for mutexes ---- */

static SLOW int watched_lock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b, uintptr_t site,
                             const struct deadline *d, bool write)
{
	int e = refused(l, b, d);
	if (e)
		return e;
	uintptr_t w = watch_word(l, write);
	struct ls_watch_thread *t = ls_watch_self();
	if (t && atomic_load_explicit(&t->n, memory_order_relaxed))
		ls_watch_request(t, w | (d->abstime ? LS_WATCH_TIMED : 0), site);
	if (ls_observing()) {
		e = d->abstime ? observed_lock(l, b, site, d, write)
		               : observed_plain_lock(l, b, site, write);
	} else {
		e = try_body(l, b, write);
		if (e == EBUSY)
			e = block_for(l, b, d, write, site);
	}
	if (e == 0)
		ls_watch_acquired(t, w, site);
	return e;
}

static SLOW int watched_trylock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b,
                                uintptr_t site, bool write)
{
	int e = ls_observing() ? observed_trylock(l, b, site, write) : try_body(l, b, write);
	if (e == 0)
		ls_watch_acquired(ls_watch_self(), watch_word(l, write), site);
	return e;
}

static SLOW int watched_unlock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b, uintptr_t site)
{
	ls_watch_released(ls_watch_me, (uintptr_t)l);
	return ls_observing() ? observed_unlock(l, b, site) : unlock_body(l, b);
}

static SLOW int hooked_lock(pthread_rwlock_t *l, const struct ls_rwlock_ops *b, uintptr_t site,
                            bool write)
{
	if (ls_watching())
		return watched_lock(l, b, site, &no_deadline, write);
	return observed_plain_lock(l, b, site, write);
}

/* ---- the entry points ---- */

/* The statistics are looked at behind a closed gate or the counting
 * table's (after rw_backend(), which initialises). */
static inline bool observing(void)
{
	const struct ls_rwlock_ops *g = gate();
	return (!g || g->gate_only) && ls_hooked();
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
	if (UNLIKELY(ls_hooked()))
		return hooked_lock(l, b, site, false);
	return rdlock_body(l, b);
}

static INLINE int wrlock_at(pthread_rwlock_t *l, uintptr_t site)
{
	const struct ls_rwlock_ops *b = rw_backend();
	if (UNLIKELY(ls_hooked()))
		return hooked_lock(l, b, site, true);
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
	if (UNLIKELY(ls_hooked()))
		return ls_watching() ? watched_trylock(l, b, CALLER(), false)
		                     : observed_trylock(l, b, CALLER(), false);
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
	if (UNLIKELY(ls_hooked()))
		return ls_watching() ? watched_trylock(l, b, CALLER(), true)
		                     : observed_trylock(l, b, CALLER(), true);
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
		r = ls_watching() ? watched_lock(l, b, CALLER(), &d, write)
		                  : observed_lock(l, b, CALLER(), &d, write);
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
	if (UNLIKELY(ls_hooked()))
		return ls_watching() ? watched_unlock(l, b, CALLER()) : observed_unlock(l, b, CALLER());
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
