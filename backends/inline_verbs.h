/*
 * inline_verbs.h - backends whose verbs a caller may inline, as functions
 * over the lock state (`void *`, as the table's verbs take it), for a
 * caller that wants them without an indirect call: the statistics'
 * counting tables (interpose/counting.c, interpose/rwlock_counting.c),
 * which instantiate one table per entry of LS_INLINE_BACKENDS (mutexes)
 * and LS_INLINE_RWLOCK_BACKENDS, and use it when that entry's table is
 * the chosen backend.  The shim names no algorithm: it reads these lists.
 *
 * Today each list holds futex, the default backend.  The single-threaded ones are what
 * LS_SINGLE_TABLE (backend.h) makes of the futex verbs: plain loads and
 * stores while glibc says the process has one thread, else tell
 * core/runtime/single.h (its gate moves to the atomic table) and use the
 * atomic verb.
 */
#ifndef LS_BACKENDS_INLINE_VERBS_H
#define LS_BACKENDS_INLINE_VERBS_H

#include "../core/mutex/futexlock.h"
#include "../core/runtime/single.h"
#include "../core/rwlock/rwlock.h"
#include "backend.h"
#include "rwlock.h"

extern const struct ls_lock_ops ls_backend_futex; /* futex.c */

static inline int ls_futex_inline_try(void *s)
{
	return ls_futexlock_trylock(s);
}

static inline void ls_futex_inline_unlock(void *s)
{
	ls_futexlock_unlock(s);
}

static inline int ls_futex_inline_try_single(void *s)
{
	/* Both expected: the plain store falls through to what follows. */
	if (__builtin_expect(ls_single_threaded(), 1) &&
	    __builtin_expect(ls_futexlock_lock_plain(s), 1))
		return 0;
	ls_single_over();
	return ls_futexlock_trylock(s);
}

static inline void ls_futex_inline_unlock_single(void *s)
{
	if (__builtin_expect(ls_single_threaded(), 1) && ls_futexlock_unlock_plain(s))
		return;
	ls_single_over();
	ls_futexlock_unlock(s);
}

/* X(id, table, try, try_single, unlock, unlock_single): the backend's
 * ops table and its atomic and single-threaded trylock and unlock. */
#define LS_INLINE_BACKENDS(X)                                                              \
	X(futex, ls_backend_futex, ls_futex_inline_try, ls_futex_inline_try_single,        \
	  ls_futex_inline_unlock, ls_futex_inline_unlock_single)

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

/* X(id, table, tryrd, backout, unlock): the rwlock backend's ops table;
 * its read try, which answers 0, an errno value, or LS_RW_RAISED_BLOCKED
 * (the caller then owes backout, which answers the errno value); and its
 * unlock (either mode). */
#define LS_INLINE_RWLOCK_BACKENDS(X)                                                       \
	X(futex, ls_rwlock_backend_futex, ls_rwlock_futex_inline_tryrd,                    \
	  ls_rwlock_futex_inline_backout, ls_rwlock_futex_inline_unlock)

#endif
