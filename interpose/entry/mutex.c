/*
 * mutex.c - the exported pthread_mutex_* functions.
 *
 * The fast path (a normal or adaptive mutex, gate open) is one load of the
 * gate (gate.h), one load of __kind and a jump to the gate's lock, after,
 * in the lock, the test of the USDT probes' semaphore and, in the unlock,
 * the probe's nop (core/runtime/probes.h).  The
 * slow path (gate closed, or another kind) serves every case: with
 * statistics on it calls the hooks (stats/hooks.h) around the same bodies
 * (mutex_bodies.h, shared with the counting table's uncommon cases,
 * mutex_counted.c).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "../../core/condvar/condvar.h"
#include "../../core/runtime/probes.h"
#include "../../core/runtime/thread.h"
#include "../../core/runtime/timespec.h"
#include "entry.h"
#include "export.h"
#include "../start/gate.h"
#include "../start/init.h"
#include "mutex.h"
#include "mutex_bodies.h"
#include "mutex_layout.h"
#include "mutex_watch.h"
#include "../start/real.h"
#include "../../stats/hooks.h"

static int mutex_destroy(pthread_mutex_t *m)
{
	const struct ls_lock_ops *b = ls_active();
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	if (served_by_glibc(b, kind))
		return ls_real_mutex_destroy(m);
	if (b->is_locked(x->lock))
		return EBUSY;
	/* As glibc does: a destroyed mutex has __kind -1, so later use reaches
	 * glibc, which answers EINVAL, until it is initialised again. */
	atomic_store_explicit(&x->kind, -1, memory_order_relaxed);
	return 0;
}

bool ls_mutex_is_native(pthread_mutex_t *m)
{
	return !served_by_glibc(ls_active(), ls_mutex_kind(ls_mutex_of(m)));
}

void ls_mutex_morph_target(pthread_mutex_t *m, struct ls_thread *waiter)
{
	const struct ls_lock_ops *b = ls_active();
	struct ls_mutex *x = ls_mutex_of(m);
	bool morph = b->morph && ls_gate_native(ls_gate_get()) &&
	             !served_by_glibc(b, ls_mutex_kind(x));
	ls_condvar_record_lock(waiter, morph ? x->lock : NULL, morph ? b->morph : NULL);
}

int ls_mutex_release_for_wait(pthread_mutex_t *m, struct ls_mutex_saved *s)
{
	const struct ls_lock_ops *b = ls_active();
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	s->glibc = served_by_glibc(b, kind);
	s->count = 1;
	/* As glibc's condvar wait, whose release goes through its mutex
	 * unlock; before the release, as pthread_mutex_unlock's. */
	LS_PROBE1(mutex_release, m);
	if (s->glibc)
		return ls_real_mutex_unlock(m);
	if (tracks_owner(kind)) {
		uint32_t me = self_id();
		if (!me || !owned_by(x, me))
			return EPERM;
		/* A recursive mutex is released completely for the wait and
		 * given back at its depth. */
		s->count = x->count;
		set_owner(x, 0);
	} else {
		name_releaser(m);
	}
	(b->unlock_to_wait ? b->unlock_to_wait : b->unlock)(x->lock);
	return 0;
}

__thread uintptr_t ls_cond_wait_site;

/* The re-acquisition of a condvar wait while the watch is on: a request
 * like a lock's (its lock-order edge, its wait if the try fails), at the
 * wait's own call site (cond.c sets it).  The acquisition itself is told
 * by cond.c once the wait returns. */
static SLOW int watched_reacquire(pthread_mutex_t *m, const struct ls_mutex_saved *s,
                                  const struct ls_lock_ops *b)
{
	uintptr_t site = ls_cond_wait_site;
	struct ls_watch_thread *t = ls_watch_self();
	if (t && atomic_load_explicit(&t->n, memory_order_relaxed))
		ls_watch_request(t, (uintptr_t)m, site);
	int r = s->glibc ? ls_real_mutex_trylock(m) : b->trylock(ls_mutex_of(m)->lock);
	if (r == 0)
		return 0;
	ls_watch_wait_begin((uintptr_t)m, site);
	if (s->glibc)
		r = ls_real_mutex_lock(m);
	else
		r = (b->lock_after_try ? b->lock_after_try : b->lock)(ls_mutex_of(m)->lock);
	ls_watch_wait_end();
	return r;
}

/* As glibc's condvar wait, whose reacquisition goes through its mutex
 * lock: mutex_entry and mutex_acquired (probes.h). */
int ls_mutex_reacquire_after_wait(pthread_mutex_t *m, const struct ls_mutex_saved *s)
{
	LS_PROBE1(mutex_entry, m);
	const struct ls_lock_ops *b = ls_active();
	bool watch = UNLIKELY(ls_watching());
	if (s->glibc) {
		int r = watch ? watched_reacquire(m, s, b) : ls_real_mutex_lock(m);
		if (r == 0)
			LS_PROBE1(mutex_acquired, m);
		return r;
	}
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	if (watch)
		watched_reacquire(m, s, b);
	else
		b->lock(x->lock);
	if (tracks_owner(kind)) {
		set_owner(x, self_id());
		x->count = s->count;
	}
	LS_PROBE1(mutex_acquired, m);
	return 0;
}


void ls_mutex_stats_obj(pthread_mutex_t *m, struct ls_stats_obj *o)
{
	stats_obj(m, ls_active(), ls_mutex_kind(ls_mutex_of(m)), o);
}


/* init or destroy: the next use is a new object (statistics, watch). */
static void forget(pthread_mutex_t *m)
{
	if (ls_watching())
		ls_watch_forget(m);
	if (!ls_observing())
		return;
	struct ls_stats_obj o;
	ls_mutex_stats_obj(m, &o);
	o.slot = &ls_mutex_of(m)->stats; /* checked against the record's key */
	ls_stats_forget(&o);
}

/* ---- the entry points ---- */

/* Statistics or watch on: which protocol serves the call (out of line, so
 * that the slow paths stay as they were while both are off). */
static SLOW int hooked_lock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	if (ls_watching())
		return watched_lock(m, b, site, &(struct blocking){ 0 });
	return observed_plain_lock(m, b, site);
}

static SLOW int hooked_trylock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	if (ls_watching())
		return watched_trylock(m, b, site);
	return observed_trylock(m, b, site);
}

static SLOW int hooked_unlock(pthread_mutex_t *m, const struct ls_lock_ops *b, uintptr_t site)
{
	if (ls_watching())
		return watched_unlock(m, b, site);
	return observed_unlock(m, b, site);
}

/* The slow paths' bodies, for the program's call site `site`. */
static INLINE int lock_at(pthread_mutex_t *m, uintptr_t site)
{
	const struct ls_lock_ops *b = ls_active();
	if (UNLIKELY(ls_hooked()))
		return hooked_lock(m, b, site);
	return kind_lock(m, b, ls_mutex_kind(ls_mutex_of(m)));
}

/* A tracer is attached (core/runtime/probes.h): the probes around the
 * slow path's body, which serves every case the gate's table would (the
 * counting table's site is read from a return address, which would be
 * ours here, so it is not called).  The unlock's probe needs no such
 * path: it fires as the unlock begins, a nop with the mutex still in its
 * argument register. */
static SLOW int traced_lock(pthread_mutex_t *m)
{
	LS_PROBE1(mutex_entry, m);
	int r = lock_at(m, CALLER());
	if (r == 0)
		LS_PROBE1(mutex_acquired, m);
	return r;
}

static SLOW int lock_slow(pthread_mutex_t *m)
{
	return lock_at(m, CALLER());
}

LS_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (UNLIKELY(ls_probes_armed()))
		return traced_lock(m);
	const struct ls_lock_ops *g = ls_gate_get();
	struct ls_mutex *x = ls_mutex_of(m);
	if (LIKELY(g != NULL) && LIKELY(ls_kind_is_plain(ls_mutex_kind(x))))
		return g->lock(x->lock);
	return lock_slow(m);
}

static SLOW int trylock_slow(pthread_mutex_t *m)
{
	const struct ls_lock_ops *b = ls_active();
	if (UNLIKELY(ls_hooked()))
		return hooked_trylock(m, b, CALLER());
	return kind_trylock(m, b, ls_mutex_kind(ls_mutex_of(m)));
}

LS_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	const struct ls_lock_ops *g = ls_gate_get();
	struct ls_mutex *x = ls_mutex_of(m);
	if (LIKELY(g != NULL) && LIKELY(ls_kind_is_plain(ls_mutex_kind(x))))
		return g->trylock(x->lock);
	return trylock_slow(m);
}

static SLOW int unlock_slow(pthread_mutex_t *m)
{
	const struct ls_lock_ops *b = ls_active();
	if (UNLIKELY(ls_hooked()))
		return hooked_unlock(m, b, CALLER());
	return kind_unlock(m, b, ls_mutex_kind(ls_mutex_of(m)));
}

/* mutex_release fires before the release (glibc's just after it), so
 * that in a trace a release always comes before the next owner's
 * mutex_acquired. */
LS_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	LS_PROBE1(mutex_release, m);
	const struct ls_lock_ops *g = ls_gate_get();
	struct ls_mutex *x = ls_mutex_of(m);
	if (LIKELY(g != NULL) && LIKELY(ls_kind_is_plain(ls_mutex_kind(x)))) {
		g->unlock(x->lock);
		return 0;
	}
	return unlock_slow(m);
}

/* Timed calls always take the slow path: a deadline is a slow call. */
static INLINE int timed_at(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime,
                           bool is_clocklock, uintptr_t site)
{
	if (UNLIKELY(ls_gate_watched())) {
		const struct ls_lock_ops *b = ls_active();
		if (UNLIKELY(ls_hooked())) {
			const struct blocking w = { clock, abstime, is_clocklock };
			if (ls_watching())
				return watched_lock(m, b, site, &w);
			return observed_lock(m, b, site, &w);
		}
	}
	return timed(m, ls_active(), clock, abstime, is_clocklock);
}

static SLOW int timed_entry(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime,
                            bool is_clocklock)
{
	LS_PROBE2(mutex_timedlock_entry, m, abstime);
	int r = timed_at(m, clock, abstime, is_clocklock, CALLER());
	if (r == 0)
		LS_PROBE1(mutex_timedlock_acquired, m);
	return r;
}

LS_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return timed_entry(m, CLOCK_REALTIME, abstime, false);
}

LS_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
                                      const struct timespec *abstime)
{
	return timed_entry(m, clock, abstime, true);
}

/* The statistics and the watch are only looked at while the gate is
 * watched (gate.h): with both off, once it opened, one load and no more. */
static inline bool observing(void)
{
	return ls_gate_watched() && ls_hooked();
}

LS_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	/* glibc validates the attributes, zeroes the object (= unlocked for
	 * every backend) and writes __kind, which decides who serves it. */
	ls_active();
	if (UNLIKELY(observing()))
		forget(m);
	int r = ls_real_mutex_init(m, attr);
	if (r == 0)
		LS_PROBE1(mutex_init, m);
	return r;
}

LS_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	LS_PROBE1(mutex_destroy, m);
	int r = mutex_destroy(m);
	if (UNLIKELY(observing()) && r == 0)
		forget(m);
	return r;
}
