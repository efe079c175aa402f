/*
 * ces.h - a FIFO mutex whose releaser runs the queued waiters' critical
 * sections itself, on its own thread, with each waiter's stack and TLS
 * (transparent delegation, for programs written against pthread mutexes).
 *
 * Sources: Koenig, Epple and Becker, "Minimize Your Critical Path with
 * Combine-and-Exchange Locks" (the next waiter's critical section runs at
 * once on the releasing thread, while the waiter's thread sleeps); TCLocks,
 * Gupta et al., "Ship your Critical Section, Not Your Data" (OSDI 2023: the
 * waiter's context, not a closure, is what is shipped, so no code changes).
 *
 * State (16 bytes, all-zero = unlocked):
 *   word       bit 0 LOCKED   held (by a thread, or by a context run away)
 *              bit 1 AWAY     a delegate runs a waiter's section under it now
 *              bit 2 QUEUED   the holder's FIFO (below) is not empty
 *              bits 3..31     id of the newest pushed node (core/runtime/qnode.h),
 *                             0 = none.  Pushed nodes form a stack through
 *                             their `next` ids (Treiber): oldest at the bottom.
 *   fifo_head, fifo_tail      holder-only: the waiters already taken off the
 *                             stack, oldest first, linked by `next`.
 *   Invariant: a node is pushed only while LOCKED is set, and the lock is
 *   released only with no node pushed or queued, so newcomers find the word
 *   0 exactly when nobody waits: FIFO, no barging past a waiter.
 *
 * Transitions (word: LOCKED, AWAY, QUEUED, top):
 *   lock fast      0,0,0,0 -> 1,0,0,0
 *   push           1,a,q,t -> 1,a,q,me     (me.next = t)
 *   unlock fast    1,0,0,0 -> 0,0,0,0      (fails with anything else: slow)
 *   detach         1,a,q,t -> 1,a,1,0      (the holder moves t..bottom, reversed,
 *                                           behind fifo_tail)
 *   FIFO emptied   1,a,1,t -> 1,a,0,t      (the holder took its last waiter)
 *   release        1,0,0,0 -> 0,0,0,0      (the FIFO and the stack are empty)
 *   run a section  1,0,q,t -> 1,1,q,t ...  (the delegate, around each switch)
 *
 * Waiters.  A newcomer spins while nobody is queued (core/runtime/wait.h).
 * Then:
 *   - delegable (lock, not timedlock; delegation allowed, ls_ces_delegation):
 *     block signals, save the context (core/runtime/fiber.h), move to the
 *     thread's parking stack (core/runtime/home.h), and only there push the
 *     node, so the context is complete before anyone can see it.  Sleep on
 *     the node's state.
 *   - otherwise: push and sleep on the node's state as any queue lock does,
 *     with a timeout or asynchronous cancellation giving the node up
 *     (WAITING -> ABANDONED, a CAS that races cleanly with the grant).
 * Node states: WAITING -> AWAY (a delegate runs it) -> DONE (its section
 *   ended: the thread resumes after its unlock) or BACK (it had to block: the
 *   thread resumes at that point, holding the lock); WAITING -> GRANTED (the
 *   lock is handed to the thread itself); WAITING -> ABANDONED.
 *
 * Release (the holder's slow unlock): take the oldest waiter.
 *   - delegable, and fewer than LS_CES_BATCH sections run in this batch, and
 *     the releaser is at home: switch to the waiter's context.  Its section
 *     runs here; its unlock of this lock switches back (DONE); go on with
 *     the next waiter.  A section that must block comes back early (BACK):
 *     the lock stays held for it, the batch ends.
 *   - otherwise: hand the lock to the waiter's own thread (GRANTED, a wake).
 *   - nobody: release.
 *   Finished waiters are woken once the lock is released or passed on: their
 *   wake-ups are not on the critical path.
 * Batch bound: LS_CES_BATCH sections per release; then the next waiter gets
 *   the lock itself (GRANTED) and becomes the next releaser, so a releaser's
 *   own code waits for at most LS_CES_BATCH foreign sections.
 *
 * Fairness: FIFO.  A waiter is served (run, or granted) in push order.
 * Progress: a delegate can stall behind a section that blocks without the
 *   library seeing it (I/O, sleep, a glibc-internal lock, a raw futex):
 *   correct, but the batch waits.
 *
 * Fork: a node's epoch is set when it is pushed; a releaser skips nodes of
 *   an older epoch (dead threads) and leaves them (a bounded leak per fork),
 *   as core/mutex/mcs.h does.
 *
 * Memory order: LOCKED is taken with acquire and released with release (the
 *   fast CAS, the release CAS, the GRANTED store).  A push is a release CAS
 *   (it publishes the node and, for a delegable node, the saved context);
 *   detach is an acquire CAS.  DONE and BACK are release stores read with
 *   acquire by the waiter's thread, which then reads the context the delegate
 *   saved.  The fifo fields are read and written by the holder only, ordered
 *   by the lock itself.
 */
#ifndef LS_CORE_CES_H
#define LS_CORE_CES_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum {
	LS_CES_LOCKED = 1u,
	LS_CES_AWAY = 2u,
	LS_CES_QUEUED = 4u,
	LS_CES_TOP_SHIFT = 3,
};

/* Sections one release may run before it hands the lock to a waiter. */
#define LS_CES_BATCH 32

struct ls_ces {
	_Atomic uint32_t word;
	uint32_t fifo_head;
	uint32_t fifo_tail;
	uint32_t spare;
};

int ls_ces_lock_slow(struct ls_ces *l, clockid_t clock, const struct timespec *abstime);
void ls_ces_unlock_slow(struct ls_ces *l);
/* The holder's unlock before it blocks (a condvar wait): from a delegated
 * section, go home first; then unlock. */
void ls_ces_unlock_to_wait(struct ls_ces *l);

/* Whether waiters may be run delegated: x86-64, and no rseq area
 * registered by glibc (a delegated section would use the waiter's).
 * Decided once (ls_ces_delegation_setup). */
extern bool ls_ces_delegation;
/* Decide; returns false with a one-line reason when delegation cannot run
 * here (the backend then refuses to start: backends/ces.c). */
bool ls_ces_delegation_setup(const char **why);

static inline int ls_ces_trylock(struct ls_ces *l)
{
	uint32_t w = 0;
	/* acquire: pairs with the release that freed the lock. */
	return atomic_compare_exchange_strong_explicit(&l->word, &w, LS_CES_LOCKED,
	                                               memory_order_acquire,
	                                               memory_order_relaxed)
	               ? 0
	               : EBUSY;
}

static inline int ls_ces_lock(struct ls_ces *l)
{
	if (ls_ces_trylock(l) == 0)
		return 0;
	return ls_ces_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

static inline int ls_ces_timedlock(struct ls_ces *l, clockid_t clock,
                                   const struct timespec *abstime)
{
	if (ls_ces_trylock(l) == 0)
		return 0;
	return ls_ces_lock_slow(l, clock, abstime);
}

static inline void ls_ces_unlock(struct ls_ces *l)
{
	uint32_t w = LS_CES_LOCKED;
	/* release: publishes the critical section.  Fails with waiters pushed
	 * or queued, or with AWAY: a delegated section's unlock goes back to
	 * its delegate. */
	if (!atomic_compare_exchange_strong_explicit(&l->word, &w, 0, memory_order_release,
	                                             memory_order_relaxed))
		ls_ces_unlock_slow(l);
}

static inline bool ls_ces_is_locked(struct ls_ces *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) & LS_CES_LOCKED;
}

/* Single-threaded verbs (backends/backend.h): plain transitions of the fast
 * path, valid only while no other thread exists; false = declined. */
static inline bool ls_ces_lock_plain(struct ls_ces *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)LS_CES_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_ces_unlock_plain(struct ls_ces *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_CES_LOCKED)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)0, memory_order_relaxed);
	return true;
}

#endif
