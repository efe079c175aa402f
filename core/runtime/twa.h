/*
 * twa.h - a global waiting array for ticket-based waiting (TWA).
 *
 * Source: D. Dice and A. Kogan, "TWA - Ticket Locks Augmented with a Waiting
 * Array" (Euro-Par 2019), and the TWASemaphore of Dice et al., "Capacitors"
 * (paper draft): waiters that hold ticket t of object o park on the
 * bucket hash(o, t) instead of on the object's one shared word, so granting
 * ticket g wakes only the bucket of g (plus the rare hash collision), not
 * every parked waiter.
 *
 * Bucket: { seq, parked }, 8 bytes, LS_TWA_BUCKETS of them (32 KiB, static).
 *   seq     futex word; incremented by every wake of the bucket
 *   parked  number of threads between ls_twa_enter() and ls_twa_leave()
 * Adjacent tickets of one object map 17 buckets (136 bytes) apart, so
 * neighbours in a queue sit on different cache lines.
 *
 * Protocol (a Dekker pair; every access below is seq_cst, callers'
 * included: the condition's update and its re-check must be seq_cst too):
 *   waiter:  seq = ls_twa_enter(b);  re-check the condition;  if not yet,
 *            ls_twa_park(b, seq, ...);  ls_twa_leave(b);  loop
 *   waker:   make the condition true;  ls_twa_wake(b)
 * In the single order of seq_cst operations, if the waiter's re-check
 * precedes the waker's update, then its parked increment and seq read
 * precede the waker's parked read and seq increment: the waker sees
 * parked > 0 and the futex wait fails with EAGAIN or is woken.  (No
 * fences: ThreadSanitizer does not model them.)  A wake never needs the
 * woken thread to be the one the waker meant: every waiter re-checks its
 * own condition.
 *
 * fork: parked counts of dead parent threads stay in the child; they cost
 * a futile futex wake, nothing else.
 */
#ifndef LS_CORE_TWA_H
#define LS_CORE_TWA_H

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "wait.h"

#define LS_TWA_BUCKETS 4096u /* power of two */

struct ls_twa_bucket {
	_Atomic uint32_t seq;
	_Atomic uint32_t parked;
};

extern struct ls_twa_bucket ls_twa_table[LS_TWA_BUCKETS];

static inline struct ls_twa_bucket *ls_twa_bucket(const void *obj, uint32_t ticket)
{
	uint32_t h = (uint32_t)((uintptr_t)obj >> 3) * 0x9e3779b1u;
	return &ls_twa_table[(h + ticket * 17u) & (LS_TWA_BUCKETS - 1)];
}

/* Announce a waiter; returns the sequence to pass to ls_twa_park(). */
static inline uint32_t ls_twa_enter(struct ls_twa_bucket *b)
{
	/* seq_cst: see the protocol above. */
	atomic_fetch_add_explicit(&b->parked, 1, memory_order_seq_cst);
	return atomic_load_explicit(&b->seq, memory_order_seq_cst);
}

static inline int ls_twa_park(struct ls_twa_bucket *b, uint32_t seq, clockid_t clock,
                              const struct timespec *abstime)
{
	return ls_park_uncancellable(&b->seq, seq, clock, abstime);
}

static inline void ls_twa_leave(struct ls_twa_bucket *b)
{
	atomic_fetch_sub_explicit(&b->parked, 1, memory_order_relaxed);
}

/* Call after making the waiters' condition true (with a seq_cst write). */
static inline void ls_twa_wake(struct ls_twa_bucket *b)
{
	/* seq_cst: see the protocol above. */
	if (atomic_load_explicit(&b->parked, memory_order_seq_cst) == 0)
		return;
	atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
	ls_unpark(&b->seq, INT_MAX);
}

#endif
