/*
 * rwlock.h - rwlock backends: const tables of operations on the rwlock
 * state that lives in place inside each pthread_rwlock_t, chosen once by
 * LOCKSWAP_RWLOCK (independently of LOCKSWAP_BACKEND).
 *
 * The interposer (interpose/rwlock.c) owns everything pthread-specific:
 * the kind (reader or writer preference, passed as LS_RW_* flags), the
 * write owner for EDEADLK, timespec validation, pass-through.  A backend
 * provides a reader-writer lock over at most LS_RWLOCK_STATE_BYTES bytes
 * whose all-zero value means unlocked.
 *
 * Verbs (callers guarantee the preconditions):
 *   rdlock(s, flags)                      -> 0 or EAGAIN (reader overflow)
 *   tryrdlock(s, flags)                   -> 0, EBUSY or EAGAIN
 *   timedrdlock(s, flags, clock, abstime) -> 0, ETIMEDOUT or EAGAIN
 *   wrlock(s, flags)                      -> 0
 *   trywrlock(s, flags)                   -> 0 or EBUSY
 *   timedwrlock(s, flags, clock, abstime) -> 0 or ETIMEDOUT
 *   unlock(s, flags)                      the caller holds it (either mode)
 * clock is CLOCK_REALTIME or CLOCK_MONOTONIC; abstime is validated (tv_sec
 * may be negative: already expired).
 *
 * The "glibc" entry has no operations: pass-through to glibc.
 */
#ifndef LS_BACKENDS_RWLOCK_H
#define LS_BACKENDS_RWLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define LS_RWLOCK_STATE_BYTES 24

struct ls_rwlock_ops {
	const char *name;
	const char *about; /* one line: fairness claim and waiting policy */
	size_t state_size;
	int (*rdlock)(void *s, unsigned flags);
	int (*tryrdlock)(void *s, unsigned flags);
	int (*timedrdlock)(void *s, unsigned flags, clockid_t clock, const struct timespec *abstime);
	int (*wrlock)(void *s, unsigned flags);
	int (*trywrlock)(void *s, unsigned flags);
	int (*timedwrlock)(void *s, unsigned flags, clockid_t clock, const struct timespec *abstime);
	void (*unlock)(void *s, unsigned flags);
};

/* In listing order, NULL-terminated: glibc, futex, bravo. */
extern const struct ls_rwlock_ops *const ls_rwlock_backends[];

static inline bool ls_rwlock_is_passthrough(const struct ls_rwlock_ops *b)
{
	return b->rdlock == NULL;
}

/* Target of LOCKSWAP_RWLOCK (the index among its choices, which are these
 * backends' names; the interposer selects by name). */
extern _Atomic unsigned ls_rwlock_choice;

/* The backend called `name`, or NULL. */
const struct ls_rwlock_ops *ls_rwlock_backend_find(const char *name);

#endif
