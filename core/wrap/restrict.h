/*
 * restrict.h - concurrency restriction around any inner lock: a small
 * active set circulates over the inner lock, the surplus is parked, and
 * parked threads are rotated back in after a bounded number of admissions.
 *
 * Idea: D. Dice and A. Kogan, "Avoiding Scalability Collapse by
 * Restricting Concurrency" (GCR) and "Malthusian Locks": a lock is
 * saturated by its holder plus one running successor; every further
 * waiter only burns a CPU, or, oversubscribed, makes the hand-over wait
 * for the scheduler.  Threads past the restrictor ("admitted": holding or
 * acquiring the inner lock) are the active set; the rest wait parked, in
 * FIFO order, and are let in one at a time.  Written from the idea, not
 * from any code.
 *
 * State: the 8-byte restrict word, then the inner lock (<= 8 bytes,
 * backends/restrict.c).  All-zero = no one inside, no one queued.
 *   bits  0..13  grant   passive tickets below grant are admitted (14-bit
 *                        wrapping; "t < grant" is a signed 14-bit difference)
 *   bits 14..27  next    the next passive ticket; queue = next - grant,
 *                        abandoned tickets included
 *   bits 28..41  active  registered members of the active set
 *   bit  42      GHOST   some queued ticket was abandoned (timeout or
 *                        cancellation) by a waiter that has gone
 *   bits 43..55  count   fast admissions since the last passive admission,
 *                        counted only while the queue is not empty
 *   bits 56..63  epoch   low 8 bits of ls_fork_epoch
 * LIMIT = LOCKSWAP_RESTRICT_ACTIVE (1..1024), K = LOCKSWAP_RESTRICT_ROTATE
 * (1..8191).  At most 8191 threads may queue on one lock at once.
 *
 * Transitions (each one CAS on the word):
 *   arrive   active < LIMIT and not (queue && count >= K): active+1, and
 *            count+1 if the queue is not empty ("fast admission").
 *            Otherwise take ticket t = next (next+1; count = 0 if the queue
 *            was empty) and park on the waiting-array bucket (c, t)
 *            (core/runtime/twa.h) until t < grant; then register: active+1.
 *   depart   (unlock, or a failed trylock/timedlock after admission)
 *            active-1, and if the queue is not empty and (active-1 == 0 or
 *            count >= K or GHOST): a passive admission, count = 0:
 *              without GHOST  grant+1 (the head, present by construction)
 *              with GHOST     grant = next, GHOST cleared (everyone queued;
 *                             the abandoned tickets simply never register)
 *            and wake the admitted tickets' buckets.
 *   abandon  a passive waiter that times out or is cancelled: if t < grant
 *            it was admitted meanwhile (timedlock goes on to the inner
 *            lock; a cancelled one registers and departs); else if it holds
 *            the last ticket it takes it back (next-1); else it sets GHOST.
 * Admitted waiters register themselves, so the active count never counts
 * a thread that is gone, and an abandoned ticket costs no slot.
 * A passive admission always happens when the last registered member
 * leaves with a queue, so a queue never waits without an active thread
 * that will depart (or an admitted one that will register): no stranding.
 * Between a passive admission and its registration a fast arrival may take
 * the slot: the active set may exceed LIMIT by the admitted-unregistered.
 *
 * Fairness (the rotation bound): while a thread waits passively, the queue
 * is not empty, so every fast admission counts; once count reaches K the
 * fast path closes and the next departure admits the head.  Admissions are
 * FIFO.  So a thread that queues with q tickets ahead of it is admitted
 * after at most (q+1)*K fast admissions (plus the q passive admissions of
 * those ahead); abandoned tickets only shorten this (a flush admits all).
 * Threads in the active set re-enter ahead of the queue at most K times
 * per rotation: that is the throughput the restriction buys.  Inside the
 * active set, the inner lock's own fairness applies.
 *
 * Waiting: passive waiters park at once (they are the surplus; spinning
 * would take the CPU the active set needs); waiting on the inner lock is
 * the inner lock's policy (core/runtime/wait.h).
 *
 * Memory order: the restrictor protects no data (the inner lock does), so
 * its RMWs are relaxed, except the pair of the waiting array: the
 * departure CAS that moves grant and the waiter's re-check are seq_cst
 * (core/runtime/twa.h's protocol: no lost wake).
 *
 * Cancellation: the whole acquisition runs in one ls_wait_enter scope; a
 * thread cancelled while parked in the queue abandons its ticket as a
 * timeout would (or, admitted meanwhile, registers and departs); cancelled
 * in the inner lock, after the inner lock's own leave step, it departs.
 * Misuse: an unlock while the inner lock is free changes nothing, so an
 * unlock of a free mutex, or a non-owner's unlock followed by the owner's,
 * departs exactly once.
 *
 * fork: threads other than the forking one are dead in a child and would
 * never depart or register.  Every arrival and unlock compares the epoch;
 * on a mismatch the word is reset (one CAS) to active = 1 if the inner
 * lock is held (its holder, alive or dead), else 0, with an empty queue.
 */
#ifndef LS_CORE_RESTRICT_H
#define LS_CORE_RESTRICT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lockable.h"
#include "../runtime/thread.h"

#define LS_RS_TICKET_BITS 14
#define LS_RS_TICKET_MASK ((1ull << LS_RS_TICKET_BITS) - 1)
#define LS_RS_GRANT_SHIFT 0
#define LS_RS_NEXT_SHIFT 14
#define LS_RS_ACTIVE_SHIFT 28
#define LS_RS_ACTIVE_ONE (1ull << LS_RS_ACTIVE_SHIFT)
#define LS_RS_ACTIVE_MASK (0x3fffull << LS_RS_ACTIVE_SHIFT)
#define LS_RS_GHOST (1ull << 42)
#define LS_RS_COUNT_SHIFT 43
#define LS_RS_COUNT_ONE (1ull << LS_RS_COUNT_SHIFT)
#define LS_RS_COUNT_MASK (0x1fffull << LS_RS_COUNT_SHIFT)
#define LS_RS_EPOCH_SHIFT 56
#define LS_RS_EPOCH_MASK (0xffull << LS_RS_EPOCH_SHIFT)
#define LS_RS_MAX_ACTIVE 1024u
#define LS_RS_MAX_ROTATE 8191u

/* Option targets (the settings in the backend's file, backends/). */
extern _Atomic unsigned ls_restrict_active; /* LOCKSWAP_RESTRICT_ACTIVE: LIMIT */
extern _Atomic unsigned ls_restrict_rotate; /* LOCKSWAP_RESTRICT_ROTATE: K */

/* Test hook: told each fast admission (ticket = UINT32_MAX), each passive
 * ticket when it is taken (with the number of tickets ahead of it), each
 * departure before its CAS (ticket = UINT32_MAX), each ticket a departure
 * grants (by the departing thread, after its CAS), and each registration.
 * NULL in production: one relaxed load per fast admission, departure or
 * slow event. */
enum {
	LS_RS_TRACE_FAST,
	LS_RS_TRACE_QUEUED,
	LS_RS_TRACE_DEPART,
	LS_RS_TRACE_GRANTED,
	LS_RS_TRACE_ADMITTED,
};
typedef void (*ls_restrict_trace_fn)(const void *r, int event, uint32_t ticket, uint32_t ahead);
extern _Atomic(ls_restrict_trace_fn) ls_restrict_trace;

struct ls_restrict {
	_Atomic uint64_t word;
};

static inline uint32_t ls_restrict_grant_of(uint64_t w)
{
	return (uint32_t)((w >> LS_RS_GRANT_SHIFT) & LS_RS_TICKET_MASK);
}
static inline uint32_t ls_restrict_next_of(uint64_t w)
{
	return (uint32_t)((w >> LS_RS_NEXT_SHIFT) & LS_RS_TICKET_MASK);
}
static inline uint32_t ls_restrict_queue_of(uint64_t w)
{
	return (uint32_t)((ls_restrict_next_of(w) - ls_restrict_grant_of(w)) & LS_RS_TICKET_MASK);
}
static inline uint32_t ls_restrict_active_of(uint64_t w)
{
	return (uint32_t)((w & LS_RS_ACTIVE_MASK) >> LS_RS_ACTIVE_SHIFT);
}
static inline uint32_t ls_restrict_count_of(uint64_t w)
{
	return (uint32_t)((w & LS_RS_COUNT_MASK) >> LS_RS_COUNT_SHIFT);
}
static inline uint32_t ls_restrict_epoch_of(uint64_t w)
{
	return (uint32_t)((w & LS_RS_EPOCH_MASK) >> LS_RS_EPOCH_SHIFT);
}

/* Ticket t admitted: t < grant as a signed 14-bit difference. */
static inline bool ls_restrict_admitted(uint64_t w, uint32_t t)
{
	uint32_t d = (t - ls_restrict_grant_of(w)) & LS_RS_TICKET_MASK;
	return d >= (1u << (LS_RS_TICKET_BITS - 1));
}

/* The inner lock is driven through `in` (core/wrap/lockable.h); its state is
 * `inner`.  abstime NULL = no deadline. */
int ls_restrict_acquire(struct ls_restrict *r, const struct ls_lockable *in, void *inner,
                        clockid_t clock, const struct timespec *abstime);
int ls_restrict_trylock(struct ls_restrict *r, const struct ls_lockable *in, void *inner);
void ls_restrict_unlock(struct ls_restrict *r, const struct ls_lockable *in, void *inner);
/* Before a condvar wait: the restrictor keeps nothing for its holder. */
static inline void ls_restrict_unlock_to_wait(struct ls_restrict *r, const struct ls_lockable *in,
                                              void *inner)
{
	ls_restrict_unlock(r, in, inner);
}
/* Leave the active set (the caller is a registered member). */
void ls_restrict_depart(struct ls_restrict *r);

static inline int ls_restrict_lock(struct ls_restrict *r, const struct ls_lockable *in,
                                   void *inner)
{
	return ls_restrict_acquire(r, in, inner, CLOCK_MONOTONIC, NULL);
}

static inline int ls_restrict_timedlock(struct ls_restrict *r, const struct ls_lockable *in,
                                        void *inner, clockid_t clock,
                                        const struct timespec *abstime)
{
	return ls_restrict_acquire(r, in, inner, clock, abstime);
}

#endif
