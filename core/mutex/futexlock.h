/*
 * futexlock.h - the classic three-state futex mutex, with bounded spinning.
 *
 * Source: U. Drepper, "Futexes Are Tricky" (mutex 3), and the spin-then-park
 * advice of kprotty's "Building a small, fast Mutex" (blog post).
 *
 * State word (all-zero = unlocked, so static initializers work):
 *   LS_FUTEX_UNLOCKED  0  free
 *   LS_FUTEX_LOCKED    1  held, nobody parked
 *   LS_FUTEX_PARKED    3  held, and some thread may be parked on the word
 * Transitions: lock  0 -> 1 (fast, CAS)      or  x -> 3 (slow, exchange)
 *              unlock 1 -> 0 (fast)           or  3 -> 0 then wake one
 * (Drepper's mutex uses 2 for the parked state; 3 keeps bit 0 set in both
 * held states, so that a bit-test-and-set of bit 0 takes the lock only
 * when it is free: backends/inline_verbs.h ls_futex_inline_take.)
 *
 * Fairness: none.  A releasing thread or a spinning newcomer can barge ahead
 * of a parked waiter indefinitely (no bypass bound); the woken waiter re-marks
 * the word PARKED, so a wake is never lost.  Progress: deadlock-free.
 *
 * Memory order: the acquiring CAS/exchange is acquire and pairs with the
 * release exchange in unlock, so the critical sections are ordered.
 */
#ifndef LS_CORE_FUTEXLOCK_H
#define LS_CORE_FUTEXLOCK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/wait.h"

enum {
	LS_FUTEX_UNLOCKED = 0,
	LS_FUTEX_LOCKED = 1,
	LS_FUTEX_PARKED = 3,
};
_Static_assert((LS_FUTEX_LOCKED & LS_FUTEX_PARKED & 1) && !(LS_FUTEX_UNLOCKED & 1),
               "bit 0 is set exactly in the held states");

struct ls_futexlock {
	_Atomic uint32_t word;
};

int ls_futexlock_lock_slow(struct ls_futexlock *l, clockid_t clock,
                           const struct timespec *abstime);

static inline int ls_futexlock_trylock(struct ls_futexlock *l)
{
	uint32_t expected = LS_FUTEX_UNLOCKED;
	return atomic_compare_exchange_strong_explicit(
	               &l->word, &expected, LS_FUTEX_LOCKED,
	               memory_order_acquire, memory_order_relaxed)
	               ? 0
	               : EBUSY;
}

static inline int ls_futexlock_lock(struct ls_futexlock *l)
{
	if (ls_futexlock_trylock(l) == 0)
		return 0;
	return ls_futexlock_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

/* abstime is already validated by the caller (see core/runtime/timespec.h). */
static inline int ls_futexlock_timedlock(struct ls_futexlock *l, clockid_t clock,
                                         const struct timespec *abstime)
{
	if (ls_futexlock_trylock(l) == 0)
		return 0;
	return ls_futexlock_lock_slow(l, clock, abstime);
}

static inline void ls_futexlock_unlock(struct ls_futexlock *l)
{
	/* release: publishes the critical section to the next acquirer. */
	if (atomic_exchange_explicit(&l->word, LS_FUTEX_UNLOCKED,
	                             memory_order_release) == LS_FUTEX_PARKED)
		ls_unpark(&l->word, 1);
}

static inline bool ls_futexlock_is_locked(struct ls_futexlock *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) !=
	       LS_FUTEX_UNLOCKED;
}

/* Single-threaded verbs (backends/backend.h, interpose/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_futexlock_lock_plain(struct ls_futexlock *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_FUTEX_UNLOCKED)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_futexlock_unlock_plain(struct ls_futexlock *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_FUTEX_LOCKED)
		return false; /* waiters (or a fork's leftovers): the atomic verb wakes them */
	atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_UNLOCKED, memory_order_relaxed);
	return true;
}

#endif
