#include "mcs.h"

#include <sched.h>

#include "qnode.h"
#include "spin.h"
#include "thread.h"
#include "timespec.h"

static uint32_t tail_of(uint32_t w) { return w >> LS_MCS_TAIL_SHIFT; }

static uint32_t epoch_now(void)
{
	return atomic_load_explicit(&ls_fork_epoch, memory_order_relaxed);
}

void ls_mcs_unlock_slow(struct ls_mcs *l)
{
	/* release: publishes the critical section to the head. */
	uint32_t w = atomic_fetch_and_explicit(&l->word, ~(LS_MCS_LOCKED | LS_MCS_PARKED),
	                                       memory_order_release);
	if (w & LS_MCS_PARKED)
		ls_futex_wake(&l->word, 1);
}

/* Free, or unlocked with a queue left over from before a fork. */
int ls_mcs_trylock_slow(struct ls_mcs *l)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		if (w & LS_MCS_LOCKED)
			return EBUSY;
		if (tail_of(w)) {
			struct ls_qnode *t = ls_qnode_by_id(tail_of(w));
			if (atomic_load_explicit(&t->epoch, memory_order_relaxed) == epoch_now())
				return EBUSY; /* a live queue: its head goes first */
		}
		/* acquire: pairs with the release in unlock. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, LS_MCS_LOCKED,
		                                          memory_order_acquire, memory_order_relaxed))
			return 0;
	}
}

/* Hand the head role to node `id`, passing through abandoned nodes.  The
 * caller either holds the lock or is a timed-out head leaving. */
static void promote(struct ls_mcs *l, uint32_t id)
{
	for (;;) {
		struct ls_qnode *n = ls_qnode_by_id(id);
		uint32_t s = atomic_load_explicit(&n->state, memory_order_relaxed);
		if (s == LS_MCS_WAITING || s == LS_MCS_SLEEPING) {
			/* release: pairs with the waiter's acquire load of HEAD. */
			if (atomic_compare_exchange_strong_explicit(&n->state, &s, LS_MCS_HEAD,
			                                            memory_order_release,
			                                            memory_order_relaxed)) {
				if (s == LS_MCS_SLEEPING)
					ls_futex_wake(&n->state, 1);
				return;
			}
			continue;
		}
		/* ABANDONED: its owner is gone; leave in its place. */
		uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
		while (tail_of(w) == id) {
			/* Last node: empty the queue (PARKED could only be ours). */
			if (atomic_compare_exchange_weak_explicit(&l->word, &w, w & LS_MCS_LOCKED,
			                                          memory_order_relaxed,
			                                          memory_order_relaxed)) {
				ls_qnode_put(n);
				return;
			}
		}
		id = ls_qnode_wait_link(n);
		ls_qnode_put(n);
	}
}

/* Waiting for promotion.  Returns 0 (now head), ETIMEDOUT (node abandoned,
 * we are out), or EAGAIN (timed out but promoted: leave as head). */
static int wait_turn(struct ls_qnode *n, clockid_t clock, const struct timespec *abstime)
{
	/* acquire loads of HEAD pair with the release CAS in promote. */
	for (unsigned i = ls_spin_bound(); i; i--) {
		if (atomic_load_explicit(&n->state, memory_order_acquire) == LS_MCS_HEAD)
			return 0;
		ls_cpu_relax();
	}
	bool expired = false;
	for (;;) {
		uint32_t s = atomic_load_explicit(&n->state, memory_order_acquire);
		if (s == LS_MCS_HEAD)
			return expired ? EAGAIN : 0;
		if (expired) {
			if (atomic_compare_exchange_strong_explicit(&n->state, &s, LS_MCS_ABANDONED,
			                                            memory_order_acquire,
			                                            memory_order_acquire))
				return ETIMEDOUT;
			continue;
		}
		if (s == LS_MCS_WAITING &&
		    !atomic_compare_exchange_strong_explicit(&n->state, &s, LS_MCS_SLEEPING,
		                                             memory_order_acquire,
		                                             memory_order_acquire))
			continue;
		if (ls_futex_wait(&n->state, LS_MCS_SLEEPING, clock, abstime) == ETIMEDOUT)
			expired = true;
	}
}

/* The head: take the lock when it is released, or (timed out) leave. */
static int head(struct ls_mcs *l, struct ls_qnode *n, clockid_t clock,
                const struct timespec *abstime, bool expired)
{
	uint32_t me = n->id;
	unsigned spins = ls_spin_bound();
	for (;;) {
		/* acquire: pairs with the release in unlock. */
		uint32_t w = atomic_load_explicit(&l->word, memory_order_acquire);
		if (!(w & LS_MCS_LOCKED)) {
			bool last = tail_of(w) == me;
			uint32_t nw = last ? LS_MCS_LOCKED : (w | LS_MCS_LOCKED) & ~LS_MCS_PARKED;
			if (!atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_acquire,
			                                           memory_order_relaxed))
				continue;
			uint32_t next = last ? 0 : ls_qnode_wait_link(n);
			ls_qnode_put(n);
			if (next)
				promote(l, next);
			return 0;
		}
		if (expired) {
			if (tail_of(w) == me) {
				if (atomic_compare_exchange_weak_explicit(&l->word, &w, w & LS_MCS_LOCKED,
				                                          memory_order_relaxed,
				                                          memory_order_relaxed)) {
					ls_qnode_put(n);
					return ETIMEDOUT;
				}
				continue;
			}
			uint32_t next = ls_qnode_wait_link(n);
			ls_qnode_put(n);
			promote(l, next);
			return ETIMEDOUT;
		}
		if (spins) {
			/* LOCKSWAP_SPIN polls before sleeping on the word. */
			spins--;
			ls_cpu_relax();
			continue;
		}
		if (!(w & LS_MCS_PARKED) &&
		    !atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_MCS_PARKED,
		                                           memory_order_relaxed, memory_order_relaxed))
			continue;
		if (ls_futex_wait(&l->word, w | LS_MCS_PARKED, clock, abstime) == ETIMEDOUT)
			expired = true;
	}
}

static bool past(clockid_t clock, const struct timespec *abstime)
{
	if (!abstime)
		return false;
	uint64_t d = (uint64_t)abstime->tv_sec * 1000000000u + (uint64_t)abstime->tv_nsec;
	return ls_now_ns(clock) >= d;
}

/* No node (out of memory): poll with trylock, yielding between polls. */
static int fallback(struct ls_mcs *l, clockid_t clock, const struct timespec *abstime)
{
	while (ls_mcs_trylock(l) != 0) {
		if (past(clock, abstime))
			return ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

int ls_mcs_lock_slow(struct ls_mcs *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_mcs_trylock(l) == 0 ? 0 : ETIMEDOUT;
	/* While nobody is queued, spin (LOCKSWAP_SPIN polls) for the word to
	 * become 0; once a queue exists, join it. */
	for (unsigned i = ls_spin_bound(); i; i--) {
		uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
		if (w == 0 && ls_mcs_trylock(l) == 0)
			return 0;
		if (tail_of(w))
			break;
		ls_cpu_relax();
	}
	struct ls_thread *self = ls_thread_self();
	struct ls_qnode *n = self ? ls_qnode_get(self) : NULL;
	if (!n)
		return fallback(l, clock, abstime);
	uint32_t e = epoch_now();
	atomic_store_explicit(&n->epoch, e, memory_order_relaxed);
	atomic_store_explicit(&n->state, LS_MCS_WAITING, memory_order_relaxed);
	/* acq_rel: release publishes the node's fields to whoever reads the
	 * tail; acquire lets us read the predecessor's epoch. */
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed), nw;
	do
		nw = (w & (LS_MCS_LOCKED | LS_MCS_PARKED)) | (n->id << LS_MCS_TAIL_SHIFT);
	while (!atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_acq_rel,
	                                              memory_order_relaxed));
	bool expired = false;
	if (tail_of(w)) {
		struct ls_qnode *p = ls_qnode_by_id(tail_of(w));
		if (atomic_load_explicit(&p->epoch, memory_order_relaxed) == e) {
			ls_qnode_link(p, n->id);
			int r = wait_turn(n, clock, abstime);
			if (r == ETIMEDOUT)
				return ETIMEDOUT;
			expired = r == EAGAIN;
		}
	}
	return head(l, n, clock, abstime, expired);
}
