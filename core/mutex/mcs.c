#include "mcs.h"

#include "../runtime/qnode.h"
#include "../runtime/thread.h"
#include "../runtime/timespec.h"
#include "../runtime/wait.h"

static uint32_t tail_of(uint32_t w) { return w >> LS_MCS_TAIL_SHIFT; }

static void release_mcs(struct ls_mcs *l)
{
	/* release: publishes the critical section to the head. */
	uint32_t w = atomic_fetch_and_explicit(&l->word, ~(LS_MCS_LOCKED | LS_MCS_PARKED),
	                                       memory_order_release);
	if (w & LS_MCS_PARKED)
		ls_unpark(&l->word, 1);
}

/* Free, or unlocked with a queue left over from before a fork. */
int ls_mcs_trylock_slow(struct ls_mcs *l)
{
	/* acquire, also on the CAS's failure reload: the tail's epoch is read
	 * through this word.  It pairs with the release half of the tail swap
	 * in ls_mcs_lock_slow, which publishes the node's epoch; with a
	 * relaxed load a weakly ordered CPU could show us the node's epoch
	 * from before the fork, and we would take the lock over a live queue
	 * and wipe its tail. */
	uint32_t w = atomic_load_explicit(&l->word, memory_order_acquire);
	for (;;) {
		if (w & LS_MCS_LOCKED)
			return EBUSY;
		if (tail_of(w)) {
			struct ls_qnode *t = ls_qnode_by_id(tail_of(w));
			if (atomic_load_explicit(&t->epoch, memory_order_relaxed) == ls_epoch_now(32))
				return EBUSY; /* a live queue: its head goes first */
		}
		/* acquire on success: pairs with the release in unlock. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, LS_MCS_LOCKED,
		                                          memory_order_acquire, memory_order_acquire))
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
					ls_unpark(&n->state, 1);
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

/* Wake-ahead: a new head makes its successor spin, if it sleeps, so that
 * the successor is running when the head takes the lock and promotes it.
 * A hint only: the successor may be unlinked yet (then it spins or parks
 * on its own) or abandoned (then the CAS fails). */
static void wake_successor(struct ls_qnode *n)
{
	/* acquire: pairs with ls_qnode_link's release (the node is set up). */
	uint32_t id = atomic_load_explicit(&n->next, memory_order_acquire);
	if (!id || id == LS_QNODE_LINK_PARKED)
		return;
	struct ls_qnode *s = ls_qnode_by_id(id);
	uint32_t st = LS_MCS_SLEEPING;
	if (atomic_compare_exchange_strong_explicit(&s->state, &st, LS_MCS_WAITING,
	                                            memory_order_relaxed, memory_order_relaxed))
		ls_unpark(&s->state, 1);
}

/* Waiting for promotion: spin while the queue keeps moving (the lock word
 * changes with every hand-over) and the policy allows, then sleep.  Returns 0
 * (now head), ETIMEDOUT (node abandoned, we are out), or EAGAIN (timed
 * out but promoted: leave as head). */
static int wait_turn(struct ls_mcs *l, struct ls_qnode *n, clockid_t clock,
                     const struct timespec *abstime)
{
	bool expired = false, spin = true;
	for (;;) {
		/* acquire loads of HEAD pair with the release CAS in promote. */
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
		if (spin && s == LS_MCS_WAITING &&
		    LS_SPIN_UNTIL_MOVING(n,
		                         atomic_load_explicit(&n->state, memory_order_acquire) ==
		                                 LS_MCS_HEAD,
		                         atomic_load_explicit(&l->word, memory_order_relaxed)))
			continue;
		spin = false;
		if (s == LS_MCS_WAITING &&
		    !atomic_compare_exchange_strong_explicit(&n->state, &s, LS_MCS_SLEEPING,
		                                             memory_order_acquire,
		                                             memory_order_acquire))
			continue;
		if (ls_park(&n->state, LS_MCS_SLEEPING, clock, abstime) == ETIMEDOUT) {
			expired = true;
		} else {
			spin = true; /* promoted, or woken ahead to spin */
		}
	}
}

/* The head: take the lock when it is released, or (timed out) leave. */
static int head(struct ls_mcs *l, struct ls_qnode *n, clockid_t clock,
                const struct timespec *abstime, bool expired)
{
	uint32_t me = n->id;
	bool spin = !expired;
	if (spin && ls_wait_cpu_free())
		wake_successor(n);
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
		if (spin) {
			spin = false;
			if (LS_SPIN_UNTIL(l, !(atomic_load_explicit(&l->word, memory_order_relaxed) &
			                       LS_MCS_LOCKED)))
				continue;
		}
		if (!(w & LS_MCS_PARKED) &&
		    !atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_MCS_PARKED,
		                                           memory_order_relaxed, memory_order_relaxed))
			continue;
		if (ls_park(&l->word, w | LS_MCS_PARKED, clock, abstime) == ETIMEDOUT)
			expired = true;
		spin = !expired;
	}
}

/* Cancelled while queued: leave exactly as a timeout would, and if the
 * lock was ours meanwhile, pass it on. */
struct leave_ctx {
	struct ls_mcs *l;
	struct ls_qnode *n;
	bool is_head;
};

static void leave_queue(void *arg)
{
	struct leave_ctx *c = arg;
	if (!c->is_head) {
		uint32_t s = atomic_load_explicit(&c->n->state, memory_order_acquire);
		while (s != LS_MCS_HEAD)
			if (atomic_compare_exchange_weak_explicit(&c->n->state, &s, LS_MCS_ABANDONED,
			                                          memory_order_acquire,
			                                          memory_order_acquire))
				return;
	}
	if (head(c->l, c->n, CLOCK_MONOTONIC, NULL, true) == 0)
		ls_mcs_unlock(c->l);
}

/* One poll of a newcomer: true to stop (taken, or a queue exists). */
static bool newcomer_step(struct ls_mcs *l, bool *got)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (w == 0)
		return (*got = ls_mcs_trylock(l) == 0);
	return tail_of(w) != 0;
}

int ls_mcs_lock_slow(struct ls_mcs *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_mcs_trylock(l) == 0 ? 0 : ETIMEDOUT;
	/* While nobody is queued, spin for the word to become 0; once a queue
	 * exists, join it. */
	bool got = false;
	LS_SPIN_UNTIL(l, newcomer_step(l, &got));
	if (got)
		return 0;
	struct ls_qnode *n = ls_qnode_stamped(LS_MCS_WAITING);
	if (!n)
		return LS_POLL_TRYLOCK(ls_mcs_trylock(l), clock, abstime);
	uint32_t e = atomic_load_explicit(&n->epoch, memory_order_relaxed);
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx ctx = { l, n, false };
	ls_wait_enter(&sc);
	/* acq_rel: release publishes the node's fields to whoever reads the
	 * tail; acquire lets us read the predecessor's epoch. */
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed), nw;
	do
		nw = (w & (LS_MCS_LOCKED | LS_MCS_PARKED)) | (n->id << LS_MCS_TAIL_SHIFT);
	while (!atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_acq_rel,
	                                              memory_order_relaxed));
	ls_wait_push(&f, leave_queue, &ctx);
	bool expired = false;
	int r;
	if (tail_of(w)) {
		struct ls_qnode *p = ls_qnode_by_id(tail_of(w));
		if (atomic_load_explicit(&p->epoch, memory_order_relaxed) == e) {
			ls_qnode_link(p, n->id);
			r = wait_turn(l, n, clock, abstime);
			if (r == ETIMEDOUT)
				goto out;
			expired = r == EAGAIN;
		}
	}
	ctx.is_head = true;
	r = head(l, n, clock, abstime, expired);
out:
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	return r;
}

/* Uncut by asynchronous cancellation (core/runtime/wait.h): a release whose wake
 * were lost would leave the parked head asleep with the lock free. */
void ls_mcs_unlock_slow(struct ls_mcs *l)
{
	struct ls_wait_scope sc;
	ls_wait_enter_quiet(&sc);
	release_mcs(l);
	ls_wait_exit(&sc);
}
