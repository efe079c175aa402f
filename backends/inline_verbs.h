/*
 * inline_verbs.h - the backends whose verbs the statistics' counting
 * tables (interpose/counting/counting.c, interpose/counting/rwlock_counting.c) inline rather
 * than call through the backend's table: the mutex backends futex
 * (core/mutex/futexlock.h's inline verbs and, on x86-64, claims) and
 * slice:futex, the default (core/wrap/slice_futex.h, below), and the
 * rwlock backends futex and slice, the default (their read try and
 * unlock, below).  A counting table uses them when the chosen backend is
 * that table (ls_backend_futex, ls_backend_slice_futex,
 * ls_rwlock_backend_futex, ls_rwlock_backend_slice); any other backend is
 * counted through its table's verbs.
 */
#ifndef LS_BACKENDS_INLINE_VERBS_H
#define LS_BACKENDS_INLINE_VERBS_H

#include "../core/mutex/futexlock.h"
#include "../core/rwlock/rwfutex.h"
#include "../core/rwlock/rwslice.h"
#include "../core/wrap/slice_futex.h"
#include "backend.h"
#include "rwlock.h"

extern const struct ls_lock_ops ls_backend_futex; /* futex.c */
extern const struct ls_lock_ops ls_backend_slice_futex; /* slice.c: slice:futex */

#if defined(LS_FUTEX_NAME_OFF)
/* Claims (core/mutex/futexlock.h): the futex backend's counting tables
 * keep the statistics' holder word in bytes 4..7 of its lock state. */
#define LS_INLINE_CLAIM_NAME_OFF LS_FUTEX_NAME_OFF
_Static_assert(LS_INLINE_CLAIM_NAME_OFF + 4 <= LS_LOCK_STATE_BYTES,
               "the name's word is inside the lock state");
#endif

/* slice:futex (core/wrap/slice_futex.h): the slice word, then the lock
 * word, then 4 bytes it never touches.  The claims of the futex lock work
 * on its lock word and those 4 bytes unchanged (the values of a free and a
 * held word, 0 and 1, are the futex lock's): the tries and claims below
 * are futexlock.h's at the lock word's address.  Only the naming unlock
 * differs (futexlock.h's exchange would clear RESERVED and PARKED). */
#define LS_SLICE_FUTEX_WORD_OFF 8
_Static_assert(offsetof(struct ls_slice_futex, word) == LS_SLICE_FUTEX_WORD_OFF, "word");
_Static_assert(LS_SF_HELD == 1 && LS_FUTEX_LOCKED == 1 && LS_FUTEX_UNLOCKED == 0,
               "a held and a free word are the futex lock's");

static inline void *ls_slice_futex_inline_word(void *s)
{
	return (char *)s + LS_SLICE_FUTEX_WORD_OFF;
}

/* Take the lock if it is free and no slice runs, or if it is free and
 * the caller may take a reserved lock (ls_slice_take_reserved: its
 * owner, out of line); false: held, or reserved for another (let go). */
static inline bool ls_slice_futex_inline_take(void *s)
{
	struct ls_slice_futex *l = s;
	if (!ls_sf_take(&l->word))
		return false;
	if (__builtin_expect(!ls_sf_reserved(&l->word), 1))
		return true;
	return ls_slice_futex_take_reserved(l) == 0;
}

static inline void ls_slice_futex_inline_unlock(void *s)
{
	ls_slice_futex_unlock(s);
}

#if defined(LS_FUTEX_NAME_OFF)
#define LS_SLICE_FUTEX_NAME_OFF (LS_SLICE_FUTEX_WORD_OFF + LS_FUTEX_NAME_OFF)
_Static_assert(offsetof(struct ls_slice_futex, spare) == LS_SLICE_FUTEX_NAME_OFF,
               "the name's word is the one slice:futex never touches");
_Static_assert(LS_SLICE_FUTEX_NAME_OFF + 4 <= LS_LOCK_STATE_BYTES, "inside the lock state");

static inline _Atomic uint32_t *ls_slice_futex_inline_name(void *s)
{
	return ls_futex_inline_name(ls_slice_futex_inline_word(s));
}

/* The unlock, naming the caller (its serial `me`): the name is written
 * just before the release (the line is this thread's already: the
 * release needs it exclusive anyway), not inside the section. */
static inline void ls_slice_futex_inline_unclaim(void *s, uint32_t me)
{
	atomic_store_explicit(ls_slice_futex_inline_name(s), me, memory_order_relaxed);
	ls_slice_futex_unlock(s);
}
#endif

extern const struct ls_rwlock_ops ls_rwlock_backend_futex; /* rwlock_futex.c */
extern const struct ls_rwlock_ops ls_rwlock_backend_slice;  /* rwlock_slice.c */

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

/* The slice rwlock (core/rwlock/rwslice.h): its read lock's fetch_add,
 * done when the word it found lets a reader straight in; its unlock. */
static inline bool ls_rwslice_inline_rd(void *s, unsigned flags, uint64_t *old)
{
	struct ls_rwslice *l = s;
	/* acquire: as ls_rwslice_rdlock. */
	*old = atomic_fetch_add_explicit(&l->inner.word, LS_RW_READER, memory_order_acquire);
	return ls_rwslice_rd_clear(*old, flags);
}

static inline void ls_rwslice_inline_unlock(void *s, unsigned flags)
{
	ls_rwslice_unlock(s, flags);
}

#endif
