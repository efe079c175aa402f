/*
 * inline_verbs.h - the backends whose verbs the statistics' counting
 * tables (interpose/counting.c, interpose/rwlock_counting.c) inline rather
 * than call through the backend's table: today futex, the default of both
 * lists, whose mutex verbs (and, on x86-64, claims) are core/mutex/
 * futexlock.h's inline verbs, and whose rwlock read try and unlock are
 * below.  A counting table uses them when the chosen backend is that
 * table (ls_backend_futex, ls_rwlock_backend_futex); any other backend is
 * counted through its table's verbs.
 */
#ifndef LS_BACKENDS_INLINE_VERBS_H
#define LS_BACKENDS_INLINE_VERBS_H

#include "../core/mutex/futexlock.h"
#include "../core/rwlock/rwfutex.h"
#include "backend.h"
#include "rwlock.h"

extern const struct ls_lock_ops ls_backend_futex; /* futex.c */

#if defined(LS_FUTEX_NAME_OFF)
/* Claims (core/mutex/futexlock.h): the futex backend's counting tables
 * keep the statistics' holder word in bytes 4..7 of its lock state. */
#define LS_INLINE_CLAIM_NAME_OFF LS_FUTEX_NAME_OFF
_Static_assert(LS_INLINE_CLAIM_NAME_OFF + 4 <= LS_LOCK_STATE_BYTES,
               "the name's word is inside the lock state");
#endif

extern const struct ls_rwlock_ops ls_rwlock_backend_futex; /* rwlock_futex.c */

/* The read try without its back-out: 0, EAGAIN, or LS_RW_RAISED_BLOCKED,
 * after which the caller owes the back-out below (out of line: its
 * possible wake of a writer is a call). */
static inline int ls_rwlock_futex_inline_tryrd(void *s, unsigned flags)
{
	return ls_rwlock_tryrdlock_raise(s, flags);
}

static inline int ls_rwlock_futex_inline_backout(void *s)
{
	ls_rwlock_rdunlock(s);
	return EBUSY;
}

static inline void ls_rwlock_futex_inline_unlock(void *s, unsigned flags)
{
	ls_rwlock_unlock(s, flags);
}

#endif
