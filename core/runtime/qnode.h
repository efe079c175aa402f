/*
 * qnode.h - type-stable queue nodes for queue locks (MCS), owned per thread.
 *
 * Why not the thread record: a FIFO queue lock with timeouts lets a
 * timed-out waiter leave its node behind, marked abandoned, for the next
 * releaser to skip (core/mutex/mcs.h).  The thread must then be able to wait
 * somewhere else at once, so it needs a second node; in the worst case (a
 * lock held forever and timedlock retried) as many as it has abandoned.
 *
 * Nodes live in mmap'ed slabs that are never unmapped (a stale id always
 * names a valid node) and are named by a 32-bit id, so a lock word can hold
 * a queue tail in 30 bits:
 *   ids 1 .. LS_QNODE_HOMES            "home" node of the thread whose
 *                                      record id (core/runtime/thread.h) is the same
 *   ids LS_QNODE_HOMES+1 .. LS_QNODE_MAX  extra nodes, chained from a home
 *                                      node by pool_next, never given back
 * A thread record is reused only after its thread exited, and the next
 * thread with that id inherits the home node and its chain: correct, since
 * nodes are only ever taken by the owning thread.
 *
 * Node lifetime (the rule every user follows):
 *   FREE (0) -> taken by the owner only (ls_qnode_get), which resets next and
 *   sets a non-zero state before publishing the node id in a lock word;
 *   -> back to FREE (ls_qnode_put, release) by whoever is last to need it:
 *   the owner when it leaves the queue itself, or the thread that skipped
 *   it when the owner abandoned it.  Before the put, that thread has read
 *   `next`; after it, it never touches the node again.  A successor's late
 *   futex wake on `next` can hit a reused node: a spurious wake-up, which
 *   every wait loop tolerates.
 *
 * Successor link: `next` is 0 until the successor stores its id there
 * (ls_qnode_link, exchange).  A thread that needs the link waits with
 * ls_qnode_wait_link: it spins while the waiting policy allows, then it
 * CASes 0 -> LINK_PARKED
 * and futex-waits; the linker's exchange returns LINK_PARKED and it wakes.
 */
#ifndef LS_CORE_QNODE_H
#define LS_CORE_QNODE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "thread.h"

#define LS_QNODE_BYTES 64
#define LS_QNODE_HOMES (1u << 20) /* >= the largest thread record id */
#define LS_QNODE_MAX (1u << 22)
#define LS_QNODE_LINK_PARKED 0xffffffffu

enum { LS_QNODE_FREE = 0 };

struct ls_qnode {
	_Atomic uint32_t state;    /* futex word; values other than FREE belong to the lock */
	_Atomic uint32_t next;     /* successor id, 0 = not linked yet, or LINK_PARKED */
	uint32_t id;               /* constant */
	_Atomic uint32_t epoch;    /* ls_fork_epoch when last enqueued */
	struct ls_qnode *pool_next; /* owner's chain; written by the owner only */
	void *waiter;              /* the lock's own note on the waiter, set before publishing */
};

_Static_assert(sizeof(struct ls_qnode) <= LS_QNODE_BYTES, "qnode outgrew its slot");

/* The node with this id (an id read from a lock word or a node: its slab
 * exists).  NULL for 0. */
struct ls_qnode *ls_qnode_by_id(uint32_t id);

/* A FREE node owned by self, now owned by the caller's queue; NULL if
 * memory or ids ran out. */
struct ls_qnode *ls_qnode_get(struct ls_thread *self);

/* How a queue lock's newcomer that is going to queue gets its node (mcs,
 * ces): the calling thread's own, stamped with this fork epoch (a
 * successor compares it: "queued before a fork") and the lock's waiting
 * `state`, not yet published.  NULL when the thread has no record or no
 * node (memory or ids ran out): the caller then polls its trylock
 * (LS_POLL_TRYLOCK, core/runtime/wait.h). */
static inline struct ls_qnode *ls_qnode_stamped(uint32_t state)
{
	struct ls_thread *self = ls_thread_self();
	struct ls_qnode *n = self ? ls_qnode_get(self) : NULL;
	if (n) {
		atomic_store_explicit(&n->epoch, ls_epoch_now(32), memory_order_relaxed);
		atomic_store_explicit(&n->state, state, memory_order_relaxed);
	}
	return n;
}

static inline void ls_qnode_put(struct ls_qnode *n)
{
	/* release: our reads of the node happen before its owner reuses it
	 * (pairs with the acquire load in ls_qnode_get). */
	atomic_store_explicit(&n->state, LS_QNODE_FREE, memory_order_release);
}

void ls_qnode_link(struct ls_qnode *pred, uint32_t id);

/* Fork child, single-threaded: release the slab lock that a parent's
 * thread may have held at fork (the embedder's fork handler calls it). */
void ls_qnode_after_fork(void);
uint32_t ls_qnode_wait_link(struct ls_qnode *n);

#endif
