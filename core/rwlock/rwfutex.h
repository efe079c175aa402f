/*
 * rwfutex.h - compact futex reader-writer lock: one 64-bit state word and
 * two 32-bit futex words, 16 bytes, all-zero = unlocked.
 *
 * Source: the futex-word rwlock shape of musl's pthread_rwlock and
 * Drepper's "Futexes Are Tricky" for the wait/wake protocol; written anew
 * (waiting counted separately per class so a release wakes only the class
 * that can proceed).
 *
 * State word (64 bits):
 *   bit 0        LS_RW_WRITER     held for writing (then readers == 0, but
 *                for readers backing out, see tryrdlock)
 *   bit 1        LS_RW_HANDOFF    with WRITER: handed to the waiting
 *                writers, not yet claimed; the first of them to see it owns
 *                the lock (only set while the waiting-writer count > 0)
 *   bit 2        LS_RW_HUNGRY: a waiting writer has waited longer than
 *                LS_RW_FAIR_NS; write unlocks hand the lock to the waiting
 *                writers (as under writer preference) until a counted
 *                writer takes it (only set while waiting writers > 0)
 *   bits 3..30   waiting writers, in units of LS_RW_WWAIT (8): writers that
 *                found the lock busy and have not yet acquired or given up
 *   bit 31       LS_RW_RESERVED: never set or read by this lock (every
 *                transition here keeps it); the slice rwlock in front of it
 *                (rwslice.h) keeps its reservation there
 *   bits 32..63  readers holding the lock, in units of LS_RW_READER;
 *                LS_RW_READERS_MAX more would overflow: EAGAIN
 * Futex words rq (readers park here) and wq (writers park here):
 *   bits 0..15   sleepers: threads between counting in and counting out
 *                around futex_wait (at most 65535 per class and lock)
 *   bits 16..31  wake sequence: bumped by a waker before FUTEX_WAKE, so a
 *                sleeper that read the old value cannot sleep through it
 *
 * Kinds (flags): reader preference (glibc's default and PREFER_WRITER_NP):
 * a reader waits only while a writer holds the lock, so a thread may take a
 * read lock it already holds even with writers waiting (recursive reads).
 * LS_RW_PREFER_WRITER (PREFER_WRITER_NONRECURSIVE_NP): a reader also waits
 * while any writer is waiting, so writers are never starved by a stream of
 * readers; a recursive read lock with a writer waiting then deadlocks, as
 * in glibc ("nonrecursive").
 *
 * Transitions:
 *   rdlock   fetch_add READER; if that found it blocked (see
 *            ls_rwlock_rd_blocked), take it back as an unlock does
 *   wrlock   CAS WRITER when readers == 0 and no WRITER; a writer that has
 *            to wait adds WWAIT first and removes it in the acquiring CAS
 *            (or when it times out)
 *   unlock   WRITER set: the caller is the writer (readers are excluded
 *            while it is set); otherwise one reader leaves
 * Handoff (as glibc's rwlock switches phase): the read unlock that leaves
 * no reader while writers wait, and under PREFER_WRITER a write unlock
 * with writers waiting, do not free the lock:
 * they set WRITER|HANDOFF in the same RMW and wake one parked writer.  A
 * waiting writer claims it (clears HANDOFF, drops its WWAIT).  So a woken
 * writer never finds the lock retaken by readers and parks again: under
 * oversubscription each such round trip costs a wake and a context switch.
 * Hungry writers: under reader preference a write unlock frees the lock,
 * and whoever runs first takes it, so a parked writer can lose to running
 * threads again and again.  A waiting writer that has waited longer than
 * LS_RW_FAIR_NS sets LS_RW_HUNGRY, and then write unlocks hand over to
 * the waiting writers as under writer preference; the writer that takes
 * the lock clears it (if that was not the hungry one, the hungry one sets
 * it again the next time it loses).  Readers are never held back by it:
 * it changes only what a write unlock does, so a reader still gets in
 * whenever readers hold the lock (recursive reads stay safe).
 * Wake-ups: a write unlock that frees the lock wakes all parked readers
 * and, if no reader was woken and writers wait, one writer; a
 * writer that times out as the last waiting writer of a PREFER_WRITER lock
 * wakes the readers it held back.
 *
 * Fairness: barging within a class, bounded for writers by the hungry
 * hand-over (no writer loses to other writers for much longer than
 * LS_RW_FAIR_NS plus wake-ups).  Reader
 * preference: writers can starve under a continuous stream of overlapping
 * readers.  Writer preference: readers can starve under continuous writers.
 * Progress: deadlock-free (apart from the recursive-read case above).
 *
 * Memory order: acquiring CASes are acquire and pair with the release (or
 * stronger) RMW of unlock.  The park/wake race is a Dekker pattern: a
 * sleeper counts itself into rq/wq and then loads the state word; a waker
 * changes the state word and then loads rq/wq; all four are seq_cst, so at
 * least one side sees the other (rwfutex.c).
 *
 * fork: a read or write lock held by another parent thread stays held in
 * the child (as with glibc); sleeper counts of dead threads only cause a
 * futile wake.
 */
#ifndef LS_CORE_RWFUTEX_H
#define LS_CORE_RWFUTEX_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define LS_RW_WRITER UINT64_C(1)
#define LS_RW_HANDOFF UINT64_C(2)
#define LS_RW_HUNGRY UINT64_C(4)
#define LS_RW_WWAIT UINT64_C(8)
#define LS_RW_WWAIT_MASK UINT64_C(0x7ffffff8)
#define LS_RW_RESERVED (UINT64_C(1) << 31)
#define LS_RW_READER (UINT64_C(1) << 32)
#define LS_RW_READERS_SHIFT 32
#define LS_RW_READERS_MAX UINT64_C(0xffffffff)

/* A waiting writer that has waited this long and is woken (or spins) to
 * find the lock taken again sets LS_RW_HUNGRY: long-term fairness for
 * writers against barging writers, at the cost of at most one hand-over
 * to a parked writer per starving writer and slice. */
#define LS_RW_FAIR_NS 1000000u

#define LS_RW_SLEEPER 1u
#define LS_RW_SLEEPERS_MASK 0xffffu
#define LS_RW_SEQ (1u << 16)

/* Kind flags, passed to every verb. */
#define LS_RW_PREFER_WRITER 1u

struct ls_rwlock {
	_Atomic uint64_t word;
	_Atomic uint32_t rq; /* readers' futex */
	_Atomic uint32_t wq; /* writers' futex */
};

static inline uint64_t ls_rwlock_readers(uint64_t w)
{
	return w >> LS_RW_READERS_SHIFT;
}

static inline bool ls_rwlock_rd_blocked(uint64_t w, unsigned flags)
{
	return (w & LS_RW_WRITER) ||
	       ((flags & LS_RW_PREFER_WRITER) && (w & LS_RW_WWAIT_MASK));
}

static inline bool ls_rwlock_wr_blocked(uint64_t w)
{
	return (w & LS_RW_WRITER) || ls_rwlock_readers(w) != 0;
}

int ls_rwlock_rdlock_slow(struct ls_rwlock *l, unsigned flags, clockid_t clock,
                          const struct timespec *abstime);
int ls_rwlock_wrlock_slow(struct ls_rwlock *l, unsigned flags, clockid_t clock,
                          const struct timespec *abstime);
void ls_rwlock_hand_to_writer(struct ls_rwlock *l);
void ls_rwlock_wrunlock(struct ls_rwlock *l, unsigned flags);
/* A write unlock's wake-up after its own seq_cst RMW freed the lock with
 * no writer waiting: every parked reader (the waker's half of the Dekker
 * pattern, see the header).  For a caller with its own unlock path (the
 * slice rwlock's, rwslice.h); ls_rwlock_wrunlock does it itself. */
void ls_rwlock_wake_readers(struct ls_rwlock *l);

static inline void ls_rwlock_rdunlock(struct ls_rwlock *l)
{
	/* seq_cst: release for the critical section, and the waker's half of
	 * the Dekker pattern with a parking writer (see the header). */
	uint64_t now = atomic_fetch_sub(&l->word, LS_RW_READER) - LS_RW_READER;
	if (ls_rwlock_readers(now) == 0 && (now & LS_RW_WWAIT_MASK) && !(now & LS_RW_WRITER))
		ls_rwlock_hand_to_writer(l);
}

/* ls_rwlock_tryrdlock_raise's answer when it raised the reader count and
 * found the lock blocked: the caller owes ls_rwlock_rdunlock, then has
 * EBUSY.  Negative, so no errno value. */
#define LS_RW_RAISED_BLOCKED (-1)

/* The read try up to its back-out: 0 (a reader now), EAGAIN (the count
 * would overflow), or LS_RW_RAISED_BLOCKED.  Without the back-out's
 * possible call (ls_rwlock_hand_to_writer), a caller that only jumps on
 * from here needs no frame (the statistics' counting table). */
static inline int ls_rwlock_tryrdlock_raise(struct ls_rwlock *l, unsigned flags)
{
	/* relaxed: overflow needs 2^32 - 1 holders; the check is advisory
	 * against a counter that would otherwise wrap into nothing. */
	if (ls_rwlock_readers(atomic_load_explicit(&l->word, memory_order_relaxed)) ==
	    LS_RW_READERS_MAX)
		return EAGAIN;
	/* acquire: pairs with the release (or seq_cst) RMW of the last unlock. */
	uint64_t w = atomic_fetch_add_explicit(&l->word, LS_RW_READER, memory_order_acquire);
	return ls_rwlock_rd_blocked(w, flags) ? LS_RW_RAISED_BLOCKED : 0;
}

/* 0, EBUSY (a writer holds it, or waits under PREFER_WRITER) or EAGAIN
 * (reader count would overflow).  Never blocks.
 * One fetch_add, not a CAS loop: readers arriving together never retry.
 * A reader that finds the lock blocked takes its count back (as an
 * unlock, so a writer its transient count held up is woken); meanwhile
 * the count may be non-zero with WRITER set, which only makes writers
 * wait a little longer. */
static inline int ls_rwlock_tryrdlock(struct ls_rwlock *l, unsigned flags)
{
	int r = ls_rwlock_tryrdlock_raise(l, flags);
	if (r != LS_RW_RAISED_BLOCKED)
		return r;
	ls_rwlock_rdunlock(l);
	return EBUSY;
}

/* 0 or EBUSY.  Never blocks; keeps the waiting-writer count as it is. */
static inline int ls_rwlock_trywrlock(struct ls_rwlock *l)
{
	/* relaxed: only the expected value of the acquiring CAS. */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	do {
		if (ls_rwlock_wr_blocked(w))
			return EBUSY;
		/* acquire: pairs with the release RMW of the last unlock. */
	} while (!atomic_compare_exchange_weak_explicit(&l->word, &w, w | LS_RW_WRITER,
	                                                memory_order_acquire, memory_order_relaxed));
	return 0;
}

/* 0 or EAGAIN. */
static inline int ls_rwlock_rdlock(struct ls_rwlock *l, unsigned flags)
{
	int r = ls_rwlock_tryrdlock(l, flags);
	return r == EBUSY ? ls_rwlock_rdlock_slow(l, flags, CLOCK_MONOTONIC, NULL) : r;
}

/* 0, ETIMEDOUT or EAGAIN.  abstime validated by the caller (tv_nsec in
 * range); tv_sec < 0 means already expired. */
static inline int ls_rwlock_timedrdlock(struct ls_rwlock *l, unsigned flags, clockid_t clock,
                                        const struct timespec *abstime)
{
	int r = ls_rwlock_tryrdlock(l, flags);
	return r == EBUSY ? ls_rwlock_rdlock_slow(l, flags, clock, abstime) : r;
}

static inline int ls_rwlock_wrlock(struct ls_rwlock *l, unsigned flags)
{
	if (ls_rwlock_trywrlock(l) == 0)
		return 0;
	return ls_rwlock_wrlock_slow(l, flags, CLOCK_MONOTONIC, NULL);
}

/* 0 or ETIMEDOUT. */
static inline int ls_rwlock_timedwrlock(struct ls_rwlock *l, unsigned flags, clockid_t clock,
                                        const struct timespec *abstime)
{
	if (ls_rwlock_trywrlock(l) == 0)
		return 0;
	return ls_rwlock_wrlock_slow(l, flags, clock, abstime);
}

/* Unlock whichever mode the caller holds: WRITER set means the caller is
 * the writer, since no reader can hold the lock at the same time. */
static inline void ls_rwlock_unlock(struct ls_rwlock *l, unsigned flags)
{
	/* relaxed: the caller's own lock is what decides the mode, and its
	 * own acquisition is ordered before this load. */
	if (atomic_load_explicit(&l->word, memory_order_relaxed) & LS_RW_WRITER)
		ls_rwlock_wrunlock(l, flags);
	else
		ls_rwlock_rdunlock(l);
}

#endif
