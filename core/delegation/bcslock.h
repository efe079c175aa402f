/*
 * bcslock.h - a mutex whose contended operations are Batched Critical
 * Sections (core/delegation/bcs.h): the lock's own bookkeeping (who owns it, who waits)
 * is the data structure the BCS queue protects.
 *
 * Source: kprotty, "Batched Critical Sections" (blog post): "submit
 * a waiter to a wait-queue ... optionally made synchronous by waiting on
 * what's submitted (waking it when it's handled by the critical section)".
 *
 * Uncontended: one CAS to lock (word 0 -> LOCKED), one CAS to unlock
 * (LOCKED -> 0).  Contended: the thread submits its per-thread node with a
 * request (LOCK, UNLOCK or CANCEL) to the lock's BCS queue; whichever
 * thread is the consumer handles every queued request in a batch, then
 * publishes the replies (the deferred wakes).  Two variants share the state
 * and the handlers and differ only in the queue: lock-free (Treiber, `bcs`)
 * or wait-free submit (Vyukov + sentinel hand-off, `bcs-wf`).
 *
 * State (16 bytes, all-zero = unlocked, no queue):
 *   sub        the BCS queue word: NULL = no request pending, no consumer;
 *              else the Treiber top / Vyukov tail (core/delegation/bcs.h).
 *   word       LS_BCSL_LOCKED   held
 *              LS_BCSL_WAITERS  the FIFO of parked waiters is non-empty
 *              bits 2..31       fork epoch (ls_fork_epoch mod 2^30) when
 *                               the FIFO was started; meaningful only
 *                               with WAITERS, zero otherwise.
 *              So 0 = free, LOCKED = held with no waiter queued,
 *              LOCKED|WAITERS|epoch<<2 = held, FIFO non-empty,
 *              WAITERS|epoch<<2 = free while the FIFO head competes for it
 *              (after a RETRY wake-up, below).
 *              Fast paths: lock sets LOCKED (CAS, only if clear), unlock
 *              CAS LOCKED -> 0 (fails with WAITERS); every other change is
 *              made by the consumer.
 *   fifo_tail  consumer-only: thread id of the newest queued waiter (the
 *              FIFO is a circular doubly linked list of per-thread nodes
 *              through their ids), 0 = empty.
 *
 * Hand-over policy: wake the FIFO head to compete, then hand off.  An
 * UNLOCK handled while waiters are queued pops the oldest one.  The first
 * time, the lock is freed and the waiter is woken (RETRY) to take it with
 * a CAS, racing newcomers; a waiter that loses re-queues at the FRONT of
 * the FIFO with tries = 1, and the next UNLOCK hands it the lock directly
 * (GRANTED, the word stays LOCKED: no one can overtake it again).  Every
 * wake is published after the batch.  Why: pure FIFO hand-off serialises
 * the lock behind the scheduler (the lock is held by a thread that is not
 * running yet: on 2 cores with 8 threads mutexbench fell from 18M to 0.1M
 * ops/s), which is the very cost BCS sets out to remove; pure barging lets
 * a parked waiter starve.  One lost race then hand-off (as the Linux
 * mutex's HANDOFF bit) keeps the throughput of a barging lock and bounds
 * the bypass.  LS_BCSL_HANDOFF_AFTER sets the number of lost races.
 * While every thread of the process has a CPU of its own, a head that is
 * parked (asleep in the kernel) is woken with RETRY again instead of being
 * handed the lock, until it has lost LS_BCSL_HANDOFF_PARKED_AFTER races:
 * a hand-off to a sleeping thread keeps the lock idle for a wake-up (~7 us
 * on a 16-core VM) while the threads that run could take it (issue 38).
 *
 * Fairness: FIFO among queued waiters; a waiter can be overtaken only by
 * threads that take the lock during its one wake-up window (bounded in
 * time, not in count), then it gets the lock by hand-off.  Progress:
 * deadlock-free, starvation-free for queued waiters; lf submit lock-free,
 * wf submit wait-free; a batch lasts at most one request per thread (every
 * submitter waits for its reply).
 *
 * Waiting (core/runtime/wait.h): spin on the fast path while nobody is queued,
 * then submit, then spin on the node's status, then park on it; after a
 * RETRY wake-up, one trylock plus a spin before re-queuing.  The spin on
 * the node, while every thread has a CPU of its own (ls_thread_live() <=
 * CPUs), takes no place in the spinner count and has a queue waiter's
 * budget (ls_spin_start_own_cpu): with the bound of CPUs - 2 spinners,
 * 16 threads on 16 CPUs left one queued waiter or more asleep at every
 * moment, and FIFO order brought each of them to the head asleep.  A waiter
 * cancelled while parked takes its LOCK back with a CANCEL, as a timeout
 * does; a contended unlock is never cut by cancellation.
 *
 * Fork: queued nodes of dead threads are discarded, never handed the lock
 * (see bcslock.c): a child can use every lock that was free or held by
 * the forking thread.
 */
#ifndef LS_CORE_BCSLOCK_H
#define LS_CORE_BCSLOCK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bcs.h"
#include "../runtime/thread.h"

enum {
	LS_BCSL_LOCKED = 1u,
	LS_BCSL_WAITERS = 2u,
	LS_BCSL_EPOCH_SHIFT = 2,
};
#define LS_BCSL_EPOCH_MASK (~(uint32_t)(LS_BCSL_LOCKED | LS_BCSL_WAITERS))

struct ls_bcslock {
	union {
		struct ls_bcs lf;
		struct ls_bcs_wf wf;
	} sub;
	_Atomic uint32_t word;
	uint32_t fifo_tail;
};

/*
 * Per-thread request node, one per thread record id, in mmap'ed slabs that
 * are never unmapped (type-stable, like the records; never on a stack or in
 * static TLS, so it survives fork and thread exit as valid memory).
 *
 * status (futex word; flags or-ed in by the consumer, owner resets it to 0
 * before each new request):
 *   LS_BCSN_SLEEP      owner is parked (or about to park) on status
 *   LS_BCSN_RELEASED   the consumer handled the request and is done with
 *                      the node's submission links
 *   LS_BCSN_GRANTED    the lock now belongs to the owner
 *   LS_BCSN_CANCELLED  a CANCEL took the owner's LOCK out of the FIFO
 *   LS_BCSN_RETRY      an UNLOCK popped the owner's LOCK and left the lock
 *                      free for it to compete for
 *
 * Lifetime rule: the owner may reuse its node once every reply it waits for
 * is in status (LOCK: RELEASED and GRANTED or RETRY; UNLOCK: RELEASED;
 * CANCEL: RELEASED and GRANTED, RETRY or CANCELLED).  Each reply is one atomic fetch_or
 * and is the publisher's last access to the node; the publisher reads
 * `next`, `batch` and `grantee` before it.  The futex wake that may follow
 * touches only the address, in type-stable memory: a late wake is spurious.
 */
enum {
	LS_BCSN_SLEEP = 1u,
	LS_BCSN_RELEASED = 2u,
	LS_BCSN_GRANTED = 4u,
	LS_BCSN_CANCELLED = 8u,
	LS_BCSN_RETRY = 16u,
};

/* Lost races after a RETRY wake-up before the next UNLOCK hands off. */
#define LS_BCSL_HANDOFF_AFTER 1u
/* While every thread of the process has a CPU of its own: lost races
 * after which the hand-off goes to the FIFO head even if it is parked.
 * Before that, a parked head is woken with RETRY (the lock left free for
 * whoever runs), so no hand-over waits for a wake-up (issue 38). */
#define LS_BCSL_HANDOFF_PARKED_AFTER 4u

enum { LS_BCSN_LOCK = 1, LS_BCSN_UNLOCK = 2, LS_BCSN_CANCEL = 3 };

struct ls_bcslock_node {
	struct ls_bcs_node q;            /* submission link; first member */
	_Atomic uint32_t status;
	uint32_t id;                     /* thread record id; 0 = the spare */
	struct ls_thread *owner;         /* fixed; NULL for the spare */
	uint8_t op;                      /* owner-written before submit */
	uint8_t tries;                   /* owner-written: lost races so far */
	uint8_t where;                   /* consumer-only: queued / owner / retry */
	uint32_t reply;                  /* consumer-only: flags for done() */
	uint32_t grant;                  /* consumer-only: UNLOCK's reply to grantee */
	uint32_t fifo_next, fifo_prev;   /* consumer-only: FIFO links (ids) */
	struct ls_bcslock_node *grantee; /* consumer-only: UNLOCK's hand-off */
	bool skipped;                    /* consumer-only: UNLOCK's RETRY replaced a
	                                  * hand-off to a parked head */
	/* this thread's counters, on a line of their own (below) */
	struct ls_bcslock_counts {
		_Alignas(64) _Atomic uint64_t slow_locks;
		_Atomic uint64_t parks, lost_races, grants, grants_parked;
		_Atomic uint64_t retries, retries_parked, parked_skips, own_cpu_waits;
	} counts;
} __attribute__((aligned(64)));

/*
 * Counters of the hand-over mechanism (LOCKSWAP_BCS_COUNTS): per thread,
 * in the node slabs, so counting touches no shared line.  The waiter's
 * own events are counted by the owner; a hand-over is counted by the
 * consumer that publishes it, on the UNLOCK's node (its owner waits for
 * RELEASED meanwhile, so one thread at a time writes each field).
 * Relaxed load + store: a sum read while threads run may be a little old.
 */
/* The fields of struct ls_bcslock_counts:
 *   slow_locks      lock calls that submitted a LOCK
 *   parks           the owner slept on its node (a futex wait that slept)
 *   lost_races      woken with RETRY, the owner found the lock taken
 *   grants          hand-offs: the lock given to the FIFO head
 *   grants_parked   ... whose owner the reply woke from a sleep: the lock
 *                   waited for that wake-up
 *   retries         the lock freed and the FIFO head told to compete
 *   retries_parked  ... whose owner the reply woke (a wake-up, off the lock's
 *                   critical path: the lock is free meanwhile)
 *   parked_skips    RETRY instead of a hand-off because the head was parked
 *                   (threads <= CPUs, LS_BCSL_HANDOFF_PARKED_AFTER)
 *   own_cpu_waits   waits on the node that found every thread with a CPU
 *                   of its own (spun without the spinner bound) */

/* Sum of every thread's counters since start (or the last fork). */
void ls_bcslock_counts_sum(struct ls_bcslock_counts *out);
/* LOCKSWAP_BCS_COUNTS (backends/bcs.c): print the sum at exit. */
extern _Atomic unsigned ls_bcslock_counts_on;
/* LOCKSWAP_BCS_OWN_CPU (backends/bcs.c, default on): the waiting and
 * hand-over rules for threads <= CPUs (above); off = the policy before
 * them, for A/B runs. */
extern _Atomic unsigned ls_bcslock_own_cpu_on;

/* The calling thread's node (NULL only if mmap failed). */
struct ls_bcslock_node *ls_bcslock_node_self(void);
/* The node of thread record `t` (tests use it to build stale queues). */
struct ls_bcslock_node *ls_bcslock_node_of(struct ls_thread *t);

int ls_bcslock_lock_slow(struct ls_bcslock *l, bool wf, clockid_t clock,
                         const struct timespec *abstime);
void ls_bcslock_unlock_slow(struct ls_bcslock *l, bool wf);

static inline int ls_bcslock_trylock(struct ls_bcslock *l)
{
	uint32_t w = 0;
	/* acquire: pairs with the release that freed the lock (fast unlock
	 * or the consumer's store). */
	if (atomic_compare_exchange_strong_explicit(&l->word, &w, LS_BCSL_LOCKED,
	                                            memory_order_acquire,
	                                            memory_order_relaxed))
		return 0;
	/* Free while the FIFO head competes (WAITERS|epoch): keep the bits. */
	while (!(w & LS_BCSL_LOCKED))
		if (atomic_compare_exchange_weak_explicit(&l->word, &w,
		                                          w | LS_BCSL_LOCKED,
		                                          memory_order_acquire,
		                                          memory_order_relaxed))
			return 0;
	return EBUSY;
}

static inline bool ls_bcslock_is_locked(struct ls_bcslock *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) & LS_BCSL_LOCKED;
}

static inline bool ls_bcslock_unlock_fast(struct ls_bcslock *l)
{
	uint32_t w = LS_BCSL_LOCKED;
	/* release: publishes the critical section to the next acquirer. */
	return atomic_compare_exchange_strong_explicit(
	        &l->word, &w, 0, memory_order_release, memory_order_relaxed);
}

/* Lock-free variant (backend "bcs"). */
static inline int ls_bcslock_lock(struct ls_bcslock *l)
{
	if (ls_bcslock_trylock(l) == 0)
		return 0;
	return ls_bcslock_lock_slow(l, false, CLOCK_MONOTONIC, NULL);
}

static inline int ls_bcslock_timedlock(struct ls_bcslock *l, clockid_t clock,
                                       const struct timespec *abstime)
{
	if (ls_bcslock_trylock(l) == 0)
		return 0;
	return ls_bcslock_lock_slow(l, false, clock, abstime);
}

static inline void ls_bcslock_unlock(struct ls_bcslock *l)
{
	if (!ls_bcslock_unlock_fast(l))
		ls_bcslock_unlock_slow(l, false);
}

/* Wait-free-submit variant (backend "bcs-wf"); same state, same fast path. */
static inline int ls_bcslock_wf_lock(struct ls_bcslock *l)
{
	if (ls_bcslock_trylock(l) == 0)
		return 0;
	return ls_bcslock_lock_slow(l, true, CLOCK_MONOTONIC, NULL);
}

static inline int ls_bcslock_wf_timedlock(struct ls_bcslock *l, clockid_t clock,
                                          const struct timespec *abstime)
{
	if (ls_bcslock_trylock(l) == 0)
		return 0;
	return ls_bcslock_lock_slow(l, true, clock, abstime);
}

static inline void ls_bcslock_wf_unlock(struct ls_bcslock *l)
{
	if (!ls_bcslock_unlock_fast(l))
		ls_bcslock_unlock_slow(l, true);
}

/* Single-threaded verbs (backends/backend.h, interpose/start/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_bcslock_lock_plain(struct ls_bcslock *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)LS_BCSL_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_bcslock_unlock_plain(struct ls_bcslock *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_BCSL_LOCKED)
		return false; /* waiters (or a fork's leftovers): the atomic verb wakes them */
	atomic_store_explicit(&l->word, (uint32_t)0, memory_order_relaxed);
	return true;
}

#endif
