/*
 * lockable.h - a lock as a wrapper in core/ sees it: verbs on an opaque
 * state, nothing about what the lock is or how it was chosen.
 *
 * Wrappers (the capacitor, concurrency restriction) hold an inner lock in
 * part of their state and drive it through one of these.  Whoever composes
 * them (backends/) fills it in; core/ never includes backends/.
 * The verbs' contract is the backends' (backends/backend.h): lock -> 0,
 * trylock -> 0 or EBUSY, timedlock -> 0 or ETIMEDOUT with a validated
 * deadline, unlock by the holder, is_locked a racy snapshot.
 *
 * shared (optional, NULL for a mutex): a racy snapshot of whether the lock
 * is held in a mode that other threads may join (an rwlock's read mode).
 * A slice's watch (slice.c) needs it: an owner waiting for such holders
 * may wait on a thread queued behind it (a reader that holds the lock and
 * waits for another reader), so the queue must not wait for the owner.
 *
 * reserve (optional, NULL for most): set (on) or clear the inner lock's
 * reservation, a bit of its own word that its owner's fast path reads
 * instead of the slice word (core/wrap/slice_futex.h).  The slice calls
 * it after every change of whether a slice runs (slice.c ls_slice_mirror);
 * lock, trylock and timedlock take the lock whatever it says.
 */
#ifndef LS_CORE_LOCKABLE_H
#define LS_CORE_LOCKABLE_H

#include <stdbool.h>
#include <time.h>

struct ls_lockable {
	int (*lock)(void *s);
	int (*trylock)(void *s);
	int (*timedlock)(void *s, clockid_t clock, const struct timespec *abstime);
	void (*unlock)(void *s);
	bool (*is_locked)(void *s);
	bool (*shared)(void *s);
	void (*reserve)(void *s, bool on);
};

#endif
