/*
 * mcs.h - FIFO MCS queue lock in one 32-bit word, with parking, timeouts by
 * abandoned nodes, and nodes that are free again once the lock is taken.
 *
 * Source: J. Mellor-Crummey and M. Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors" (TOCS 1991); the split
 * between a locked bit and an MCS queue of waiters, whose head alone spins
 * on the lock word and, once it takes the lock, hands the head role to its
 * successor, is Linux's qspinlock (kernel/locking/qspinlock.c, Waiman Long
 * and Peter Zijlstra), with the tail encoded as a node id.
 *
 * State word (32 bits, all-zero = unlocked, empty queue):
 *   bit 0       LS_MCS_LOCKED  held
 *   bit 1       LS_MCS_PARKED  the queue head sleeps on this word
 *   bits 2..31  tail           id of the newest queued node (core/runtime/qnode.h), 0 = none
 * Node state (its futex word):
 *   WAITING -> SLEEPING (waiter, before futex wait) -> HEAD (predecessor)
 *   SLEEPING -> WAITING (wake-ahead by the head; the waiter spins again)
 *   WAITING/SLEEPING -> ABANDONED (the waiter timed out; CAS, so it races
 *   cleanly with the promotion to HEAD: exactly one wins)
 *
 * lock:   CAS 0 -> LOCKED; else take a node, swap it in as tail, link it
 *         behind the old tail, wait until promoted to HEAD; the head waits
 *         for LOCKED to clear (spin, then sleep on the word with PARKED),
 *         sets LOCKED and in the same CAS clears the tail if it is the tail;
 *         otherwise it promotes its successor.  Either way its node is free
 *         again: the holder owns no node, so a thread holding any number of
 *         these locks at once uses at most one node at a time (plus the
 *         nodes it abandoned).
 * unlock: clear LOCKED and PARKED; wake the head if PARKED was set.  One
 *         wake per release, for the only thread that can take the lock.
 * trylock never takes the lock past a non-empty queue (FIFO), except a
 *         queue from before a fork (below).
 * timeout: a waiter marks its node ABANDONED and returns; the node stays in
 *         the queue, and whoever promotes into it passes through: it takes
 *         over the node's place (removes it as tail, or waits for its link
 *         and moves on to its successor) and frees it.  A head that times
 *         out leaves the same way (promoting its successor) unless the lock
 *         is free, in which case it takes it.
 *
 * Fairness: FIFO.  Once a queue exists, arrivals queue behind it; admission
 * is in swap order.  Newcomers only spin (while the waiting policy allows,
 * trying the CAS from 0) while the queue is empty.
 * Waiting (core/runtime/wait.h): the head spins on the lock word, then sleeps on it
 * with PARKED.  A waiter that queues behind the head spins on its node;
 * deeper waiters sleep at once.  Wake-ahead: a thread that becomes head
 * wakes its successor (SLEEPING -> WAITING), which then spins, so the next
 * owner is usually running when the lock is released.
 * Cancellation: a waiter cancelled while parked abandons its node as a
 * timed-out one does; a head leaves as a timed-out head, and passes the
 * lock on if it took it.
 *
 * fork: every node records the fork epoch it was queued in.  A thread
 * whose predecessor's epoch differs knows that it and everything before it
 * were queued before the fork (dead threads, or nodes the forking thread
 * abandoned), so it does not link behind it and is head at once.  Those
 * old nodes are never freed (a bounded leak per fork).  trylock treats an
 * unlocked word whose tail is from an older epoch as free.
 *
 * Memory order: taking LOCKED is acquire and pairs with the release in
 * unlock; the tail swap is acq_rel (release publishes our node, acquire
 * reads the predecessor's); promotion is a release CAS read with acquire;
 * links are described in core/runtime/qnode.h.  Everything else is relaxed on
 * purpose: polls and failed-CAS reloads are re-validated by an acquire
 * before anything is read through them; the PARKED bit and the
 * tail-clearing CAS of a leaving node publish no data (a node is handed
 * back with ls_qnode_put's release); a node's epoch is written before the
 * release swap that publishes the node and read after an acquire of the
 * word that named it (the swap, or trylock's acquire load).
 */
#ifndef LS_CORE_MCS_H
#define LS_CORE_MCS_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/wait.h"

enum {
	LS_MCS_LOCKED = 1u,
	LS_MCS_PARKED = 2u,
	LS_MCS_TAIL_SHIFT = 2,
};

enum {
	LS_MCS_WAITING = 1,
	LS_MCS_SLEEPING = 2,
	LS_MCS_HEAD = 3,
	LS_MCS_ABANDONED = 4,
};

struct ls_mcs {
	_Atomic uint32_t word;
};

int ls_mcs_lock_slow(struct ls_mcs *l, clockid_t clock, const struct timespec *abstime);
int ls_mcs_trylock_slow(struct ls_mcs *l);
void ls_mcs_unlock_slow(struct ls_mcs *l);

static inline int ls_mcs_trylock(struct ls_mcs *l)
{
	uint32_t w = 0;
	/* acquire: pairs with the release in unlock. */
	if (atomic_compare_exchange_strong_explicit(&l->word, &w, LS_MCS_LOCKED,
	                                            memory_order_acquire, memory_order_relaxed))
		return 0;
	return ls_mcs_trylock_slow(l);
}

static inline int ls_mcs_lock(struct ls_mcs *l)
{
	uint32_t w = 0;
	if (atomic_compare_exchange_strong_explicit(&l->word, &w, LS_MCS_LOCKED,
	                                            memory_order_acquire, memory_order_relaxed))
		return 0;
	return ls_mcs_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

static inline int ls_mcs_timedlock(struct ls_mcs *l, clockid_t clock,
                                   const struct timespec *abstime)
{
	uint32_t w = 0;
	if (atomic_compare_exchange_strong_explicit(&l->word, &w, LS_MCS_LOCKED,
	                                            memory_order_acquire, memory_order_relaxed))
		return 0;
	return ls_mcs_lock_slow(l, clock, abstime);
}

static inline void ls_mcs_unlock(struct ls_mcs *l)
{
	uint32_t w = LS_MCS_LOCKED;
	/* release: publishes the critical section to the next holder. */
	if (!atomic_compare_exchange_strong_explicit(&l->word, &w, 0, memory_order_release,
	                                             memory_order_relaxed))
		ls_mcs_unlock_slow(l);
}

static inline bool ls_mcs_is_locked(struct ls_mcs *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) & LS_MCS_LOCKED;
}

/* Single-threaded verbs (backends/backend.h, interpose/start/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_mcs_lock_plain(struct ls_mcs *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)LS_MCS_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_mcs_unlock_plain(struct ls_mcs *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_MCS_LOCKED)
		return false; /* waiters (or a fork's leftovers): the atomic verb wakes them */
	atomic_store_explicit(&l->word, (uint32_t)0, memory_order_relaxed);
	return true;
}

#endif
