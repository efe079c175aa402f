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
	       ~(LS_RW_WWAIT_MASK | LS_RW_HUNGRY | LS_RW_RESERVED);
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

/* The uncontended paths read no slice word: the slice's reservation is a
 * bit of the inner lock's word (LS_RW_RESERVED, mirrored from the slice
 * word's OWNED by slice.c ls_slice_mirror, through the lockables'
 * `reserve`), as slice:futex keeps its own (core/wrap/slice_futex.h).
 * A read lock is the inner lock's one fetch_add, and is done when the
 * word it found had no writer, no reservation, no reader-count overflow
 * ahead and (PREFER_WRITER) no waiting writer; a write lock is the inner
 * CAS, from a word with no holder and no reservation.  Anything else goes
 * out of line (rwslice.c), where the slice decides: the owner's
 * acquisitions are accounted, a reader joins readers that hold the lock,
 * anyone else queues.  A read lock+unlock pair went from 106 to 87
 * instructions, a write pair from 144 to 113 (callgrind, a second thread
 * alive; glibc's own through the pass-through 105 / 128: docs/results.md,
 * "The default you can leave on"). */
#define LS_RWSLICE_RD_STOP (LS_RW_WRITER | LS_RW_RESERVED)

/* The lock calls past the uncontended path, out of line (rwslice.c):
 * inlined, they made the uncontended path save registers and grow a frame.
 * rdlock_raised: the fast path's fetch_add found `old`; the caller holds a
 * reader count it may have to give back. */
int ls_rwslice_rdlock_raised(struct ls_rwslice *l, unsigned flags, uint64_t old);
/* Its decision alone, never blocking: 0, holding a read lock; EBUSY, the
 * count given back (the statistics' counting table, which then blocks
 * through its own protocol). */
int ls_rwslice_rd_settle(struct ls_rwslice *l, unsigned flags, uint64_t old);
int ls_rwslice_rdlock_contended(struct ls_rwslice *l, unsigned flags);
int ls_rwslice_wrlock_contended(struct ls_rwslice *l, unsigned flags);

/* The fetch_add found the lock free for readers, with no slice: done.  A
 * count of 2^31 readers or more (the sign bit) goes out of line, where the
 * inner lock's own test refuses the count that would overflow: the
 * fetch_add cannot wrap before another 2^31 readers arrive at once. */
static inline bool ls_rwslice_rd_clear(uint64_t old, unsigned flags)
{
	return !(old & LS_RWSLICE_RD_STOP) && (int64_t)old >= 0 &&
	       !((flags & LS_RW_PREFER_WRITER) && (old & LS_RW_WWAIT_MASK));
}

static inline int ls_rwslice_rdlock(struct ls_rwslice *l, unsigned flags)
{
	/* acquire: pairs with the release (or seq_cst) RMW of the last unlock. */
	uint64_t old = atomic_fetch_add_explicit(&l->inner.word, LS_RW_READER, memory_order_acquire);
	if (__builtin_expect(ls_rwslice_rd_clear(old, flags), 1))
		return 0;
	return ls_rwslice_rdlock_raised(l, flags, old);
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
	/* relaxed: only the expected value of the acquiring CAS. */
	uint64_t w = atomic_load_explicit(&l->inner.word, memory_order_relaxed);
	/* acquire: pairs with the release RMW of the last unlock. */
	if (__builtin_expect(!(w & (LS_RW_WRITER | LS_RW_RESERVED)) && ls_rwlock_readers(w) == 0 &&
	                     atomic_compare_exchange_strong_explicit(&l->inner.word, &w,
	                                                             w | LS_RW_WRITER,
	                                                             memory_order_acquire,
	                                                             memory_order_relaxed), 1))
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

/* The unlock past its uncontended path, out of line: inlined, the owner's
 * unlock made every unlock save and restore six registers. */
void ls_rwslice_unlock_slow(struct ls_rwslice *l, unsigned flags, uint64_t w);

/* Either mode.  No reservation: the inner lock's unlock, with a writer's
 * inline where nothing else is in the word (no waiting writer, no hand-off,
 * no slice: parked readers, counted on the readers' futex word, are woken
 * after the seq_cst CAS, as ls_rwlock_wrunlock wakes them).  Reserved: the
 * slice's owner accounts its release and may end its slice (rwslice.c). */
static inline void ls_rwslice_unlock(struct ls_rwslice *l, unsigned flags)
{
	/* relaxed: the caller's own lock decides the mode, and its
	 * acquisition is ordered before this load. */
	uint64_t w = atomic_load_explicit(&l->inner.word, memory_order_relaxed);
	if (w == LS_RW_WRITER) {
		/* seq_cst: release, and the waker's half of the Dekker pattern
		 * with a parking reader (rwfutex.h). */
		if (__builtin_expect(atomic_compare_exchange_strong(&l->inner.word, &w, 0), 1)) {
			if (atomic_load(&l->inner.rq) & LS_RW_SLEEPERS_MASK)
				ls_rwlock_wake_readers(&l->inner);
			return;
		}
	} else if (!(w & (LS_RW_WRITER | LS_RW_RESERVED)) && ls_rwlock_readers(w) != 0) {
		ls_rwlock_rdunlock(&l->inner);
		return;
	}
	ls_rwslice_unlock_slow(l, flags, w);
}

#endif
