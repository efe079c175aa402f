/*
 * alloc_lock.h - the lock that guards the runtime's own allocators (the
 * thread-record and queue-node slabs).
 *
 * Why not one of the mutex algorithms: every algorithm waits through the
 * waiting policy (wait.h), and the policy counts spinners per thread
 * record, so a record allocator locked by an algorithm would depend on
 * itself.  These locks are taken when a slab is added or a thread first
 * gets its record: rare, short, and almost never contended, so the
 * simplest correct futex lock serves (U. Drepper, "Futexes Are Tricky",
 * mutex 2), with no spinning: it sleeps through the door's primitive
 * (park.h), never through the waiting policy.
 *
 * Word: 0 free, 1 held, 2 held and somebody may sleep.
 */
#ifndef LS_CORE_ALLOC_LOCK_H
#define LS_CORE_ALLOC_LOCK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "park.h"

struct ls_alloc_lock {
	_Atomic uint32_t word;
};

static inline void ls_alloc_lock_acquire(struct ls_alloc_lock *l)
{
	uint32_t zero = 0;
	/* acquire: what the previous holder wrote under the lock. */
	if (atomic_compare_exchange_strong_explicit(&l->word, &zero, 1, memory_order_acquire,
						    memory_order_relaxed))
		return;
	/* Mark the lock as possibly slept on, then sleep while it is held,
	 * through the door's primitive (park.h), which sends a delegated
	 * section home first and keeps errno.  Exchanging 2 in keeps it marked
	 * for our own unlock, which may then wake somebody needlessly:
	 * harmless on this rare path. */
	while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire) != 0)
		ls_park_home_first(&l->word, 2, CLOCK_MONOTONIC, NULL);
}

static inline void ls_alloc_lock_release(struct ls_alloc_lock *l)
{
	/* release: publishes the critical section to the next holder. */
	if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2)
		ls_park_wake(&l->word, 1);
}

/* Fork child, single-threaded: the holder may be a thread that no longer
 * exists. */
static inline void ls_alloc_lock_reset(struct ls_alloc_lock *l)
{
	atomic_store_explicit(&l->word, 0, memory_order_relaxed);
}

#endif
