/*
 * rwlock_layout.h - how lockswap uses the 56 bytes of a pthread_rwlock_t.
 *
 *   off size  field    meaning
 *    0   24   lock     the rwlock backend's state (8-byte aligned); all-zero
 *                      = unlocked, as PTHREAD_RWLOCK_INITIALIZER and glibc's
 *                      pthread_rwlock_init leave it
 *   24    4   writer   lockswap thread id of the write holder (0 = none),
 *                      for EDEADLK on a lock by the thread holding it
 *   28    4   shared   glibc's __shared, READ-ONLY: non-zero = process-
 *                      shared, served by glibc for the object's whole life
 *   32    4   stats    reserved for statistics (zero)
 *   36   12   spare    zero
 *   48    4   kind     glibc's __flags, READ-ONLY: 0 PREFER_READER, 1
 *                      PREFER_WRITER (glibc treats it as reader preference),
 *                      2 PREFER_WRITER_NONRECURSIVE; written by glibc's init
 *                      or PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
 *   52    4   spare    zero
 * (glibc 2.36 offsets, docs/glibc.md section 1.)
 */
#ifndef LS_INTERPOSE_RWLOCK_LAYOUT_H
#define LS_INTERPOSE_RWLOCK_LAYOUT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../../backends/rwlock.h"

struct ls_rw {
	_Alignas(8) unsigned char lock[LS_RWLOCK_STATE_BYTES];
	_Atomic uint32_t writer;
	_Atomic int32_t shared;
	_Atomic uint32_t stats;
	uint32_t spare[3];
	_Atomic int32_t kind;
	uint32_t spare2;
};

_Static_assert(sizeof(struct ls_rw) == sizeof(pthread_rwlock_t), "rwlock size");
_Static_assert(offsetof(struct ls_rw, shared) == 28, "__shared stays at glibc's offset");
_Static_assert(offsetof(struct ls_rw, kind) == 48, "__flags stays at glibc's offset");

#define LS_RW_KIND_WRITER_NONRECURSIVE 2

static inline struct ls_rw *ls_rw_of(pthread_rwlock_t *l)
{
	return (struct ls_rw *)(void *)l;
}

/* The kind as the backends' flags. */
static inline unsigned ls_rw_flags(struct ls_rw *x)
{
	/* relaxed: written once by init (or a static initializer), before the
	 * object is shared. */
	return atomic_load_explicit(&x->kind, memory_order_relaxed) == LS_RW_KIND_WRITER_NONRECURSIVE
	               ? LS_RWLOCK_PREFER_WRITER
	               : 0;
}

/* Pure function of __shared: glibc serves this object for its whole life. */
static inline int ls_rw_is_glibc(struct ls_rw *x)
{
	/* relaxed: written once by init, before the object is shared. */
	return atomic_load_explicit(&x->shared, memory_order_relaxed) != 0;
}

#endif
