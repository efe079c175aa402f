/*
 * stats_record.c - the hooks: what one call records.
 *
 * Mutex lock (and timedlock, clocklock):
 *   trylock first.  Success = an uncontended acquisition: bump the
 *   thread's own counter, compare the lock record's holder with ourselves
 *   (written only on an owner change), maybe open a hold-time sample.
 *   EBUSY = contended: block through the entry point's own code, then
 *   count.  1 contended wait in N (per-thread countdown, random period of
 *   mean N; every one in full mode) is timed and records the holder's
 *   acquisition site; 1 timed wait in LS_STATS_STACK_FACTOR also gets the
 *   waiter's stack and asks the holder to publish its stack when it
 *   releases (Go's mutex-profile convention: the delay is charged to the
 *   critical section that ended it).
 * Unlock: close a hold sample and answer a pending stack request, both
 *   after the release.
 * Condvar wait: counted on the condvar (waits, timeouts, sampled blocked
 *   time); the mutex's hold ends at the wait and the re-acquisition at its
 *   end counts as an acquisition (uncontended: as in mutrace, a re-take
 *   delayed by the mutex cannot be told from one delayed by the signal).
 *
 * Nothing here allocates memory or takes a lock, except the first call of
 * a thread (mmap of its block) and stack capture (libunwind's own locks,
 * under the in-profiler flag).  Timestamps (CLOCK_MONOTONIC) are taken
 * only for sampled events, and outside the critical section where the
 * order of events allows it.
 */
#include <errno.h>

#include "../core/condvar.h"
#include "../core/timespec.h"
#include "init.h"
#include "mutex_layout.h"
#include "stats_impl.h"

_Atomic unsigned ls_stats_mode __attribute__((aligned(64)));
_Atomic unsigned ls_stats_top = 10;
_Atomic unsigned ls_stats_sample = 16;
/* Records whose want_holder_stack is set: while 0, unlock need not look
 * at its lock's record.  Written only by sampled waiters and the holders
 * that answer them. */
static _Atomic uint32_t want_pending;

#define COND_PSHARED 1u

static inline struct ls_stats_thread *me(void)
{
	if (UNLIKELY(ls_stats_busy))
		return NULL;
	struct ls_stats_thread *t = ls_stats_me;
	return LIKELY(t != NULL) ? t : ls_stats_thread_attach();
}

static inline bool key_is(uint32_t s, uintptr_t key)
{
	return s < LS_STATS_MAX_SLOTS &&
	       atomic_load_explicit(&ls_stats_rec(s)->key, memory_order_acquire) == key;
}

/* ---- which record ---- */

static uint32_t slot_in_object(_Atomic uint32_t *field, void *obj, unsigned type, int32_t kind,
                               bool glibc, uintptr_t site)
{
	uintptr_t key = (uintptr_t)obj | type;
	uint32_t old = atomic_load_explicit(field, memory_order_relaxed);
	if (key_is(old, key)) /* another thread just gave it one */
		return old;
	uint32_t s = ls_stats_slot_new(obj, type, kind, glibc, site);
	if (!s)
		return 0;
	if (atomic_compare_exchange_strong_explicit(field, &old, s, memory_order_release,
	                                            memory_order_relaxed))
		return s;
	/* Another thread gave the object its record first (the CAS replaces
	 * only the invalid id we checked, never a valid one). */
	return key_is(old, key) ? old : 0;
}

static inline uint32_t mutex_slot(pthread_mutex_t *m, uintptr_t site, bool create)
{
	struct ls_mutex *x = ls_mutex_of(m);
	int32_t kind = ls_mutex_kind(x);
	if (UNLIKELY(kind < 0)) /* destroyed: glibc answers EINVAL */
		return 0;
	if (UNLIKELY(kind & LS_KIND_GLIBC_ONLY))
		return ls_stats_addr_slot(m, LS_REC_MUTEX, kind, true, site, create);
	uint32_t s = atomic_load_explicit(&x->stats, memory_order_relaxed);
	if (LIKELY(key_is(s, (uintptr_t)m | LS_REC_MUTEX)))
		return s;
	if (!create)
		return 0;
	bool glibc = ls_backend_is_passthrough(ls_active());
	return slot_in_object(&x->stats, m, LS_REC_MUTEX, kind, glibc, site);
}

static inline uint32_t cond_flags(pthread_cond_t *c)
{
	return atomic_load_explicit((_Atomic uint32_t *)(void *)((char *)c + ls_cond_flags_offset),
	                            memory_order_relaxed);
}

static uint32_t cond_slot(pthread_cond_t *c, uintptr_t site, bool create)
{
	uint32_t flags = cond_flags(c);
	if (ls_backend_is_passthrough(ls_active()) || (flags & COND_PSHARED))
		return ls_stats_addr_slot(c, LS_REC_COND, (int32_t)flags, true, site, create);
	struct ls_condvar *cv = (struct ls_condvar *)(void *)c;
	uint32_t s = atomic_load_explicit(&cv->stats, memory_order_relaxed);
	if (LIKELY(key_is(s, (uintptr_t)c | LS_REC_COND)))
		return s;
	return create ? slot_in_object(&cv->stats, c, LS_REC_COND, (int32_t)flags, false, site) : 0;
}

/* ---- per-thread counters and hold samples ---- */

static inline struct ls_stats_count *counts(struct ls_stats_thread *t, uint32_t slot)
{
	if (UNLIKELY(slot >= atomic_load_explicit(&t->hi, memory_order_relaxed)))
		atomic_store_explicit(&t->hi, slot + 1, memory_order_relaxed);
	return &t->count[slot];
}

static inline bool hold_sampled(struct ls_stats_thread *t)
{
	if (LIKELY(--t->hold_left != 0))
		return false;
	t->hold_left = ls_stats_hold_period(t);
	return true;
}

static void hold_open(struct ls_stats_thread *t, void *obj, uint32_t slot, uint64_t t0)
{
	if (t->nheld == LS_STATS_HELD) { /* drop the oldest */
		for (uint32_t i = 1; i < LS_STATS_HELD; i++)
			t->held[i - 1] = t->held[i];
		t->nheld--;
	}
	t->held[t->nheld++] = (struct ls_stats_held){ obj, slot, t0 };
}

/* The open sample of obj, removed; 0 if none. */
static uint64_t hold_take(struct ls_stats_thread *t, void *obj, uint32_t *slot)
{
	for (uint32_t i = t->nheld; i-- > 0;) {
		if (t->held[i].obj != obj)
			continue;
		uint64_t t0 = t->held[i].t0;
		*slot = t->held[i].slot;
		for (uint32_t j = i + 1; j < t->nheld; j++)
			t->held[j - 1] = t->held[j];
		t->nheld--;
		return t0;
	}
	return 0;
}

/* An acquisition; `stamp` != 0 opens a hold sample starting then. */
static inline void acquired(struct ls_stats_thread *t, uint32_t slot, void *obj, uintptr_t site,
                            uint64_t stamp)
{
	struct ls_stats_count *c = counts(t, slot);
	ls_stats_bump(&c->c[LS_C_ACQ]);
	struct ls_stats_lock *r = ls_stats_rec(slot);
	uint32_t prev = atomic_load_explicit(&r->holder, memory_order_relaxed);
	if (prev != t->serial) {
		atomic_store_explicit(&r->holder, t->serial, memory_order_relaxed);
		if (prev)
			ls_stats_bump(&c->c[LS_C_HANDOFF]);
	}
	if (atomic_load_explicit(&r->holder_site, memory_order_relaxed) != site)
		atomic_store_explicit(&r->holder_site, site, memory_order_relaxed);
	if (stamp)
		hold_open(t, obj, slot, stamp);
}

static inline bool got_it(int e)
{
	return e == 0 || e == EOWNERDEAD;
}

/* ---- mutex ---- */

struct blocking_call {
	pthread_mutex_t *m;
	const struct timespec *abstime; /* NULL: plain lock */
	clockid_t clock;
	int is_clocklock;
};

static int block_on(const struct blocking_call *k)
{
	if (!k->abstime)
		return ls_mutex_lock_direct(k->m);
	return ls_mutex_timed_direct(k->m, k->clock, k->abstime, k->is_clocklock);
}

static int contended(struct ls_stats_thread *t, uint32_t slot, const struct blocking_call *k,
                     uintptr_t site, bool hold)
{
	struct ls_stats_lock *r = ls_stats_rec(slot);
	if (LIKELY(--t->wait_left != 0)) {
		int e = block_on(k);
		if (got_it(e)) {
			acquired(t, slot, k->m, site, hold ? ls_stats_now() : 0);
			ls_stats_bump(&t->count[slot].c[LS_C_CONTENDED]);
		} else if (e == ETIMEDOUT) {
			atomic_fetch_add_explicit(&r->timeouts, 1, memory_order_relaxed);
		}
		return e;
	}
	t->wait_left = ls_stats_period(t);
	uintptr_t hsite = atomic_load_explicit(&r->holder_site, memory_order_relaxed);
	uint32_t wstack = 0;
	if (--t->stack_left == 0) { /* 1 in LS_STATS_STACK_FACTOR timed waits */
		t->stack_left = ls_stats_stack_period(t);
		wstack = ls_stats_stack_capture(t, site);
		if (!atomic_load_explicit(&r->want_holder_stack, memory_order_relaxed) &&
		    !atomic_exchange_explicit(&r->want_holder_stack, 1, memory_order_relaxed))
			atomic_fetch_add_explicit(&want_pending, 1, memory_order_relaxed);
	}
	uint64_t t0 = ls_stats_now();
	int e = block_on(k);
	uint64_t t1 = ls_stats_now();
	if (got_it(e) || e == ETIMEDOUT) {
		/* The stack a holder published after an earlier request (the
		 * holder unwinds after its release, so the critical section
		 * is never widened): a sample of the holders' unlock stacks. */
		uint32_t hstack = wstack ? atomic_load_explicit(&r->holder_stack, memory_order_acquire) : 0;
		ls_stats_timing_add(&r->wait, t1 - t0);
		ls_stats_event_add(slot, wstack, hstack, site, hsite, t1 - t0);
	}
	if (got_it(e)) {
		acquired(t, slot, k->m, site, t1);
		ls_stats_bump(&t->count[slot].c[LS_C_CONTENDED]);
	} else if (e == ETIMEDOUT) {
		atomic_fetch_add_explicit(&r->timeouts, 1, memory_order_relaxed);
	}
	return e;
}

/* `first`: the result of a trylock the caller already made, or -1. */
static int lock_common(struct ls_stats_thread *t, const struct blocking_call *k, uintptr_t site,
                       int first)
{
	uint32_t slot = mutex_slot(k->m, site, true);
	if (UNLIKELY(!slot))
		return first == EBUSY ? block_on(k) : first >= 0 ? first : block_on(k);
	bool hold = first < 0 && hold_sampled(t);
	uint64_t pre = hold ? ls_stats_now() : 0; /* before: outside the critical section */
	int e = first >= 0 ? first : ls_mutex_trylock_direct(k->m);
	if (LIKELY(got_it(e))) {
		acquired(t, slot, k->m, site, pre);
		return e;
	}
	if (e != EBUSY)
		return e;
	return contended(t, slot, k, site, hold);
}

/* The signal helper thread starts on a lock call from the program's own
 * code (stats_dump.c): checked on the paths that are not the fast one. */
static inline void maybe_start_helper(uintptr_t site)
{
	if (UNLIKELY(atomic_load_explicit(&ls_stats_helper_wanted, memory_order_relaxed)))
		ls_stats_helper_maybe_start(site);
}

static __attribute__((noinline)) int lock_slow(pthread_mutex_t *m, uintptr_t site, int first)
{
	maybe_start_helper(site);
	struct ls_stats_thread *t = me();
	struct blocking_call k = { .m = m };
	if (!t)
		return first == EBUSY || first < 0 ? ls_mutex_lock_direct(m) : first;
	return lock_common(t, &k, site, first);
}

/* The uncontended path, kept small: a thread with a block, a mutex with a
 * record, no hold sample due, and the trylock succeeds. */
#define CALLER() ((uintptr_t)__builtin_return_address(0))

int ls_stats_mutex_lock(pthread_mutex_t *m)
{
	uintptr_t site = CALLER();
	struct ls_stats_thread *t = ls_stats_me;
	if (LIKELY(t && !ls_stats_busy && t->hold_left > 1)) {
		uint32_t slot = mutex_slot(m, site, false);
		if (LIKELY(slot)) {
			int e = ls_mutex_trylock_direct(m);
			if (LIKELY(e == 0)) {
				t->hold_left--;
				acquired(t, slot, m, site, 0);
				return 0;
			}
			return lock_slow(m, site, e);
		}
	}
	return lock_slow(m, site, -1);
}

int ls_stats_mutex_timed(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime,
                         int is_clocklock)
{
	uintptr_t site = CALLER();
	struct ls_stats_thread *t = me();
	/* An unsupported clock is EINVAL even when the mutex is free. */
	if (!t || (is_clocklock && !ls_clock_supported(clock)))
		return ls_mutex_timed_direct(m, clock, abstime, is_clocklock);
	struct blocking_call k = { .m = m, .abstime = abstime, .clock = clock,
	                           .is_clocklock = is_clocklock };
	return lock_common(t, &k, site, -1);
}

int ls_stats_mutex_trylock(pthread_mutex_t *m)
{
	uintptr_t site = CALLER();
	struct ls_stats_thread *t = me();
	uint32_t slot;
	if (!t || !(slot = mutex_slot(m, site, true)))
		return ls_mutex_trylock_direct(m);
	bool hold = hold_sampled(t);
	uint64_t pre = hold ? ls_stats_now() : 0;
	int e = ls_mutex_trylock_direct(m);
	if (got_it(e))
		acquired(t, slot, m, site, pre);
	else if (e == EBUSY)
		ls_stats_bump(&counts(t, slot)->c[LS_C_TRYFAIL]);
	return e;
}

/* A sampled waiter asked for the holder's stack: publish it before the
 * release (the release orders it before the waiter's acquisition). */
/* Claim a pending request for the holder's stack (answered after the
 * release, by answer_stack_request). */
static struct ls_stats_lock *stack_requested(uint32_t slot)
{
	struct ls_stats_lock *r = ls_stats_rec(slot);
	if (LIKELY(!atomic_load_explicit(&r->want_holder_stack, memory_order_relaxed)))
		return NULL;
	if (!atomic_exchange_explicit(&r->want_holder_stack, 0, memory_order_relaxed))
		return NULL;
	atomic_fetch_sub_explicit(&want_pending, 1, memory_order_relaxed);
	return r;
}

static void answer_stack_request(struct ls_stats_thread *t, struct ls_stats_lock *r, uintptr_t site)
{
	uint32_t id = ls_stats_stack_capture(t, site);
	if (id)
		atomic_store_explicit(&r->holder_stack, id, memory_order_release);
}

static __attribute__((noinline)) int unlock_slow(struct ls_stats_thread *t, pthread_mutex_t *m,
                                                 uintptr_t site)
{
	uint32_t slot = mutex_slot(m, site, false);
	struct ls_stats_lock *asked = slot ? stack_requested(slot) : NULL;
	uint32_t hslot = 0;
	uint64_t t0 = t->nheld ? hold_take(t, m, &hslot) : 0;
	int e = ls_mutex_unlock_direct(m);
	/* After the release: neither the clock nor the unwinder widens the
	 * critical section. */
	if (UNLIKELY(t0) && e == 0)
		ls_stats_timing_add(&ls_stats_rec(hslot)->hold, ls_stats_now() - t0);
	if (UNLIKELY(asked))
		answer_stack_request(t, asked, site);
	return e;
}

/* Nothing to do at unlock unless a hold sample is open in this thread or
 * a waiter somewhere asked for a holder's stack. */
int ls_stats_mutex_unlock(pthread_mutex_t *m)
{
	struct ls_stats_thread *t = ls_stats_me;
	if (LIKELY(!t || ls_stats_busy ||
	           (!t->nheld && !atomic_load_explicit(&want_pending, memory_order_relaxed))))
		return ls_mutex_unlock_direct(m);
	return unlock_slow(t, m, CALLER());
}

static void forget(_Atomic uint32_t *field, void *obj, unsigned type)
{
	if (!ls_stats_setup())
		return;
	uint32_t s = atomic_load_explicit(field, memory_order_relaxed);
	if (key_is(s, (uintptr_t)obj | type))
		atomic_store_explicit(&ls_stats_rec(s)->destroyed, 1, memory_order_relaxed);
	ls_stats_addr_forget(obj);
}

void ls_stats_mutex_forget(pthread_mutex_t *m)
{
	forget(&ls_mutex_of(m)->stats, m, LS_REC_MUTEX);
}

/* ---- condvar ---- */

void ls_stats_cond_forget(pthread_cond_t *c)
{
	forget(&((struct ls_condvar *)(void *)c)->stats, c, LS_REC_COND);
}

int ls_stats_cond_signal(pthread_cond_t *c, int broadcast)
{
	uintptr_t site = CALLER();
	struct ls_stats_thread *t = me();
	uint32_t slot;
	maybe_start_helper(site);
	if (t && (slot = cond_slot(c, site, true)))
		ls_stats_bump(&counts(t, slot)->c[broadcast ? LS_C_BROADCAST : LS_C_SIGNAL]);
	return broadcast ? ls_cond_broadcast_direct(c) : ls_cond_signal_direct(c);
}

static int wait_direct(pthread_cond_t *c, pthread_mutex_t *m, enum ls_stats_cond_call call,
                       clockid_t clock, const struct timespec *abstime)
{
	switch (call) {
	case LS_COND_TIMEDWAIT: return ls_cond_timedwait_direct(c, m, abstime);
	case LS_COND_CLOCKWAIT: return ls_cond_clockwait_direct(c, m, clock, abstime);
	default: return ls_cond_wait_direct(c, m);
	}
}

static void note_mutex(uint32_t cslot, uint32_t mslot)
{
	struct ls_stats_lock *r = ls_stats_rec(cslot);
	uint32_t seen = atomic_load_explicit(&r->cond_mutex, memory_order_relaxed);
	if (seen == mslot)
		return;
	if (seen)
		atomic_store_explicit(&r->cond_mixed, 1, memory_order_relaxed);
	atomic_store_explicit(&r->cond_mutex, mslot, memory_order_relaxed);
}

int ls_stats_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, enum ls_stats_cond_call call,
                       clockid_t clock, const struct timespec *abstime)
{
	uintptr_t where = CALLER();
	struct ls_stats_thread *t = me();
	maybe_start_helper(where);
	if (!t)
		return wait_direct(c, m, call, clock, abstime);
	uint32_t cslot = cond_slot(c, where, true);
	uint32_t mslot = mutex_slot(m, where, true);
	if (cslot && mslot)
		note_mutex(cslot, mslot);
	/* The wait releases the mutex: its hold sample ends here. */
	uint32_t hslot = 0;
	uint64_t h0 = t->nheld ? hold_take(t, m, &hslot) : 0;
	bool timed = cslot && --t->cond_left == 0;
	if (timed)
		t->cond_left = ls_stats_period(t);
	uint64_t t0 = (timed || h0) ? ls_stats_now() : 0;
	if (h0)
		ls_stats_timing_add(&ls_stats_rec(hslot)->hold, t0 - h0);
	int e = wait_direct(c, m, call, clock, abstime);
	bool back = got_it(e) || e == ETIMEDOUT; /* the mutex is held again */
	bool hold = back && mslot && hold_sampled(t);
	uint64_t t1 = (timed || hold) ? ls_stats_now() : 0;
	if (cslot && back) {
		struct ls_stats_count *cc = counts(t, cslot);
		ls_stats_bump(&cc->c[LS_C_WAIT]);
		if (e == ETIMEDOUT)
			ls_stats_bump(&cc->c[LS_C_TIMEOUT]);
		if (timed)
			ls_stats_timing_add(&ls_stats_rec(cslot)->wait, t1 - t0);
	}
	if (mslot && back)
		acquired(t, mslot, m, where, hold ? t1 : 0);
	return e;
}
