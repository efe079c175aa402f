/*
 * capacitor.h - a capacitor: a FIFO semaphore of B credits that wraps any
 * inner lock and bounds how many later arrivals can overtake a thread.
 *
 * Source: D. Dice and A. Kogan, "Capacitors" (paper draft): arrive =
 * take the semaphore, acquire the inner lock, critical section, release the
 * inner lock, depart.  Departures are tallied; the B-th departure of a
 * platoon re-opens the semaphore for the next B arrivals, in arrival order.
 * A thread is overtaken by at most B-1 later arrivals (its platoon mates).
 *
 * State: 8 bytes of capacitor word + the inner lock's state (<= 8 bytes)
 * right after it (backends/capacitor.c).  The word (all-zero = open, no
 * one inside; platoon 0 admits tickets 0..B-1):
 *   bits  0..15  base            first ticket of the admitted platoon:
 *                                ticket t is admitted iff t < base + B,
 *                                compared as a signed 16-bit difference
 *   bits 16..31  depart          departures so far in this platoon (< B)
 *   bit  32      LS_CAP_HOLDER   the holder came through the semaphore and
 *                                must depart (set/cleared by the holder;
 *                                only in the modes where some holders skip
 *                                the semaphore: contended, or SKIP > 0.
 *                                Otherwise every holder departs.)
 *   bit  33      LS_CAP_WAITERS  someone sleeps on the low half (ticket sem)
 *   bits 40..47  epoch           low 8 bits of ls_fork_epoch
 *   bits 48..63  ticket          next arrival ticket (carry falls off)
 * The low half (base, depart) is the ticket semaphore's futex word: it
 * changes whenever a platoon opens, and can only come back to a value a
 * sleeper saw after 65536/B platoon openings in the few instructions
 * between its read and its futex wait.
 * B (LOCKSWAP_BYPASS) is at most 16384, and at most 16383 threads may wait
 * on one capacitor at once (16-bit tickets, signed comparison).
 *
 * Semaphores (LOCKSWAP_CAPACITOR_SEM), waiting through core/runtime/wait.h:
 *   ticket  the text's simple semaphore: spin on base while the policy
 *           allows, then sleep on the word's low half; a platoon change
 *           wakes all sleepers (the next platoon, and the later ones, who
 *           re-sleep).
 *   twa     the TWA semaphore: only the tickets in the spin window (the
 *           next platoon plus as many tickets as CPUs may spin,
 *           ls_wait_spin_bound()) spin; the others sleep on the
 *           waiting-array bucket of (capacitor, ticket).  A platoon change
 *           wakes the buckets of the tickets it admits, and wakes ahead
 *           the tickets that enter the spin window, so the next platoon
 *           is usually running when it is admitted: the platoon hand-over
 *           seldom waits for the scheduler.
 *   Either way, while no more threads are inside than CPUs (the paper's
 *   case), waiters spin until admitted outside the policy's spinner count,
 *   with polls backed off per departure ahead (core/wrap/capacitor.c,
 *   spin_own_cpu); they park only when the platoons stop moving.
 * Modes:
 *   always     every lock goes through the semaphore (the bound holds)
 *   contended  try the inner lock first; only a thread that finds it held
 *              goes through the semaphore (no bound for trylock winners)
 *   LOCKSWAP_CAPACITOR_SKIP (per mille): fractional bypass, a thread skips
 *              the semaphore with that probability (statistical fairness).
 * trylock: the semaphore must admit at once (CAS), then the inner trylock;
 *   on failure the credit is given back by departing.
 * timedlock: a timeout in the inner lock departs normally.  A timeout in
 *   the semaphore takes the ticket back if it is the last one; otherwise it
 *   departs at once "on credit": the exact platoon accounting of every
 *   other thread is kept, but the current platoon closes one departure
 *   early, so until the abandoned ticket's own platoon opens, one extra
 *   member of the next platoon can overlap (the bound weakens to 2B-1 for
 *   the threads inside then).  Documented limit.
 *
 * Leaving: a thread cancelled while it waits in the semaphore gives its
 * ticket back exactly as a timed-out one does; cancelled while it waits
 * for the inner lock, it departs (after the inner lock's own leave step).
 * The whole acquisition runs inside one cancellation scope (core/runtime/wait.h).
 * Misuse: unlocking while the inner lock is free changes nothing, so an
 * unlock of a free mutex, or an unlock by a non-owner followed by the
 * owner's, departs exactly once.
 *
 * fork: members and waiters other than the forking thread are dead in a
 * child and would never depart.  Before taking a ticket a thread compares
 * the epoch; on a mismatch it resets the word (one CAS) to a fresh platoon
 * that holds only the current holder, if one came through the semaphore.
 *
 * Memory order: the semaphore does not protect data (the inner lock does),
 * so its accesses are relaxed, except where a wait/wake pairs: the TWA
 * re-check and the platoon-opening CAS are seq_cst (core/runtime/twa.h's
 * protocol), and WAITERS is set and cleared by RMWs on the word the ticket
 * semaphore sleeps on (one modification order, no lost wake).  HOLDER is
 * touched only by the inner lock's holder: relaxed, ordered by the inner
 * lock.
 */
#ifndef LS_CORE_CAPACITOR_H
#define LS_CORE_CAPACITOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lockable.h"
#include "../runtime/thread.h"
#include "../runtime/wait.h"

#define LS_CAP_BASE_SHIFT 0
#define LS_CAP_DEPART_SHIFT 16
#define LS_CAP_DEPART_ONE (1ull << LS_CAP_DEPART_SHIFT)
#define LS_CAP_DEPART_MASK (0xffffull << LS_CAP_DEPART_SHIFT)
#define LS_CAP_BASE_MASK (0xffffull << LS_CAP_BASE_SHIFT)
#define LS_CAP_HOLDER (1ull << 32)
#define LS_CAP_WAITERS (1ull << 33)
#define LS_CAP_EPOCH_SHIFT 40
#define LS_CAP_EPOCH_MASK (0xffull << LS_CAP_EPOCH_SHIFT)
#define LS_CAP_TICKET_SHIFT 48
#define LS_CAP_TICKET_ONE (1ull << LS_CAP_TICKET_SHIFT)
#define LS_CAP_MAX_BYPASS 16384u

enum { LS_CAP_SEM_TICKET = 0, LS_CAP_SEM_TWA = 1 };
enum { LS_CAP_MODE_ALWAYS = 0, LS_CAP_MODE_CONTENDED = 1 };

/* Option targets (the settings in the backend's file, backends/). */
extern _Atomic unsigned ls_capacitor_bypass; /* LOCKSWAP_BYPASS: B */
extern _Atomic unsigned ls_capacitor_sem;    /* LOCKSWAP_CAPACITOR_SEM */
extern _Atomic unsigned ls_capacitor_skip;   /* LOCKSWAP_CAPACITOR_SKIP, per mille */
extern _Atomic unsigned ls_capacitor_mode;   /* LOCKSWAP_CAPACITOR_MODE */

/* Test hook: called with the ticket each time a thread arrives at the
 * semaphore (NULL in production: one relaxed load per arrival). */
typedef void (*ls_capacitor_trace_fn)(const void *cap, uint32_t ticket);
extern _Atomic(ls_capacitor_trace_fn) ls_capacitor_trace;

struct ls_capacitor {
	_Atomic uint64_t word;
};

/* Slow paths (core/wrap/capacitor.c). */
int ls_capacitor_take_slow(struct ls_capacitor *c, uint16_t t, unsigned b, clockid_t clock,
                           const struct timespec *abstime);
void ls_capacitor_open_platoon(struct ls_capacitor *c, uint64_t w, unsigned b);
bool ls_capacitor_skip_draw(unsigned per_mille);

/* The inner lock is driven through `in` (core/wrap/lockable.h); its state is
 * `inner`.  abstime NULL = no deadline.
 *   ls_capacitor_acquire  the whole protocol, every mode
 *   ls_capacitor_arrive   through the semaphore, then the inner lock
 *                         (inside a cancellation scope)
 *   ls_capacitor_admit_then_lock   ticket t taken, not yet admitted, no
 *                         deadline, not asynchronously cancellable: wait
 *                         for admission, then the inner lock */
int ls_capacitor_admit_then_lock(struct ls_capacitor *c, const struct ls_lockable *in,
                                 void *inner, uint16_t t, unsigned b);
int ls_capacitor_arrive(struct ls_capacitor *c, const struct ls_lockable *in, void *inner,
                        clockid_t clock, const struct timespec *abstime);
int ls_capacitor_acquire(struct ls_capacitor *c, const struct ls_lockable *in, void *inner,
                         clockid_t clock, const struct timespec *abstime);
int ls_capacitor_trylock(struct ls_capacitor *c, const struct ls_lockable *in, void *inner);

/* B, in 1..LS_CAP_MAX_BYPASS: the option's range (backends/capacitor.c),
 * which whoever else stores it (the unit tests) keeps to. */
static inline unsigned ls_capacitor_b(void)
{
	return atomic_load_explicit(&ls_capacitor_bypass, memory_order_relaxed);
}

static inline uint16_t ls_capacitor_ticket_of(uint64_t w)
{
	return (uint16_t)(w >> LS_CAP_TICKET_SHIFT);
}
static inline uint16_t ls_capacitor_base_of(uint64_t w)
{
	return (uint16_t)(w >> LS_CAP_BASE_SHIFT);
}
static inline uint32_t ls_capacitor_depart_of(uint64_t w)
{
	return (uint32_t)((w >> LS_CAP_DEPART_SHIFT) & 0xffffu);
}
static inline uint32_t ls_capacitor_epoch_of(uint64_t w)
{
	return (uint32_t)((w & LS_CAP_EPOCH_MASK) >> LS_CAP_EPOCH_SHIFT);
}

/* t < base + B, in 16-bit wrapping arithmetic.  Monotone: once base has
 * moved past a ticket (which credit departures can do before the ticket's
 * owner looks), the ticket stays admitted. */
static inline bool ls_capacitor_admitted(uint64_t w, uint16_t t, unsigned b)
{
	return (int16_t)(uint16_t)(t - ls_capacitor_base_of(w) - b) < 0;
}

static inline bool ls_capacitor_contended_mode(void)
{
	return atomic_load_explicit(&ls_capacitor_mode, memory_order_relaxed) ==
	       LS_CAP_MODE_CONTENDED;
}

/* Whether some holders skip the semaphore, so that holders that came
 * through it must say so (LS_CAP_HOLDER). */
static inline bool ls_capacitor_marks_holder(void)
{
	return ls_capacitor_contended_mode() ||
	       atomic_load_explicit(&ls_capacitor_skip, memory_order_relaxed) != 0;
}

/* One departure; the one that completes a platoon opens the next.  The
 * common opening, inline: exactly one platoon complete, nobody asleep on
 * the ticket semaphore (WAITERS clear) and no ticket handed out beyond
 * the old platoon, so nobody to wake: one CAS.  Anything else, or a CAS
 * that lost to another change of the word, is ls_capacitor_open_platoon's
 * (which starts again from the word the CAS saw). */
static inline void ls_capacitor_depart(struct ls_capacitor *c)
{
	unsigned b = ls_capacitor_b();
	/* relaxed: the semaphore orders no data (the inner lock does). */
	uint64_t w = atomic_fetch_add_explicit(&c->word, LS_CAP_DEPART_ONE, memory_order_relaxed) +
	             LS_CAP_DEPART_ONE;
	if (__builtin_expect(ls_capacitor_depart_of(w) != b, 1))
		return;
	uint16_t base = ls_capacitor_base_of(w);
	if (!(w & LS_CAP_WAITERS) && (uint16_t)(ls_capacitor_ticket_of(w) - base) <= b) {
		uint64_t nw = (w & ~(LS_CAP_DEPART_MASK | LS_CAP_BASE_MASK)) |
		              ((uint64_t)(uint16_t)(base + b) << LS_CAP_BASE_SHIFT);
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h), as in
		 * ls_capacitor_open_platoon. */
		if (atomic_compare_exchange_strong_explicit(&c->word, &w, nw, memory_order_seq_cst,
		                                            memory_order_relaxed))
			return;
	}
	ls_capacitor_open_platoon(c, w, b);
}

/*
 * lock: inline, so that a composition whose inner table is a constant
 * (backends/wrapper.h) calls the inner lock's own inline verbs instead of
 * going through pointers.  The uncontended arrival in the default mode
 * (every holder departs) is: the epoch check, one fetch-add for the
 * ticket, the inner lock; its slow paths are tail calls, so the fast path
 * saves no registers.
 *
 * It needs no cancellation scope while the thread cannot be cancelled
 * asynchronously (ls_wait_async false: deferred cancellation cannot act
 * inside a lock call, which is no cancellation point), so the arrival
 * and the wait for admission run without one.  A thread that can be
 * cancelled asynchronously goes through ls_capacitor_acquire, which holds
 * a scope from before the ticket is taken; so do the fractional bypass,
 * a traced arrival (tests) and the first arrival after a fork.  The epoch
 * seen equal to the current one stays so until the fetch-add: only a fork
 * child changes ls_fork_epoch (before it has other threads), and the
 * word's epoch is renewed only by a thread that sees it differ.
 */
static inline int ls_capacitor_lock(struct ls_capacitor *c, const struct ls_lockable *in,
                                    void *inner)
{
	if (ls_capacitor_contended_mode()) {
		if (__builtin_expect(in->trylock(inner) == 0, 1))
			return 0;
		return ls_capacitor_arrive(c, in, inner, CLOCK_MONOTONIC, NULL);
	}
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	if (__builtin_expect(atomic_load_explicit(&ls_capacitor_skip, memory_order_relaxed) |
	                             ls_wait_async |
	                             (atomic_load_explicit(&ls_capacitor_trace,
	                                                   memory_order_relaxed) != NULL) |
	                             (ls_capacitor_epoch_of(w) != ls_epoch_now(8)),
	                     0))
		return ls_capacitor_acquire(c, in, inner, CLOCK_MONOTONIC, NULL);
	unsigned b = ls_capacitor_b();
	/* relaxed: the semaphore orders no data (the inner lock does). */
	w = atomic_fetch_add_explicit(&c->word, LS_CAP_TICKET_ONE, memory_order_relaxed);
	uint16_t t = ls_capacitor_ticket_of(w);
	if (__builtin_expect(!ls_capacitor_admitted(w, t, b), 0))
		return ls_capacitor_admit_then_lock(c, in, inner, t, b);
	return in->lock(inner); /* lock() cannot fail */
}

static inline int ls_capacitor_timedlock(struct ls_capacitor *c, const struct ls_lockable *in,
                                         void *inner, clockid_t clock,
                                         const struct timespec *abstime)
{
	return ls_capacitor_acquire(c, in, inner, clock, abstime);
}

static inline void ls_capacitor_unlock(struct ls_capacitor *c, const struct ls_lockable *in,
                                       void *inner)
{
	/* Misuse (free, or already unlocked by a non-owner): nothing to do,
	 * and above all no second departure. */
	if (!in->is_locked(inner))
		return;
	bool departs = true; /* every holder does, unless some skip */
	if (ls_capacitor_marks_holder()) {
		departs = atomic_load_explicit(&c->word, memory_order_relaxed) & LS_CAP_HOLDER;
		/* relaxed: only the inner lock's holder touches this bit; the
		 * inner lock orders the set/clear of successive holders. */
		if (departs)
			atomic_fetch_and_explicit(&c->word, ~LS_CAP_HOLDER, memory_order_relaxed);
	}
	/* One call site of the inner unlock, which a constant lockable turns
	 * into the inner lock's inline verb. */
	in->unlock(inner);
	if (departs)
		ls_capacitor_depart(c);
}

/* Before a condvar wait: a capacitor keeps nothing for its holder. */
static inline void ls_capacitor_unlock_to_wait(struct ls_capacitor *c,
                                               const struct ls_lockable *in, void *inner)
{
	ls_capacitor_unlock(c, in, inner);
}

#endif
