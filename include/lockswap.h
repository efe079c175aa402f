/*
 * lockswap.h - lockswap's native API, for programs that can be changed to
 * hand their critical sections to a delegation lock instead of using a
 * pthread mutex.  Link with -llockswap-native (pkg-config lockswap); this
 * library never replaces the program's pthread functions.
 *
 *     static lockswap_lock_t lock = LOCKSWAP_LOCK_INITIALIZER;  // LOCKSWAP_BCS
 *     static long counter;
 *     static void add(void *arg) { counter += *(long *)arg; }
 *     ...
 *     long one = 1;
 *     lockswap_with(&lock, add, &one);   // add() ran, under the lock
 *
 * Flavours (choose one per lock):
 *   LOCKSWAP_BCS        Batched Critical Sections, lock-free submit: the
 *                       first caller to find the lock idle runs every
 *                       queued fn, oldest first, then wakes their callers.
 *   LOCKSWAP_BCS_WF     the same with a wait-free submit (two atomic swaps).
 *   LOCKSWAP_COMBINING  snmalloc's combining lock: an MCS queue whose head
 *                       runs the fn of every queued caller; an uncontended
 *                       call runs fn at once on the caller's thread.
 *
 * Guarantees: calls on one lock never run their fn concurrently; each fn
 * runs exactly once; lockswap_with returns only after its fn returned, and
 * everything fn wrote is visible to the caller then (and to every later fn
 * on the same lock).
 *
 * THE THREAD-LOCAL PITFALL: fn may run on another thread (the one that
 * happened to be combining).  Inside fn, errno, thread-local variables,
 * pthread_self(), gettid() and the ownership of recursive or error-checking
 * mutexes belong to that thread, not to the caller.  Do not write a
 * thread_local in fn expecting to read it back after lockswap_with: pass a
 * pointer to the caller's variable in arg instead.  Do not lock a mutex in
 * fn and unlock it after lockswap_with (the owner differs).
 *
 * Other rules: fn must not call lockswap_with on the same lock (it would
 * wait for itself), must return (no longjmp out, no thread exit), and may be
 * kept waiting behind other callers' fn.  After fork(), the child may use a
 * lock only if no other thread of the parent was inside lockswap_with on it
 * (its queue would hold that thread's node, on a stack the child reuses).
 */
#ifndef LOCKSWAP_H
#define LOCKSWAP_H

#ifdef __cplusplus
extern "C" {
#endif

/* 32 opaque bytes; all-zero is an initialised, idle LOCKSWAP_BCS lock. */
typedef struct lockswap_lock {
	unsigned long long opaque_[4];
} lockswap_lock_t;

#define LOCKSWAP_LOCK_INITIALIZER { { 0, 0, 0, 0 } }

enum lockswap_flavour {
	LOCKSWAP_BCS = 1,
	LOCKSWAP_BCS_WF = 2,
	LOCKSWAP_COMBINING = 3,
};

/* Initialise *lock as an idle lock of that flavour: 0, or EINVAL for an
 * unknown flavour (the lock is then left untouched). */
int lockswap_lock_init(lockswap_lock_t *lock, int flavour);

/* 0, or EBUSY if a call is running or queued (the lock stays usable). */
int lockswap_lock_destroy(lockswap_lock_t *lock);

/* Run fn(arg) under the lock, possibly on another thread (see above). */
void lockswap_with(lockswap_lock_t *lock, void (*fn)(void *arg), void *arg);

/* The flavour of an initialised lock (LOCKSWAP_BCS for all-zero). */
int lockswap_lock_flavour(const lockswap_lock_t *lock);

/* How long a waiter spins before it parks, for every lock of this library
 * in the process (the interposer's LOCKSWAP_SPIN, which this library does
 * not read): LOCKSWAP_SPIN_ADAPTIVE (the default: a time budget learnt per
 * lock, spent only while a CPU is free for the spinner) or a fixed number
 * of polls in [0, LOCKSWAP_SPIN_MAX] (0: park at once).  Returns 0, or
 * EINVAL for any other value (the setting is then left as it was).  Meant
 * to be called once before the locks are contended; a waiter already
 * spinning keeps the budget it started with. */
#define LOCKSWAP_SPIN_ADAPTIVE (-1L)
#define LOCKSWAP_SPIN_MAX 1000000L
int lockswap_set_spin(long polls);

#ifdef __cplusplus
}
#endif

#endif
