/*
 * combining.h - the combining lock: an MCS queue whose head runs the
 * queued critical sections of the threads behind it.
 *
 * Source: "The Combining Lock", snmalloc design document,
 * itself flat combining (Hendler et al.) on an MCS queue (Mellor-Crummey
 * and Scott 1991), with the two items of its future work done: bounded
 * back-off, then futex waiting instead of pure spinning.
 *
 * API: ls_combining_with(l, fn, arg) runs fn(arg) with mutual exclusion
 * among all calls on l and returns after it ran - possibly on another
 * thread (see the thread-local pitfall below).  There is no lock/unlock
 * pair: delegation needs the critical section as a closure.
 *
 * State (16 bytes, all-zero = free, empty queue):
 *   last   NULL = queue empty; else the newest node (MCS tail).
 *   flag   a core/mutex/futexlock.h word: held by a fast-path caller running
 *          its own fn, or by the queue's head for its whole combining run.
 * Node (ls_combining_node, on the caller's stack):
 *   next   NULL until the next arrival links itself (MCS).
 *   status a core/delegation/bcs_park.h reply word: 0 = WAITING, LS_COMBINING_DONE =
 *          another thread ran fn, LS_COMBINING_HEAD = you are the head now,
 *          plus the SLEEP bit while the owner is parked.
 *
 * Fast path (uncontended): last == NULL and trylock(flag): run fn, unlock.
 * Slow path: swap self into last, link prev->next, wait WAITING -> DONE
 * (return) or HEAD.  The head takes `flag` (excluding fast-path callers),
 * then runs fn of its node and of every linked successor, replying DONE to
 * each after reading its `next`, for at most LS_COMBINING_BATCH_MAX nodes.
 * Then it closes the queue (CAS last: cur -> NULL) or, if someone is
 * behind, releases `flag` and makes the next node HEAD.
 *
 * Lifetime rule: a waiter may return (its node dies with the frame) once it
 * reads DONE; the combiner must read `next` before writing DONE, and the
 * DONE exchange is its last access to that node (bcs_park.h).
 *
 * Fairness: FIFO among queued callers; a fast-path caller can overtake the
 * queue only while it is empty.  The head's own caller is released after
 * at most LS_COMBINING_BATCH_MAX critical sections, so no thread combines
 * forever.  Progress: blocking (it is a lock).  Waiting (core/runtime/wait.h):
 * spin while the policy allows, then futex park (waiters); the head
 * waiting for a late MCS link (an arrival between its swap and its link)
 * spins while the policy allows, then polls with sched_yield: the arrival is two
 * instructions from done and cannot be waited for any other way.
 *
 * Thread-local pitfall (from the source text): fn may run on another
 * thread, so inside fn errno, thread-locals and thread identity (gettid,
 * pthread_self, a recursive mutex's owner) are the combiner's, not the
 * caller's.  Pass pointers to the caller's state in arg instead.  fn must
 * not call ls_combining_with on the same lock (self-deadlock).
 */
#ifndef LS_CORE_COMBINING_H
#define LS_CORE_COMBINING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../mutex/futexlock.h"

enum {
	LS_COMBINING_WAITING = 0,
	LS_COMBINING_DONE = 1,
	LS_COMBINING_HEAD = 2,
};

#define LS_COMBINING_BATCH_MAX 64u

struct ls_combining_node {
	_Atomic(struct ls_combining_node *) next;
	_Atomic uint32_t status;
	void (*fn)(void *);
	void *arg;
};

struct ls_combining {
	_Atomic(struct ls_combining_node *) last;
	struct ls_futexlock flag;
};

void ls_combining_with_slow(struct ls_combining *l, void (*fn)(void *), void *arg);

static inline void ls_combining_with(struct ls_combining *l, void (*fn)(void *),
                                     void *arg)
{
	/* relaxed: only a hint; the flag's acquire orders the section. */
	if (atomic_load_explicit(&l->last, memory_order_relaxed) == NULL &&
	    ls_futexlock_trylock(&l->flag) == 0) {
		fn(arg);
		ls_futexlock_unlock(&l->flag);
		return;
	}
	ls_combining_with_slow(l, fn, arg);
}

/* Racy snapshot: queued or running? (for destroy's EBUSY) */
static inline bool ls_combining_busy(struct ls_combining *l)
{
	return atomic_load_explicit(&l->last, memory_order_relaxed) != NULL ||
	       ls_futexlock_is_locked(&l->flag);
}

#endif
