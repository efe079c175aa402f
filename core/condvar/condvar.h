/*
 * condvar.h - lockswap's condition-variable wait queue.
 *
 * A FIFO doubly linked queue of per-thread records (core/runtime/thread.h), guarded
 * by a small internal lock word.  Works with any mutex: the caller releases
 * and re-takes its mutex around ls_condvar_wait(); this file never sees it.
 *
 * Waiter protocol (the waiter's record `event` word is its state):
 *   WAITING    enqueued, asleep or about to sleep
 *   CLAIMED    a broadcast has taken it and is building the baton chain
 *   SIGNALLED  woken by signal or broadcast: the wait returns 0
 *   ABANDONED  the waiter timed out or was cancelled before any claim
 * Signallers move WAITING -> CLAIMED/SIGNALLED with a CAS under the queue
 * lock; a waiter gives up with a CAS WAITING -> ABANDONED (no lock) and then
 * unlinks itself under the lock if nobody did.  Exactly one of the two CASes
 * wins, so a wake-up is consumed by at most one waiter and never lost.
 *
 * signal: dequeues the OLDEST live waiter (so it wakes a waiter that blocked
 *   before the signal), marks it SIGNALLED and wakes it, or, when the
 *   signalling thread holds the waiter's mutex, moves it asleep to that
 *   mutex's word, whose unlock wakes it (wait morphing: morph.h).  So
 *   does broadcast for the first of its chain, and each baton's passer,
 *   which has just taken the mutex back, for the next.
 * broadcast: detaches the whole queue, links the claimed waiters into a
 *   baton chain (cv_wake_next) and wakes only the first.  Each woken waiter
 *   re-takes its mutex and then wakes the next (ls_condvar_pass_baton), so the
 *   next one finds the mutex held and queues on the MUTEX, one at a time:
 *   no thundering herd, whatever the backend.
 *
 * Lifetimes: after a signaller sets SIGNALLED the waiter may return, and the
 *   cond may be destroyed; a woken waiter never touches the cond again (only
 *   its own record and its successor's).  The signaller's futex wake after
 *   that point hits a type-stable record: at worst a spurious wake.  The
 *   broadcaster reads a record's cv_wake_next BEFORE storing SIGNALLED.
 *
 * fork: the lock word carries the fork epoch (bits 31..2).  A queue last
 *   touched in an older epoch holds only dead parent threads' records (the
 *   forking thread cannot be waiting), so the first locker in the child
 *   discards it, atomically with taking the lock.
 *
 * Layout: 24 bytes, all-zero = empty; the interposer keeps the rest of the
 * 48-byte pthread_cond_t (glibc's flags word lives there).
 */
#ifndef LS_CORE_CONDVAR_H
#define LS_CORE_CONDVAR_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/thread.h"

enum {
	LS_CV_WAITING = 1,
	LS_CV_CLAIMED = 2,
	LS_CV_SIGNALLED = 3,
	LS_CV_ABANDONED = 4,
};

struct ls_condvar {
	_Atomic uint32_t lock;  /* (epoch << 2) | LS_CV_LOCK_* */
	_Atomic uint32_t stats; /* statistics slot (interposer), 0 = none */
	struct ls_thread *_Atomic head;
	struct ls_thread *tail;
};

/* The lock the waiter will take back and its morph verbs (morph.h), or
 * NULL and NULL (a signal wakes it).  Before ls_condvar_enqueue. */
static inline void ls_condvar_record_lock(struct ls_thread *self, void *lock,
                                          const struct ls_cv_morph *ops)
{
	atomic_store_explicit(&self->cv_lock, lock, memory_order_relaxed);
	atomic_store_explicit(&self->cv_morph, ops, memory_order_relaxed);
}

/* Enqueue the caller (state WAITING).  Call before releasing the mutex. */
void ls_condvar_enqueue(struct ls_condvar *cv, struct ls_thread *self);

/* Sleep until signalled (0) or until abstime passes (ETIMEDOUT, and the
 * caller is off the queue).  abstime NULL = no deadline; it must be valid.
 * The sleep is a cancellation point (ls_park_cancel_point): a cancelled
 * waiter leaves through the embedder's cleanup (ls_condvar_leave). */
int ls_condvar_wait(struct ls_condvar *cv, struct ls_thread *self, clockid_t clock,
                    const struct timespec *abstime);

/* Leave the queue without waiting for a signal (cancellation, or a failed
 * mutex release).  If a signal had already been consumed it is passed on,
 * so it is not lost.  Touches the cond only if no broadcast woke us. */
void ls_condvar_leave(struct ls_condvar *cv, struct ls_thread *self);

/* After a successful wait and re-taking the mutex: wake the next waiter of
 * the broadcast chain, if any. */
void ls_condvar_pass_baton(struct ls_thread *self);

/* After a wait that returned 0 (or a cancelled one's leave), before taking
 * the mutex back: if the signal moved the caller to its mutex's word
 * (morph.h), mark the mutex for the word's other sleepers.  The caller
 * records its lock (ls_condvar_record_lock) before ls_condvar_enqueue. */
void ls_condvar_morphed(struct ls_thread *self);

/* Return the number of waiters woken or moved to their mutex (0 or 1;
 * broadcast: the chain length). */
int ls_condvar_signal(struct ls_condvar *cv);
int ls_condvar_broadcast(struct ls_condvar *cv);

#endif
