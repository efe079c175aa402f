/*
 * rwslice.h - lock slices (core/wrap/slice.h) in front of the compact futex
 * rwlock (core/rwlock/rwfutex.h): long-term fairness for reader-writer locks
 * at barging speed.
 *
 * Why: the futex rwlock alone lets every thread at the lock at once.  At
 * 50% reads with more threads than CPUs that fills both CPUs with threads
 * that bounce the lock's line, hand it over to parked writers and park
 * again (MutexBench, 8 threads on 2 CPUs: 42,000 context switches and
 * 181,000 futex calls a second, 0.45x glibc); glibc's rwlock runs faster on
 * about one CPU, because its waiters park and the running thread keeps
 * re-acquiring, and it is unfair for the same reason (min share 0.56-0.67).
 * A slice does on purpose what glibc does by accident: one thread owns
 * the lock for LOCKSWAP_SLICE_US of hold time, with a hot cache, and then
 * hands it to the oldest waiter, so shares even out over a window.
 *
 * The slice word only decides who may *try* the inner rwlock; exclusion,
 * reader sharing and the kinds are the inner lock's.  One rule is added
 * for reader preference (glibc's default kind): a reader that finds the
 * inner lock read-held joins the readers at once, slice or not, unless it
 * owns the slice (then it goes through the slice so its holds count).
 * Glibc's default kind must let a new reader in whenever readers hold the
 * lock, writers waiting or not: a thread may re-take a read lock it holds,
 * and a reader may wait (on a condition variable, say) for another thread
 * that needs a read lock, and neither may block behind a slice.  Under
 * PREFER_WRITER the inner try refuses such a reader while a writer waits,
 * and the reader queues, as glibc's "nonrecursive" kind would make it wait.
 *
 * A slice owner blocked inside the inner lock behind readers (a writer
 * whose slice began while readers that joined held the lock, or a reader
 * took it with a try) stalls the queue for one watch period at most: those
 * readers may wait for a reader queued behind the owner, so the head of
 * the queue, which watches the owner, then flushes it: everyone queued
 * goes to the inner lock, readers join the readers (slice.c, watch; the
 * lockables' `shared`).
 *
 * State (24 bytes, all-zero = unlocked): the slice word, then the rwlock.
 */
#ifndef LS_CORE_RWLOCK_RWSLICE_H
#define LS_CORE_RWLOCK_RWSLICE_H

#include "../wrap/slice.h"
#include "rwfutex.h"

struct ls_rwslice {
	struct ls_slice slice;
	struct ls_rwlock inner;
};

/* The inner lock's verbs as lockables (core/wrap/lockable.h), one per mode
 * and kind: [flags & LS_RW_PREFER_WRITER]. */
extern const struct ls_lockable ls_rwslice_rd[2], ls_rwslice_wr[2];

/* Held in either mode (a writer, or readers).  relaxed: the caller's own
 * acquisition, if any, is ordered before this load. */
static inline bool ls_rwslice_held(struct ls_rwlock *inner)
{
	return atomic_load_explicit(&inner->word, memory_order_relaxed) &
	       ~(LS_RW_WWAIT_MASK | LS_RW_HUNGRY);
}

/* The read rule above: a reader that does not own the slice joins readers
 * that hold the lock.  0 (holding), or EBUSY/EAGAIN (go through the slice;
 * EAGAIN: the reader count is full). */
static inline int ls_rwslice_join_readers(struct ls_rwslice *l, unsigned flags)
{
	/* relaxed: a hint; the inner try decides, and orders the section. */
	uint64_t w = atomic_load_explicit(&l->inner.word, memory_order_relaxed);
	if (ls_rwlock_readers(w) == 0 ||
	    ls_slice_mine(&l->slice, atomic_load_explicit(&l->slice.word, memory_order_relaxed)))
		return EBUSY;
	return ls_rwlock_tryrdlock(&l->inner, flags);
}

/* The uncontended path of either lock call: while no slice runs and
 * nobody queues, a lock call is the inner try, inlined (ls_slice_lock
 * would make the same try through the lockable's pointer).  A read
 * lock+unlock pair fell from 154 to 107 instructions (callgrind, one thread;
 * glibc's own pair is 73, through the pass-through 106). */
static inline bool ls_rwslice_open(const struct ls_rwslice *l)
{
	/* relaxed: a hint; the inner try decides, and orders the section. */
	return ls_slice_open(atomic_load_explicit(&l->slice.word, memory_order_relaxed));
}

/* The lock calls past the uncontended path, out of line (rwslice.c): inlined,
 * they made the uncontended path save registers and grow a frame. */
int ls_rwslice_rdlock_contended(struct ls_rwslice *l, unsigned flags);
int ls_rwslice_wrlock_contended(struct ls_rwslice *l, unsigned flags);

static inline int ls_rwslice_rdlock(struct ls_rwslice *l, unsigned flags)
{
	if (ls_rwslice_open(l) && ls_rwlock_tryrdlock(&l->inner, flags) == 0)
		return 0;
	return ls_rwslice_rdlock_contended(l, flags);
}

static inline int ls_rwslice_timedrdlock(struct ls_rwslice *l, unsigned flags, clockid_t clock,
                                         const struct timespec *abstime)
{
	int r = ls_rwslice_join_readers(l, flags);
	if (r != EBUSY)
		return r;
	return ls_slice_timedlock(&l->slice, &ls_rwslice_rd[flags & 1u], &l->inner, clock, abstime);
}

static inline int ls_rwslice_tryrdlock(struct ls_rwslice *l, unsigned flags)
{
	return ls_slice_trylock(&l->slice, &ls_rwslice_rd[flags & 1u], &l->inner);
}

static inline int ls_rwslice_wrlock(struct ls_rwslice *l, unsigned flags)
{
	if (ls_rwslice_open(l) && ls_rwlock_trywrlock(&l->inner) == 0)
		return 0;
	return ls_rwslice_wrlock_contended(l, flags);
}

static inline int ls_rwslice_timedwrlock(struct ls_rwslice *l, unsigned flags, clockid_t clock,
                                         const struct timespec *abstime)
{
	return ls_slice_timedlock(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner, clock, abstime);
}

static inline int ls_rwslice_trywrlock(struct ls_rwslice *l, unsigned flags)
{
	return ls_slice_trylock(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner);
}

/* The slice owner's unlock (ls_slice_unlock), out of line: inlined, its
 * register pressure made every unlock save and restore six registers. */
void ls_rwslice_owner_unlock(struct ls_rwslice *l, unsigned flags);

/* Either mode: the owner's unlock may end its slice (ls_slice_unlock);
 * everyone else's is the inner lock's. */
static inline void ls_rwslice_unlock(struct ls_rwslice *l, unsigned flags)
{
	uint64_t w = atomic_load_explicit(&l->slice.word, memory_order_relaxed);
	if (ls_slice_mine(&l->slice, w)) {
		ls_rwslice_owner_unlock(l, flags);
		return;
	}
	/* Not the slice's owner: the inner lock's unlock, inlined, unless the
	 * lock is free (a misused unlock: nothing to do, as ls_slice_unlock). */
	if (ls_rwslice_held(&l->inner))
		ls_rwlock_unlock(&l->inner, flags);
}

#endif
