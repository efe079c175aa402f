/*
 * queued.h - word-sized queued mutex: locked bit and waiter list in one
 * word, per-waiter park/unpark, oldest waiter woken first, optional
 * eventual fairness by direct handoff.
 *
 * Source: kprotty, "Building a small, fast Mutex" (blog post): a
 * Treiber stack of waiters packed with the locked bit into one word, with
 * the stack linked backwards into a FIFO as Windows' SRWLOCK does; the
 * queue-lock bit and the tail cached in the newest node follow Amanieu
 * d'Antras' parking_lot WordLock; the starvation handoff follows Go's
 * sync.Mutex (starvation mode) and parking_lot's eventual fairness.
 *
 * State: one 64-bit word (all-zero = unlocked, no waiters):
 *   bit 0        LS_QUEUED_LOCKED   held
 *   bit 1        LS_QUEUED_QLOCKED  a thread is editing the waiter list
 *   bits 2..31   head               record id (core/runtime/thread.h) of the NEWEST
 *                                   waiter, 0 = no waiters
 *   bits 32..39  epoch              low 8 bits of ls_fork_epoch when the
 *                                   list was started; 0 while empty
 * Waiter = the thread's record: q_next points to the next OLDER waiter,
 * q_prev to the next newer one (filled in lazily under QLOCKED),
 * q_word[LS_QUEUED_TAIL] caches the oldest waiter in the newest node that a
 * list walk started from, q_word[LS_QUEUED_T0] holds the time the waiter
 * first queued (fair mode).  Its `event` word is its park/unpark event:
 *   WAITING (queued) -> WOKEN (dequeued: try again) or HANDOFF (dequeued
 *   and given the lock).  Set only after the waiter left the list, by the
 *   thread that dequeued it.
 *
 * Record lifetime: a record is reachable from the list only between its
 * push and its dequeue or self-removal (both under QLOCKED).  After the
 * dequeue only the dequeuer touches it, once: the store of WOKEN/HANDOFF,
 * and the waiter never returns before seeing that store (a timed-out
 * waiter that finds itself already dequeued waits for it).  The futex
 * wake that follows may hit a record whose thread moved on: a spurious
 * wake-up, which every wait loop tolerates.
 *
 * lock:   CAS LOCKED in whenever it is clear (barging allowed).  Spin
 *         spin (core/runtime/wait.h) while no one is queued; then push the record
 *         (one CAS, no queue lock) and park on its event.
 * unlock: clear LOCKED; if waiters exist and no one holds QLOCKED, take
 *         QLOCKED, walk from the newest waiter to the cached tail, dequeue
 *         the OLDEST waiter and wake it.  If QLOCKED is held, its holder
 *         does that work when it releases QLOCKED (every QLOCKED release
 *         re-checks "free with waiters"); if LOCKED was re-taken, the new
 *         holder's unlock does it.
 * fair (LOCKSWAP_FAIR_US > 0): an unlock that finds the oldest waiter
 *         queued for at least that long hands the lock to it directly
 *         (LOCKED never clears), so no newcomer can barge past it.
 * timeout: the waiter takes QLOCKED, and if it is still in the list,
 *         unlinks itself; if an unlock dequeued it first, it waits for its
 *         event: HANDOFF means it owns the lock (returns 0), WOKEN means it
 *         consumed a wake, so it tries the lock once, and if it is held the
 *         holder's unlock will wake the next waiter.
 *
 * Fairness: unfair by default (barging; a woken waiter that loses re-queues
 * as the newest), but wakes go oldest first.  With LOCKSWAP_FAIR_US, a
 * waiter that has waited that long gets the lock at the next unlock once it
 * is the oldest: starvation is bounded.
 *
 * fork: a list whose epoch differs from the current one holds only dead
 * parent threads (the forking thread was not waiting), and a QLOCKED bit
 * from then belongs to a dead thread.  The first push in the child starts a
 * fresh list (dropping the old one and the stale QLOCKED), and an unlock
 * clears both.  8-bit epoch: see core/mutex/ticket.h.
 *
 * Memory order: taking LOCKED is acquire and pairs with the release that
 * clears it (or with the release store of HANDOFF); the push CAS is release
 * and publishes the record's links to the QLOCKED holder, who takes
 * QLOCKED with acquire and releases it with release; WOKEN/HANDOFF are
 * release stores read with acquire.  The link fields (q_next, q_prev,
 * q_word) are relaxed: they are written by the owner before its release
 * push, or under QLOCKED, whose acquire/release orders them.  Polls and
 * failed-CAS reloads are relaxed and re-validated by the CAS that acts.
 */
#ifndef LS_CORE_QUEUED_H
#define LS_CORE_QUEUED_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define LS_QUEUED_LOCKED 1ull
#define LS_QUEUED_QLOCKED 2ull
#define LS_QUEUED_HEAD_SHIFT 2
#define LS_QUEUED_HEAD_MASK 0xfffffffcull
#define LS_QUEUED_EPOCH_SHIFT 32
#define LS_QUEUED_EPOCH_MASK (0xffull << LS_QUEUED_EPOCH_SHIFT)

enum { LS_QUEUED_TAIL = 0, LS_QUEUED_T0 = 1 }; /* q_word slots */

enum {
	LS_QUEUED_WAITING = 1,
	LS_QUEUED_WOKEN = 2,
	LS_QUEUED_HANDOFF = 3,
};

/* LOCKSWAP_FAIR_US: hand off to a waiter queued this long (0 = never). */
extern _Atomic unsigned ls_queued_fair_us;

struct ls_queued {
	_Atomic uint64_t word;
};

int ls_queued_lock_slow(struct ls_queued *l, clockid_t clock, const struct timespec *abstime);
void ls_queued_unlock_slow(struct ls_queued *l);

static inline int ls_queued_trylock(struct ls_queued *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	while (!(w & LS_QUEUED_LOCKED))
		/* acquire: pairs with the release that cleared LOCKED. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_QUEUED_LOCKED,
		                                          memory_order_acquire, memory_order_relaxed))
			return 0;
	return EBUSY;
}

static inline int ls_queued_lock(struct ls_queued *l)
{
	uint64_t w = 0;
	if (atomic_compare_exchange_strong_explicit(&l->word, &w, LS_QUEUED_LOCKED,
	                                            memory_order_acquire, memory_order_relaxed))
		return 0;
	return ls_queued_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

static inline int ls_queued_timedlock(struct ls_queued *l, clockid_t clock,
                                      const struct timespec *abstime)
{
	uint64_t w = 0;
	if (atomic_compare_exchange_strong_explicit(&l->word, &w, LS_QUEUED_LOCKED,
	                                            memory_order_acquire, memory_order_relaxed))
		return 0;
	return ls_queued_lock_slow(l, clock, abstime);
}

static inline void ls_queued_unlock(struct ls_queued *l)
{
	uint64_t w = LS_QUEUED_LOCKED;
	/* release: publishes the critical section to the next holder. */
	if (!atomic_compare_exchange_strong_explicit(&l->word, &w, 0, memory_order_release,
	                                             memory_order_relaxed))
		ls_queued_unlock_slow(l);
}

static inline bool ls_queued_is_locked(struct ls_queued *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) & LS_QUEUED_LOCKED;
}

/* Single-threaded verbs (backends/backend.h, interpose/start/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_queued_lock_plain(struct ls_queued *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	atomic_store_explicit(&l->word, (uint64_t)LS_QUEUED_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_queued_unlock_plain(struct ls_queued *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_QUEUED_LOCKED)
		return false; /* waiters (or a fork's leftovers): the atomic verb wakes them */
	atomic_store_explicit(&l->word, (uint64_t)0, memory_order_relaxed);
	return true;
}

#endif
