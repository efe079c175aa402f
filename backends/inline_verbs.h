/*
 * inline_verbs.h - backends whose verbs a caller may inline, as functions
 * over the lock state (`void *`, as the table's verbs take it), for a
 * caller that wants them without an indirect call: the statistics'
 * counting table (interpose/counting.c), which instantiates one table per
 * entry of LS_INLINE_BACKENDS and uses it when that entry's table is the
 * chosen backend.  The shim names no algorithm: it reads this list.
 *
 * Today the list holds futex, the default backend.  The single-threaded ones are what
 * LS_SINGLE_TABLE (backend.h) makes of the futex verbs: plain loads and
 * stores while glibc says the process has one thread, else tell
 * core/runtime/single.h (its gate moves to the atomic table) and use the
 * atomic verb.
 */
#ifndef LS_BACKENDS_INLINE_VERBS_H
#define LS_BACKENDS_INLINE_VERBS_H

#include "../core/mutex/futexlock.h"
#include "../core/runtime/single.h"
#include "backend.h"

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

#endif
