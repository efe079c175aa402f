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

/*
 * The counting table's tries (interpose/counting.c): true when the lock was
 * taken, with *found set to the lock word as it was, which is 0 then.  The
 * table's lock verb returns that value as its result, so the zero it
 * returns is already in a register: on x86-64 the compare-and-swap's
 * expected value (%eax, the return register), or the plain load's result.
 * Written so that the compiler cannot know the value is 0 (the test is the
 * instruction's own flag), or it would make a new zero after the row's
 * address had taken the register (one instruction more on every
 * uncontended lock with statistics on).
 */
static inline bool ls_futex_inline_try(void *s, int *found)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	struct ls_futexlock *l = s;
	uint32_t seen = LS_FUTEX_UNLOCKED;
	bool taken;
	/* Acquire on success, as ls_futexlock_trylock: a locked instruction
	 * is a full barrier on x86-64, and the "memory" clobber keeps the
	 * compiler from moving the critical section's accesses above it. */
	__asm__ volatile("lock cmpxchgl %3, %1"
	                 : "=@ccz"(taken), "+m"(l->word), "+a"(seen)
	                 : "r"((uint32_t)LS_FUTEX_LOCKED)
	                 : "memory");
	*found = (int)seen;
	return taken;
#else
	*found = 0;
	return ls_futexlock_trylock(s) == 0;
#endif
}

static inline void ls_futex_inline_unlock(void *s)
{
	ls_futexlock_unlock(s);
}

static inline bool ls_futex_inline_try_single(void *s, int *found)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	if (__builtin_expect(ls_single_threaded(), 1)) {
		struct ls_futexlock *l = s;
		uint32_t seen;
		bool unlocked;
		/* A plain load and test (relaxed: nobody else can look while
		 * the process has one thread), as ls_futexlock_lock_plain. */
		__asm__("movl %2, %0\n\ttestl %0, %0"
		        : "=&r"(seen), "=@ccz"(unlocked)
		        : "m"(l->word));
		if (__builtin_expect(unlocked, 1)) {
			atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_LOCKED,
			                      memory_order_relaxed);
			*found = (int)seen;
			return true;
		}
	}
#else
	if (__builtin_expect(ls_single_threaded(), 1) &&
	    __builtin_expect(ls_futexlock_lock_plain(s), 1)) {
		*found = 0;
		return true;
	}
#endif
	ls_single_over();
	return ls_futex_inline_try(s, found);
}

static inline void ls_futex_inline_unlock_single(void *s)
{
	if (__builtin_expect(ls_single_threaded(), 1) && ls_futexlock_unlock_plain(s))
		return;
	ls_single_over();
	ls_futexlock_unlock(s);
}

/* X(id, table, try, try_single, unlock, unlock_single): the backend's
 * ops table, its atomic and single-threaded tries (bool try(void *state,
 * int *found), above) and unlocks. */
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
