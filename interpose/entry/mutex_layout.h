/*
 * mutex_layout.h - how lockswap uses the 40 bytes of a pthread_mutex_t.
 *
 *   off size  field   meaning
 *    0   16   lock    the backend's lock state (8-byte aligned); all-zero =
 *                     unlocked, which is what PTHREAD_MUTEX_INITIALIZER and
 *                     glibc's pthread_mutex_init leave there
 *   16    4   kind    glibc's __kind, READ-ONLY: written by glibc's init or
 *                     a static initializer (1 recursive, 2 errorcheck, 3
 *                     adaptive; flags 16 robust, 32 PI, 64 PP, 128 pshared,
 *                     256/512 elision hints; -1 destroyed).  Objects with a
 *                     robust/PI/PP/pshared flag or destroyed go to glibc
 *                     for their whole life: the test is a pure function of
 *                     this field, so an object never changes hands.
 *   20    4   owner   lockswap thread id of the holder (recursive and
 *                     errorcheck only; 0 = none)
 *   24    4   count   recursion depth (recursive only)
 *   28    4   stats   statistics slot word of this mutex: its slot times
 *                     64 (stats/quick.h; 0 = none yet)
 *   32    4   holder  statistics' holder word: serial of the last holder
 *                     (stats/hooks.h; the word after the slot word), unless
 *                     the backend's lock state keeps it (below)
 *   36    4   want    statistics' unlock word: nonzero when the next unlock
 *                     must be observed (a hold sample open on this mutex,
 *                     a waiter asking for its holder's stack; hooks.h
 *                     LS_UNLOCK_WANT_*), tested by the counting table's
 *                     unlock on the line it is about to write anyway
 *
 * The holder word in the lock state: where the backend has claims
 * (backends/inline_verbs.h: the lock word and a free word beside it, in
 * one compare-and-swap or exchange), the statistics keep every mutex's
 * holder in the lock state's word at LS_INLINE_CLAIM_NAME_OFF instead of
 * at byte 32, so that the instructions that take and free a plain mutex
 * write it and an owner change stores nothing inside the critical
 * section.  Chosen once for the process, with the counting table, before
 * any lock is counted (mutex_counted.c ls_mutex_holder_in_state).  Not for the
 * kinds glibc serves: their state is glibc's.
 */
#ifndef LS_INTERPOSE_MUTEX_LAYOUT_H
#define LS_INTERPOSE_MUTEX_LAYOUT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../../backends/backend.h"

struct ls_mutex {
	_Alignas(8) unsigned char lock[LS_LOCK_STATE_BYTES];
	_Atomic int32_t kind;
	_Atomic uint32_t owner;
	uint32_t count;
	_Atomic uint32_t stats;
	_Atomic uint32_t holder;
	_Atomic uint32_t unlock_want;
};

_Static_assert(sizeof(struct ls_mutex) == sizeof(pthread_mutex_t), "mutex size");
_Static_assert(offsetof(struct ls_mutex, kind) == 16, "__kind stays at glibc's offset");
_Static_assert(_Alignof(pthread_mutex_t) >= 8, "lock state alignment");
_Static_assert(offsetof(struct ls_mutex, holder) == offsetof(struct ls_mutex, stats) + 4,
               "the holder word follows the slot word (stats/hooks.h)");

#define LS_KIND_TYPE_MASK 3
#define LS_KIND_NORMAL 0
#define LS_KIND_RECURSIVE 1
#define LS_KIND_ERRORCHECK 2
#define LS_KIND_ADAPTIVE 3
#define LS_KIND_ROBUST 16
#define LS_KIND_PRIO_INHERIT 32
#define LS_KIND_PRIO_PROTECT 64
#define LS_KIND_PSHARED 128
#define LS_KIND_ELISION_BITS (256 | 512)
#define LS_KIND_GLIBC_ONLY (LS_KIND_ROBUST | LS_KIND_PRIO_INHERIT | LS_KIND_PRIO_PROTECT | LS_KIND_PSHARED)

static inline struct ls_mutex *ls_mutex_of(pthread_mutex_t *m)
{
	return (struct ls_mutex *)(void *)m;
}

static inline int32_t ls_mutex_kind(struct ls_mutex *x)
{
	return atomic_load_explicit(&x->kind, memory_order_relaxed);
}

/* Pure function of __kind: glibc serves this object for its whole life. */
static inline int ls_kind_is_glibc(int32_t kind)
{
	return kind < 0 || (kind & LS_KIND_GLIBC_ONLY) != 0;
}

/* Normal or adaptive without extra flags: the fast path. */
static inline int ls_kind_is_plain(int32_t kind)
{
	int32_t k = kind & ~LS_KIND_ELISION_BITS;
	return k == LS_KIND_NORMAL || k == LS_KIND_ADAPTIVE;
}

#endif
