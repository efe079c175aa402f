/*
 * mutex.c - the exported pthread_mutex_* functions.
 *
 * The fast path (a normal or adaptive mutex, gate open) is one load of the
 * gate (gate.h), one load of __kind and a jump to the gate's lock, after,
 * in the lock, the test of the USDT probes' semaphore and, in the unlock,
 * the probe's nop (core/runtime/probes.h).  The
 * slow path (gate closed, or another kind) serves every case: with
 * statistics on it calls the hooks (stats/hooks.h) around the same bodies.
 * The bodies go through kind_*(): recursion and ownership for
 * recursive/errorcheck mutexes, pass-through to glibc for robust, PI, PP,
 * process-shared and destroyed objects (and for every object under the
 * "glibc" backend).  Error codes follow glibc 2.36 as measured
 * (docs/glibc.md section 5, re-checked by tests/preload/errors.c).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "../core/runtime/probes.h"
#include "../core/runtime/thread.h"
#include "../core/runtime/timespec.h"
#include "entry.h"
#include "export.h"
#include "gate.h"
#include "init.h"
#include "mutex.h"
#include "mutex_counted.h"
#include "mutex_layout.h"
#include "real.h"
#include "../stats/hooks.h"

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
static bool answered_by_owner(struct ls_mutex *x, int32_t kind, int errorcheck_err,
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

static int kind_lock_with(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind,
                          int (*lock)(void *))
{
	struct ls_mutex *x = ls_mutex_of(m);
	if (served_by_glibc(b, kind))
		return ls_real_mutex_lock(m);
	uint32_t me;
	int r;
	if (answered_by_owner(x, kind, EDEADLK, &me, &r))
		return r;
	lock(x->lock);
	return acquired(x, kind, me);
}

static int kind_lock(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	return kind_lock_with(m, b, kind, b->lock);
}

/* The same, for a caller whose try has just failed (the observed lock's
 * contended case): the backend's lock_after_try where it has one, which
 * goes straight to waiting (backends/backend.h). */
static int kind_lock_after_try(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	return kind_lock_with(m, b, kind, b->lock_after_try ? b->lock_after_try : b->lock);
}

static int kind_trylock(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	struct ls_mutex *x = ls_mutex_of(m);
	if (served_by_glibc(b, kind))
		return ls_real_mutex_trylock(m);
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
static int timed(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime,
                 bool is_clocklock)
{
	const struct ls_lock_ops *b = ls_active();
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	if (is_clocklock && !ls_clock_supported(clock))
		return EINVAL;
	if (served_by_glibc(b, kind)) {
		if (is_clocklock)
			return ls_real.mutex_clocklock ? ls_real.mutex_clocklock(m, clock, abstime) : EINVAL;
		return ls_real.mutex_timedlock ? ls_real.mutex_timedlock(m, abstime) : EINVAL;
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

static int kind_unlock(pthread_mutex_t *m, const struct ls_lock_ops *b, int32_t kind)
{
	struct ls_mutex *x = ls_mutex_of(m);
	if (served_by_glibc(b, kind))
		return ls_real_mutex_unlock(m);
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

/* Where a mutex's holder word is (mutex_layout.h): set once, by the
 * counting table's choice, before the gate publishes it and so before any
 * lock is counted. */
static size_t holder_off = offsetof(struct ls_mutex, holder);

void ls_mutex_holder_in_state(size_t state_off)
{
	holder_off = offsetof(struct ls_mutex, lock) + state_off;
}

/* Whether a plain mutex's releases write its holder word: exactly where
 * the word is in the lock state (the claims' naming unlock). */
static inline bool releases_name(void)
{
	return holder_off != offsetof(struct ls_mutex, holder);
}

static inline _Atomic uint32_t *holder_word(pthread_mutex_t *m)
{
	return (_Atomic uint32_t *)(void *)((char *)m + holder_off);
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

/* As glibc's condvar wait, whose reacquisition goes through its mutex
 * lock: mutex_entry and mutex_acquired (probes.h). */
int ls_mutex_reacquire_after_wait(pthread_mutex_t *m, const struct ls_mutex_saved *s)
{
	LS_PROBE1(mutex_entry, m);
	if (s->glibc) {
		int r = ls_real_mutex_lock(m);
		if (r == 0)
			LS_PROBE1(mutex_acquired, m);
		return r;
	}
	const struct ls_lock_ops *b = ls_active();
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	b->lock(x->lock);
	if (tracks_owner(kind)) {
		set_owner(x, self_id());
		x->count = s->count;
	}
	LS_PROBE1(mutex_acquired, m);
	return 0;
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

void ls_mutex_stats_obj(pthread_mutex_t *m, struct ls_stats_obj *o)
{
	stats_obj(m, ls_active(), ls_mutex_kind(ls_mutex_of(m)), o);
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
		e = w->abstime ? timed(m, w->clock, w->abstime, w->is_clocklock)
		               : kind_lock_after_try(m, b, kind);
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
static __attribute__((noinline)) int observed_wanted_unlock(pthread_mutex_t *m,
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

static void forget(pthread_mutex_t *m)
{
	struct ls_stats_obj o;
	ls_mutex_stats_obj(m, &o);
	o.slot = &ls_mutex_of(m)->stats; /* checked against the record's key */
	ls_stats_forget(&o);
}

/* ---- the entry points ---- */

/* The two uncommon cases of a plain lock, out of line so that the common
 * one below needs no frame for their call records: a hold sample is due
 * (the whole protocol from before the try), or the first try found the
 * mutex held. */
static __attribute__((noinline)) int observed_sampled_lock(pthread_mutex_t *m,
                                                           const struct ls_lock_ops *b,
                                                           uintptr_t site)
{
	return observed_lock(m, b, site, &(struct blocking){ 0 });
}

static __attribute__((noinline)) int observed_blocking_lock(pthread_mutex_t *m,
                                                            const struct ls_lock_ops *b,
                                                            int32_t kind, uintptr_t site)
{
	struct ls_stats_obj o;
	struct ls_stats_call k;
	stats_obj(m, b, kind, &o);
	ls_stats_lock_begin(&k, &o, site, false);
	ls_stats_lock_blocks(&k, held_now(m, b, kind));
	int e = kind_lock_after_try(m, b, kind);
	ls_hold_due = ls_stats_lock_end(&k, e);
	return e;
}

/* The first try got it, and the quick hook declined: the whole object. */
static __attribute__((noinline)) bool observed_locked_slow(pthread_mutex_t *m,
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

/* ---- the counting table's uncommon cases (mutex_counted.h) ---- */

/* Each case first gives back the countdown step that the inline step
 * took (quick.h): the hooks take their own. */
int ls_mutex_counted_declined(void *m, uintptr_t site)
{
	ls_counting_declined();
	const struct ls_lock_ops *b = ls_active();
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
	return observed_blocking_lock(m, ls_active(), ls_mutex_kind(ls_mutex_of(m)), site);
}

int ls_mutex_counted_first(void *m, uintptr_t site)
{
	ls_stats_quick_give_back();
	/* A plain kind (the fast path's test): the slot word is there. */
	ls_hold_due = observed_first_try(m, ls_active(), ls_mutex_kind(ls_mutex_of(m)),
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
	return observed_trylock(m, ls_active(), site);
}

void ls_mutex_counted_unlock(void *m, uintptr_t site)
{
	const struct ls_lock_ops *b = ls_active();
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

/* The slow paths' bodies, for the program's call site `site`. */
static INLINE int lock_at(pthread_mutex_t *m, uintptr_t site)
{
	const struct ls_lock_ops *b = ls_active();
	if (UNLIKELY(ls_observing()))
		return observed_plain_lock(m, b, site);
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
	if (UNLIKELY(ls_observing()))
		return observed_trylock(m, b, CALLER());
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
	if (UNLIKELY(ls_observing()))
		return observed_unlock(m, b, CALLER());
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
		if (UNLIKELY(ls_observing()))
			return observed_lock(m, b, site, &(struct blocking){ clock, abstime, is_clocklock });
	}
	return timed(m, clock, abstime, is_clocklock);
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

/* The statistics are only looked at while the gate is watched (gate.h):
 * with statistics off, once it opened, one load and no more. */
static inline bool observing(void)
{
	return ls_gate_watched() && ls_observing();
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
