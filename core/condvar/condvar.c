#include "condvar.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include "../runtime/wait.h"
#include "morph.h"
#include "../runtime/timespec.h"

/* Internal lock states (low two bits of cv->lock). */
enum { LOCK_FREE = 0, LOCK_HELD = 1, LOCK_PARKED = 2 };
#define EPOCH_SHIFT 2

__thread void *ls_cv_held;

static inline uint32_t epoch_bits(void)
{
	/* acquire: pairs with the release increment in ls_thread_after_fork
	 * (same thread in practice; cheap either way). */
	return atomic_load_explicit(&ls_fork_epoch, memory_order_acquire) << EPOCH_SHIFT;
}

/* Take the queue lock; returns the epoch base to pass to queue_unlock.
 * Critical sections under it are a few pointer updates, so waiters spin
 * while the waiting policy allows (core/runtime/wait.h), then park. */
static uint32_t queue_lock(struct ls_condvar *cv)
{
	uint32_t e = epoch_bits();
	uint32_t take = e | LOCK_HELD;
	bool spun = false;
	for (;;) {
		uint32_t w = atomic_load_explicit(&cv->lock, memory_order_relaxed);
		if ((w & ~3u) != e) {
			/* Built before a fork: discard the queue with the lock. */
			if (atomic_compare_exchange_weak_explicit(&cv->lock, &w, take,
			                                          memory_order_acquire, memory_order_relaxed)) {
				atomic_store_explicit(&cv->head, NULL, memory_order_relaxed);
				cv->tail = NULL;
				return e;
			}
			continue;
		}
		if ((w & 3) == LOCK_FREE) {
			if (atomic_compare_exchange_weak_explicit(&cv->lock, &w, take,
			                                          memory_order_acquire, memory_order_relaxed))
				return e;
			continue;
		}
		if (!spun) {
			spun = true;
			if (LS_SPIN_UNTIL(cv, (atomic_load_explicit(&cv->lock, memory_order_relaxed) &
			                       3) == LOCK_FREE))
				continue;
		}
		/* Parked lockers take the lock as PARKED from then on, since
		 * others may still sleep behind them. */
		take = e | LOCK_PARKED;
		if ((w & 3) == LOCK_HELD &&
		    !atomic_compare_exchange_weak_explicit(&cv->lock, &w, e | LOCK_PARKED,
		                                           memory_order_relaxed, memory_order_relaxed))
			continue;
		ls_park_uncancellable(&cv->lock, e | LOCK_PARKED, CLOCK_MONOTONIC, NULL);
	}
}

static void queue_unlock(struct ls_condvar *cv, uint32_t e)
{
	/* release: publishes the queue updates to the next locker. */
	if ((atomic_exchange_explicit(&cv->lock, e | LOCK_FREE, memory_order_release) & 3) == LOCK_PARKED)
		ls_unpark(&cv->lock, 1);
}

static void unlink_waiter(struct ls_condvar *cv, struct ls_thread *t)
{
	struct ls_thread *head = atomic_load_explicit(&cv->head, memory_order_relaxed);
	if (t->cv_prev)
		t->cv_prev->cv_next = t->cv_next;
	else
		head = t->cv_next;
	if (t->cv_next)
		t->cv_next->cv_prev = t->cv_prev;
	else
		cv->tail = t->cv_prev;
	atomic_store_explicit(&cv->head, head, memory_order_relaxed);
	t->cv_next = t->cv_prev = NULL;
	t->cv_owner = NULL;
}

void ls_condvar_enqueue(struct ls_condvar *cv, struct ls_thread *self)
{
	self->cv_wake_next = NULL;
	self->cv_broadcast = 0;
	atomic_store_explicit(&self->cv_morphed, 0, memory_order_relaxed);
	atomic_store_explicit(&self->event, LS_CV_WAITING, memory_order_relaxed);
	uint32_t e = queue_lock(cv);
	self->cv_next = NULL;
	self->cv_prev = cv->tail;
	if (cv->tail)
		cv->tail->cv_next = self;
	else
		atomic_store_explicit(&cv->head, self, memory_order_relaxed);
	cv->tail = self;
	self->cv_owner = cv;
	queue_unlock(cv, e);
}

/* WAITING -> ABANDONED; on success also unlink (if no signaller did). */
static int try_abandon(struct ls_condvar *cv, struct ls_thread *self)
{
	uint32_t w = LS_CV_WAITING;
	if (!atomic_compare_exchange_strong_explicit(&self->event, &w, LS_CV_ABANDONED,
	                                             memory_order_acquire, memory_order_acquire))
		return 0;
	/* Still "blocked" in POSIX terms, so the cond is alive. */
	uint32_t e = queue_lock(cv);
	if (self->cv_owner == cv)
		unlink_waiter(cv, self);
	queue_unlock(cv, e);
	return 1;
}

/* A broadcaster holds us CLAIMED for a few stores under its lock. */
static uint32_t await_claim_end(struct ls_thread *self)
{
	uint32_t s;
	while ((s = atomic_load_explicit(&self->event, memory_order_acquire)) == LS_CV_CLAIMED)
		ls_sys_yield();
	return s;
}

int ls_condvar_wait(struct ls_condvar *cv, struct ls_thread *self, clockid_t clock,
                    const struct timespec *abstime)
{
	bool expired = abstime && ls_timespec_negative(abstime);
	for (;;) {
		/* acquire: pairs with the signaller's release store of SIGNALLED,
		 * making cv_wake_next and cv_broadcast visible. */
		uint32_t s = atomic_load_explicit(&self->event, memory_order_acquire);
		if (s == LS_CV_SIGNALLED)
			return 0;
		if (s == LS_CV_CLAIMED) {
			await_claim_end(self);
			continue;
		}
		if (expired) {
			if (try_abandon(cv, self))
				return ETIMEDOUT;
			continue;
		}
		if (ls_park_cancel_point(&self->event, LS_CV_WAITING, clock, abstime) == ETIMEDOUT)
			expired = true;
	}
}

void ls_condvar_leave(struct ls_condvar *cv, struct ls_thread *self)
{
	if (try_abandon(cv, self))
		return;
	if (await_claim_end(self) != LS_CV_SIGNALLED)
		return;
	/* We consumed a wake-up we will not act on: hand it on. */
	if (self->cv_broadcast)
		ls_condvar_pass_baton(self);
	else
		ls_condvar_signal(cv);
}

/* How a waiter is woken (morph.h): moved asleep to `to`, its lock's park
 * word, or, with `to` NULL, woken on its own event. */
struct wake_plan {
	_Atomic uint32_t *to;
	void *lock;
	const struct ls_cv_morph *ops;
};

/* Plan t's wake-up before t is published SIGNALLED (from then on it may
 * return and reuse its record): a move when the calling thread holds t's
 * lock and that lock has a park word, else a wake; t's flag says which
 * (morph.h, step 1).  A waiter whose lock is the caller's cannot begin
 * another wait meanwhile: it has to take that lock back first. */
static struct wake_plan plan_wake(struct ls_thread *t)
{
	struct wake_plan p = {
		.lock = atomic_load_explicit(&t->cv_lock, memory_order_relaxed),
		.ops = atomic_load_explicit(&t->cv_morph, memory_order_relaxed),
	};
	if (p.lock && p.lock == ls_cv_held && p.ops)
		p.to = p.ops->park_word(p.lock);
	atomic_store_explicit(&t->cv_morphed, p.to != NULL, memory_order_relaxed);
	return p;
}

/* Carry out plan_wake's plan for t, signalled: a wake, or a move and then
 * the mark of the lock, which the caller holds (morph.h, steps 2 and 3:
 * moved first, marked after). */
static void wake_or_move(struct ls_thread *t, struct wake_plan p)
{
	if (!p.to) {
		ls_unpark(&t->event, 1);
		return;
	}
	/* Nothing moved: it was not asleep, and runs on its own. */
	if (ls_unpark_to(&t->event, LS_CV_SIGNALLED, p.to) > 0 && !p.ops->mark_parked(p.lock))
		ls_unpark(p.to, 1); /* free after all: a hint gone stale */
}

void ls_condvar_pass_baton(struct ls_thread *self)
{
	struct ls_thread *next = self->cv_wake_next;
	if (!next)
		return;
	self->cv_wake_next = NULL;
	/* The caller took its mutex back: the next waiter, when it waits for
	 * the same one, is moved to it rather than woken to find it held. */
	wake_or_move(next, plan_wake(next));
}

int ls_condvar_signal(struct ls_condvar *cv)
{
	/* No waiter, no work.  A waiter enqueues before releasing its mutex,
	 * so a signaller that changed the predicate under that mutex sees it. */
	if (!atomic_load_explicit(&cv->head, memory_order_relaxed))
		return 0;
	struct ls_thread *woken = NULL;
	struct wake_plan plan;
	uint32_t e = queue_lock(cv);
	struct ls_thread *t;
	while (!woken && (t = atomic_load_explicit(&cv->head, memory_order_relaxed))) {
		unlink_waiter(cv, t);
		/* The flag is published by the release CAS (a waiter reads
		 * it only once SIGNALLED), and taken back under the queue lock
		 * if the waiter abandoned (its leave takes the lock after us). */
		plan = plan_wake(t);
		uint32_t w = LS_CV_WAITING;
		/* release: the waiter's acquire load sees a complete record. */
		if (atomic_compare_exchange_strong_explicit(&t->event, &w, LS_CV_SIGNALLED,
		                                            memory_order_release, memory_order_relaxed)) {
			woken = t;
		} else {
			/* ABANDONED: it is leaving on its own; skip it. */
			atomic_store_explicit(&t->cv_morphed, 0, memory_order_relaxed);
		}
	}
	queue_unlock(cv, e);
	if (!woken)
		return 0;
	wake_or_move(woken, plan);
	return 1;
}

void ls_condvar_morphed(struct ls_thread *self)
{
	if (!atomic_load_explicit(&self->cv_morphed, memory_order_relaxed))
		return;
	atomic_store_explicit(&self->cv_morphed, 0, memory_order_relaxed);
	/* Before the caller takes its lock back: the wake it may have
	 * consumed is owed to the word's other sleepers (morph.h, step 4). */
	atomic_load_explicit(&self->cv_morph, memory_order_relaxed)
	        ->woken(atomic_load_explicit(&self->cv_lock, memory_order_relaxed));
}

int ls_condvar_broadcast(struct ls_condvar *cv)
{
	if (!atomic_load_explicit(&cv->head, memory_order_relaxed))
		return 0;
	struct ls_thread *first = NULL, *last = NULL, *t;
	int n = 0;
	uint32_t e = queue_lock(cv);
	/* Phase 1: claim every live waiter and link the baton chain. */
	while ((t = atomic_load_explicit(&cv->head, memory_order_relaxed))) {
		unlink_waiter(cv, t);
		uint32_t w = LS_CV_WAITING;
		if (!atomic_compare_exchange_strong_explicit(&t->event, &w, LS_CV_CLAIMED,
		                                             memory_order_relaxed, memory_order_relaxed))
			continue;
		t->cv_wake_next = NULL;
		t->cv_broadcast = 1;
		if (last)
			last->cv_wake_next = t;
		else
			first = t;
		last = t;
		n++;
	}
	/* The first, when the caller holds its lock, is moved to it: planned
	 * before its SIGNALLED. */
	struct wake_plan plan = { 0 };
	if (first)
		plan = plan_wake(first);
	/* Phase 2: publish.  Read the link before the release store: once
	 * SIGNALLED, the waiter may return and reuse its record. */
	for (t = first; t;) {
		struct ls_thread *next = t->cv_wake_next;
		atomic_store_explicit(&t->event, LS_CV_SIGNALLED, memory_order_release);
		t = next;
	}
	queue_unlock(cv, e);
	if (first)
		wake_or_move(first, plan);
	return n;
}
