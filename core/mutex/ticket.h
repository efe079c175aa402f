/*
 * ticket.h - FIFO ticket lock whose waiters park on a waiting array, with
 * timeouts by abandoned tickets.
 *
 * Source: J. Mellor-Crummey and M. Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors" (TOCS 1991) for the
 * ticket lock; D. Dice and A. Kogan, "TWA" (Euro-Par 2019) for parking by
 * ticket on a global waiting array (core/runtime/twa.h).
 *
 * State: one 64-bit word (all-zero = unlocked: next == grant, epoch 0):
 *   bits  0..15  grant     ticket now served (the holder's ticket)
 *   bits 16..23  epoch     low 8 bits of ls_fork_epoch when the queue was
 *                          last renewed (see fork below)
 *   bits 24..47  abandoned bit i set = ticket grant+1+i was abandoned by a
 *                          timed-out waiter (24 tickets of window)
 *   bits 48..63  next      next ticket to hand out (carry falls off the top)
 * Locked iff next != grant.  Tickets are 16-bit: at most 65535 threads may
 * hold tickets of one lock at once.
 *
 * lock     t = fetch_add(next); held when grant == t
 * unlock   grant advances to the next ticket that was not abandoned, the
 *          abandoned bits shift along (one CAS); then the waiting-array
 *          bucket of the new grant is woken, and only it.
 * timeout  a waiter cannot leave a ticket queue, so it passes its turn
 *          instead: if it holds the last ticket it takes it back
 *          (next = t); otherwise it sets its abandoned bit and the releaser
 *          that reaches its ticket skips it.  If grant reached t first, it
 *          owns the lock and returns 0.  A waiter more than 24 places from
 *          the head that is not last cannot mark yet: it keeps waiting,
 *          re-trying every millisecond, so its ETIMEDOUT can be late by the
 *          time of those handoffs (documented limit).
 *
 * Fairness: FIFO among waiters (admission in ticket order); a timed-out
 * or cancelled ticket never delays the others.
 * Waiting (core/runtime/wait.h): the two waiters nearest the head spin while the
 * policy allows; the others park on bucket(lock, ticket), so a release
 * wakes one waiter.  The waiter that becomes next wakes the one behind it
 * ahead of time (off the critical path), so hand-over seldom waits for
 * the scheduler.  A cancelled waiter abandons its ticket like a timed-out
 * one (and passes the lock on if it was granted meanwhile).
 * Misuse: unlocking a free lock leaves it as it is (grant never passes
 * next).
 *
 * fork: in a child, any ticket other than the holder's belongs to a dead
 * parent thread (the forking thread was in fork(), not waiting).  Every
 * operation compares the word's epoch with ls_fork_epoch before taking a
 * ticket; on a mismatch it renews the word first (one CAS): free stays
 * free, a held lock keeps its holder (grant) and drops every waiter
 * (next = grant + 1).  8 bits of epoch: a queue untouched across exactly a
 * multiple of 256 nested fork generations would be missed.
 *
 * Memory order: the ticket fetch_add is acquire and pairs with the release
 * CAS of unlock; waiters re-check grant with seq_cst inside the waiting
 * array's Dekker protocol (core/runtime/twa.h).  Relaxed: the pre-checks of the
 * epoch and the loads that feed a CAS (the CAS re-validates them), the
 * epoch renewal (it publishes no data) and ls_fork_epoch itself (it only
 * changes in a fork child, before any other thread exists).
 */
#ifndef LS_CORE_TICKET_H
#define LS_CORE_TICKET_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/thread.h"

#define LS_TICKET_GRANT_MASK 0xffffull
#define LS_TICKET_EPOCH_SHIFT 16
#define LS_TICKET_EPOCH_MASK (0xffull << LS_TICKET_EPOCH_SHIFT)
#define LS_TICKET_ABANDON_SHIFT 24
#define LS_TICKET_ABANDON_BITS 24
#define LS_TICKET_ABANDON_MASK (0xffffffull << LS_TICKET_ABANDON_SHIFT)
#define LS_TICKET_NEXT_SHIFT 48
#define LS_TICKET_NEXT_ONE (1ull << LS_TICKET_NEXT_SHIFT)

struct ls_ticket {
	_Atomic uint64_t word;
};

static inline uint16_t ls_ticket_grant(uint64_t w) { return (uint16_t)(w & LS_TICKET_GRANT_MASK); }
static inline uint16_t ls_ticket_next(uint64_t w) { return (uint16_t)(w >> LS_TICKET_NEXT_SHIFT); }
static inline uint32_t ls_ticket_epoch_of(uint64_t w)
{
	return (uint32_t)((w & LS_TICKET_EPOCH_MASK) >> LS_TICKET_EPOCH_SHIFT);
}

int ls_ticket_lock_slow(struct ls_ticket *l, clockid_t clock, const struct timespec *abstime);
int ls_ticket_wait_slow(struct ls_ticket *l, uint16_t t, clockid_t clock,
                        const struct timespec *abstime);
int ls_ticket_trylock(struct ls_ticket *l);
void ls_ticket_unlock_slow(struct ls_ticket *l, uint64_t w);

static inline int ls_ticket_lock(struct ls_ticket *l)
{
	/* One CAS when free: taking a ticket and then waiting for it is two
	 * steps, which only the slow path takes, inside its cancellation
	 * scope (core/runtime/wait.h): a thread cancelled between them would leave a
	 * ticket that nobody ever serves. */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (ls_ticket_epoch_of(w) == ls_epoch_now(8) &&
	    ls_ticket_next(w) == ls_ticket_grant(w) &&
	    /* acquire: pairs with the release CAS in unlock. */
	    atomic_compare_exchange_strong_explicit(&l->word, &w, w + LS_TICKET_NEXT_ONE,
	                                            memory_order_acquire, memory_order_relaxed))
		return 0;
	return ls_ticket_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

static inline int ls_ticket_timedlock(struct ls_ticket *l, clockid_t clock,
                                      const struct timespec *abstime)
{
	return ls_ticket_lock_slow(l, clock, abstime);
}

static inline void ls_ticket_unlock(struct ls_ticket *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	/* Fast path: nobody waiting, nothing abandoned (then a stale epoch
	 * does not matter: the lock becomes free, the next locker renews). */
	uint64_t bump = (w & ~LS_TICKET_GRANT_MASK) | ((w + 1) & LS_TICKET_GRANT_MASK);
	if (ls_ticket_next(w) == (uint16_t)(ls_ticket_grant(w) + 1) &&
	    !(w & LS_TICKET_ABANDON_MASK) &&
	    /* release: publishes the critical section to the next holder. */
	    atomic_compare_exchange_strong_explicit(&l->word, &w, bump, memory_order_release,
	                                            memory_order_relaxed))
		return;
	ls_ticket_unlock_slow(l, w);
}

static inline bool ls_ticket_is_locked(struct ls_ticket *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	return ls_ticket_next(w) != ls_ticket_grant(w);
}

/* Single-threaded verbs (backends/backend.h, interpose/start/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_ticket_lock_plain(struct ls_ticket *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (ls_ticket_epoch_of(w) != ls_epoch_now(8) || ls_ticket_next(w) != ls_ticket_grant(w))
		return false;
	atomic_store_explicit(&l->word, w + LS_TICKET_NEXT_ONE, memory_order_relaxed);
	return true;
}

static inline bool ls_ticket_unlock_plain(struct ls_ticket *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (ls_ticket_next(w) != (uint16_t)(ls_ticket_grant(w) + 1) || (w & LS_TICKET_ABANDON_MASK))
		return false;
	uint64_t bump = (w & ~LS_TICKET_GRANT_MASK) | ((w + 1) & LS_TICKET_GRANT_MASK);
	atomic_store_explicit(&l->word, bump, memory_order_relaxed);
	return true;
}

#endif
