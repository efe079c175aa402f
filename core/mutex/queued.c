#include "queued.h"

#include <sched.h>

#include "../runtime/wait.h"
#include "../runtime/thread.h"
#include "../runtime/timespec.h"

_Atomic unsigned ls_queued_fair_us;

static uint32_t head_of(uint64_t w)
{
	return (uint32_t)((w & LS_QUEUED_HEAD_MASK) >> LS_QUEUED_HEAD_SHIFT);
}

/* A list (or QLOCKED) left over from before a fork. */
static bool stale(uint64_t w)
{
	return (w & (LS_QUEUED_HEAD_MASK | LS_QUEUED_QLOCKED)) &&
	       ((w & LS_QUEUED_EPOCH_MASK) >> LS_QUEUED_EPOCH_SHIFT) != ls_epoch_now(8);
}

/* Link fields are only touched under QLOCKED (or by the owner before it
 * publishes its record), so relaxed accesses suffice: QLOCKED's
 * acquire/release and the push CAS order them. */
static struct ls_thread *older(struct ls_thread *t)
{
	return atomic_load_explicit(&t->q_next, memory_order_relaxed);
}
static struct ls_thread *newer(struct ls_thread *t)
{
	return atomic_load_explicit(&t->q_prev, memory_order_relaxed);
}
static void set_older(struct ls_thread *t, struct ls_thread *v)
{
	atomic_store_explicit(&t->q_next, v, memory_order_relaxed);
}
static void set_newer(struct ls_thread *t, struct ls_thread *v)
{
	atomic_store_explicit(&t->q_prev, v, memory_order_relaxed);
}
static struct ls_thread *cached_tail(struct ls_thread *t)
{
	return (struct ls_thread *)atomic_load_explicit(&t->q_word[LS_QUEUED_TAIL],
	                                                memory_order_relaxed);
}
static void set_tail(struct ls_thread *t, struct ls_thread *v)
{
	atomic_store_explicit(&t->q_word[LS_QUEUED_TAIL], (uintptr_t)v, memory_order_relaxed);
}

/* QLOCKED held.  Walk from the newest waiter towards the oldest, filling
 * in q_prev, until a node that caches the tail; cache it in head. */
static struct ls_thread *find_tail(struct ls_thread *head)
{
	struct ls_thread *n = head, *t;
	while (!(t = cached_tail(n))) {
		struct ls_thread *o = older(n);
		set_newer(o, n);
		n = o;
	}
	set_tail(head, t);
	return t;
}

static void signal_waiter(struct ls_thread *t, uint32_t ev)
{
	/* release: pairs with the waiter's acquire load of its event (and for
	 * HANDOFF, publishes our critical section to the new holder). */
	atomic_store_explicit(&t->event, ev, memory_order_release);
	ls_unpark(&t->event, 1);
}

/* QLOCKED held, *w current with waiters.  Unlink the oldest waiter and
 * release QLOCKED (LOCKED is kept as it is).  Returns the waiter, or NULL
 * if *w changed under us (reloaded; QLOCKED still held). */
static struct ls_thread *dequeue(struct ls_queued *l, uint64_t *w)
{
	struct ls_thread *head = ls_thread_by_id(head_of(*w));
	struct ls_thread *tail = find_tail(head);
	struct ls_thread *n = newer(tail);
	if (n) {
		set_tail(head, n);
		set_older(n, NULL);
		/* release: our list edits before the next QLOCKED holder. */
		atomic_fetch_and_explicit(&l->word, ~LS_QUEUED_QLOCKED, memory_order_release);
		return tail;
	}
	/* The only waiter: empty the list and drop QLOCKED in one CAS. */
	if (atomic_compare_exchange_strong_explicit(&l->word, w, *w & LS_QUEUED_LOCKED,
	                                            memory_order_release, memory_order_acquire))
		return tail;
	return NULL;
}

/* QLOCKED held.  Release it; but if the lock is free and waiters exist,
 * first wake the oldest (an unlock may have skipped that because we held
 * QLOCKED). */
static void qlock_release(struct ls_queued *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_acquire);
	for (;;) {
		if (!head_of(w) || (w & LS_QUEUED_LOCKED)) {
			uint64_t nw = w & ~LS_QUEUED_QLOCKED;
			if (!head_of(w))
				nw &= ~LS_QUEUED_EPOCH_MASK;
			if (atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_release,
			                                          memory_order_acquire))
				return;
			continue;
		}
		struct ls_thread *t = dequeue(l, &w);
		if (t) {
			signal_waiter(t, LS_QUEUED_WOKEN);
			return;
		}
	}
}

/* After an unlock that left waiters: take QLOCKED if nobody has it and the
 * lock is still free, and wake the oldest waiter. */
static void wake_one(struct ls_queued *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		if (!head_of(w) || (w & (LS_QUEUED_QLOCKED | LS_QUEUED_LOCKED)) || stale(w))
			return;
		/* acquire: pairs with the release of the previous QLOCKED holder. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_QUEUED_QLOCKED,
		                                          memory_order_acquire, memory_order_relaxed))
			break;
	}
	qlock_release(l);
}

/* QLOCKED and LOCKED held, fair mode: give the lock to the oldest waiter
 * if it has waited long enough.  On success QLOCKED is released. */
static bool handoff(struct ls_queued *l, unsigned fair_us)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_acquire);
	struct ls_thread *tail = find_tail(ls_thread_by_id(head_of(w)));
	uint64_t t0 = atomic_load_explicit(&tail->q_word[LS_QUEUED_T0], memory_order_relaxed);
	if (ls_now_ns(CLOCK_MONOTONIC) - t0 < (uint64_t)fair_us * 1000u)
		return false;
	struct ls_thread *t;
	while (!(t = dequeue(l, &w)))
		;
	signal_waiter(t, LS_QUEUED_HANDOFF);
	return true;
}

static void release_queued(struct ls_queued *l)
{
	unsigned fair = atomic_load_explicit(&ls_queued_fair_us, memory_order_relaxed);
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		if (stale(w)) {
			/* Held by the forking thread; every waiter is dead. */
			if (atomic_compare_exchange_weak_explicit(&l->word, &w, 0, memory_order_release,
			                                          memory_order_relaxed))
				return;
			continue;
		}
		if (fair && head_of(w) && !(w & LS_QUEUED_QLOCKED)) {
			if (!atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_QUEUED_QLOCKED,
			                                           memory_order_acquire,
			                                           memory_order_relaxed))
				continue;
			if (handoff(l, fair))
				return;
			/* release: publishes the critical section. */
			atomic_fetch_and_explicit(&l->word, ~LS_QUEUED_LOCKED, memory_order_release);
			qlock_release(l);
			return;
		}
		/* release: publishes the critical section. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, w & ~LS_QUEUED_LOCKED,
		                                          memory_order_release, memory_order_relaxed))
			break;
	}
	if (head_of(w) && !(w & LS_QUEUED_QLOCKED))
		wake_one(l);
}

/* Take QLOCKED to edit a list we are in.  False if the list is empty (then
 * we are not in it).  QLOCKED is held for a few list edits; we spin
 * spin while the policy allows, then yield between polls (its holder may have been
 * preempted). */
static bool qlock_acquire(struct ls_queued *l)
{
	bool spun = false;
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		if (!head_of(w))
			return false;
		if (!(w & LS_QUEUED_QLOCKED)) {
			if (atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_QUEUED_QLOCKED,
			                                          memory_order_acquire,
			                                          memory_order_relaxed))
				return true;
			continue;
		}
		if (spun ||
		    !LS_SPIN_UNTIL(l, !(atomic_load_explicit(&l->word, memory_order_relaxed) &
		                        LS_QUEUED_QLOCKED)))
			ls_sys_yield();
		spun = true;
		w = atomic_load_explicit(&l->word, memory_order_relaxed);
	}
}

/* Timed out: unlink self if still queued.  False if an unlock dequeued us
 * first (our event is, or is about to be, WOKEN or HANDOFF). */
static bool remove_self(struct ls_queued *l, struct ls_thread *self)
{
	if (!qlock_acquire(l))
		return false;
	for (;;) {
		uint64_t w = atomic_load_explicit(&l->word, memory_order_acquire);
		struct ls_thread *head = ls_thread_by_id(head_of(w));
		struct ls_thread *p = NULL, *last = NULL;
		bool found = false;
		/* Full walk: fix every q_prev, find ourselves and the tail. */
		for (struct ls_thread *n = head; n; p = n, n = older(n)) {
			set_newer(n, p);
			found |= n == self;
			last = n;
		}
		if (!found) {
			qlock_release(l);
			return false;
		}
		struct ls_thread *pv = newer(self), *nx = older(self);
		if (!pv) {
			/* We are the newest: swing head (a concurrent push makes
			 * the CAS fail; walk again). */
			uint64_t nw = nx ? (w & ~LS_QUEUED_HEAD_MASK) |
			                           ((uint64_t)nx->id << LS_QUEUED_HEAD_SHIFT)
			                 : w & ~LS_QUEUED_HEAD_MASK;
			if (!atomic_compare_exchange_strong_explicit(&l->word, &w, nw,
			                                             memory_order_relaxed,
			                                             memory_order_relaxed))
				continue;
			if (nx) {
				set_newer(nx, NULL);
				set_tail(nx, last);
			}
		} else {
			set_older(pv, nx);
			if (nx)
				set_newer(nx, pv);
			set_tail(head, last == self ? pv : last);
		}
		qlock_release(l);
		return true;
	}
}

/* Wait until our event leaves WAITING.  Returns it, or 0 on timeout. */
static uint32_t park(struct ls_thread *self, clockid_t clock, const struct timespec *abstime)
{
	uint32_t ev;
	/* acquire loads pair with signal_waiter's release store. */
	if (LS_SPIN_UNTIL(self, (ev = atomic_load_explicit(&self->event, memory_order_acquire)) !=
	                                LS_QUEUED_WAITING))
		return ev;
	for (;;) {
		if ((ev = atomic_load_explicit(&self->event, memory_order_acquire)) != LS_QUEUED_WAITING)
			return ev;
		if (ls_park(&self->event, LS_QUEUED_WAITING, clock, abstime) == ETIMEDOUT) {
			ev = atomic_load_explicit(&self->event, memory_order_acquire);
			return ev != LS_QUEUED_WAITING ? ev : 0;
		}
	}
}

/* Dequeued by an unlock (so our event is about to say how): wait for it. */
static uint32_t await_dequeued(struct ls_thread *self)
{
	uint32_t ev;
	while ((ev = atomic_load_explicit(&self->event, memory_order_acquire)) == LS_QUEUED_WAITING)
		ls_park_uncancellable(&self->event, LS_QUEUED_WAITING, CLOCK_MONOTONIC, NULL);
	return ev;
}

struct leave_ctx {
	struct ls_queued *l;
	struct ls_thread *self;
};

/* Cancelled while queued: leave as a timeout does.  If an unlock dequeued
 * us first, we either own the lock (HANDOFF) or consumed the wake meant
 * for the next waiter (WOKEN): either way, taking and releasing the lock
 * passes it on (the unlock wakes the next waiter); if it is held, its
 * holder's unlock does that. */
static void leave_queue(void *arg)
{
	struct leave_ctx *c = arg;
	if (remove_self(c->l, c->self))
		return;
	if (await_dequeued(c->self) == LS_QUEUED_HANDOFF || ls_queued_trylock(c->l) == 0)
		ls_queued_unlock(c->l);
}

/* One poll of a newcomer: true to stop (the lock looks free, or a waiter
 * queued meanwhile). */
static bool newcomer_done(struct ls_queued *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	return !(w & LS_QUEUED_LOCKED) || (head_of(w) && !stale(w));
}

int ls_queued_lock_slow(struct ls_queued *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_queued_trylock(l) == 0 ? 0 : ETIMEDOUT;
	struct ls_thread *self = ls_thread_self();
	if (!self) {
		/* No record (out of memory): poll, yielding between polls. */
		while (ls_queued_trylock(l) != 0) {
			if (ls_timespec_passed(clock, abstime))
				return ETIMEDOUT;
			ls_sys_yield();
		}
		return 0;
	}
	unsigned fair = atomic_load_explicit(&ls_queued_fair_us, memory_order_relaxed);
	uint64_t t0 = 0;
	bool spun = false;
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx ctx = { l, self };
	int r;
	ls_wait_enter(&sc);
	for (;;) {
		uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
		if (!(w & LS_QUEUED_LOCKED)) {
			/* acquire: pairs with the release that cleared LOCKED. */
			if (atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_QUEUED_LOCKED,
			                                          memory_order_acquire,
			                                          memory_order_relaxed)) {
				r = 0;
				break;
			}
			continue;
		}
		bool old = stale(w), fresh = old || !head_of(w);
		/* Spin (waiting policy) only while nobody is queued: otherwise
		 * we would barge past parked waiters. */
		if (!spun && fresh) {
			spun = true;
			if (LS_SPIN_UNTIL(l, newcomer_done(l)))
				continue;
		}
		if (fair && !t0)
			t0 = ls_now_ns(CLOCK_MONOTONIC);
		set_older(self, fresh ? NULL : ls_thread_by_id(head_of(w)));
		set_newer(self, NULL);
		set_tail(self, fresh ? self : NULL);
		atomic_store_explicit(&self->q_word[LS_QUEUED_T0], t0, memory_order_relaxed);
		atomic_store_explicit(&self->event, LS_QUEUED_WAITING, memory_order_relaxed);
		uint64_t nw = ((uint64_t)self->id << LS_QUEUED_HEAD_SHIFT) | (w & LS_QUEUED_LOCKED);
		if (fresh)
			nw |= (old ? 0 : w & LS_QUEUED_QLOCKED) | ((uint64_t)ls_epoch_now(8) << LS_QUEUED_EPOCH_SHIFT);
		else
			nw |= w & ~LS_QUEUED_HEAD_MASK;
		/* release: publishes our links to the QLOCKED holder. */
		if (!atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_release,
		                                           memory_order_relaxed))
			continue;
		ls_wait_push(&f, leave_queue, &ctx);
		uint32_t ev = park(self, clock, abstime);
		ls_wait_pop(&f);
		bool expired = ev == 0;
		if (expired) {
			if (remove_self(l, self)) {
				r = ETIMEDOUT;
				break;
			}
			ev = await_dequeued(self);
		}
		if (ev == LS_QUEUED_HANDOFF) {
			r = 0;
			break;
		}
		/* WOKEN: the lock was released; compete again.  If we timed out
		 * meanwhile, one try: if the lock is held, its holder's unlock
		 * wakes the next waiter in our place. */
		if (expired) {
			r = ls_queued_trylock(l) == 0 ? 0 : ETIMEDOUT;
			break;
		}
		spun = false;
	}
	ls_wait_exit(&sc);
	return r;
}

/* Uncut by asynchronous cancellation (core/runtime/wait.h): a release cut while
 * it holds QLOCKED would block every later waiter. */
void ls_queued_unlock_slow(struct ls_queued *l)
{
	struct ls_wait_scope sc;
	ls_wait_enter_quiet(&sc);
	release_queued(l);
	ls_wait_exit(&sc);
}
