#include "rwfutex.h"

#include <limits.h>

#include "../runtime/wait.h"
#include "../runtime/timespec.h"

/* The two waiting steps: spin while the waiting policy (core/runtime/wait.h)
 * allows, then park on the class's futex word. */
enum role { READER, WRITER };

/* For a waiting (counted) writer a handed-off lock is available. */
static bool counted_blocked(uint64_t w)
{
	return !(w & LS_RW_HANDOFF) && ls_rwlock_wr_blocked(w);
}

static bool blocked(struct ls_rwlock *l, enum role who, unsigned flags, memory_order mo)
{
	uint64_t w = atomic_load_explicit(&l->word, mo);
	return who == READER ? ls_rwlock_rd_blocked(w, flags) : counted_blocked(w);
}

/* True once the lock looked available to `who` (the caller retries its
 * CAS); false once the waiting policy (core/runtime/wait.h) says park.  relaxed:
 * a hint only, the acquiring CAS re-checks. */
static bool spin(struct ls_rwlock *l, enum role who, unsigned flags)
{
	return LS_SPIN_UNTIL(l, !blocked(l, who, flags, memory_order_relaxed));
}

/* Sleep on q while the lock stays blocked for `who`.  Returns 0 (woken,
 * spuriously or not: the caller re-checks) or ETIMEDOUT.
 *
 * Who removes a sleeper's count differs per queue:
 * - wq (woken one at a time): the sleeper counts itself out.
 * - rq (woken all at once): the waker removes every count with the wake
 *   (wake_all), so a reader woken but not yet running (on a busy machine,
 *   for milliseconds) is no longer counted, and the write unlocks that
 *   follow do not each issue a futile FUTEX_WAKE (measured at 50% reads,
 *   8 threads on 2 CPUs: ~150,000 FUTEX_WAKE calls that woke nobody in
 *   0.5 s, against ~150 that woke someone; docs/rwlock.md).  A reader that
 *   did not sleep, or timed out, takes its count back only while the
 *   sequence is still the one it counted in with (no wake since: a wake
 *   bumps it).  The sequence test could be fooled only by 2^16 wakes,
 *   each after a new count-in, while this thread is between its count-in
 *   and its count-out; the count cannot go below zero either way. */
static int park(struct ls_rwlock *l, _Atomic uint32_t *q, enum role who, unsigned flags,
                clockid_t clock, const struct timespec *abstime)
{
	/* seq_cst count-in, then seq_cst load of the word: the sleeper's half
	 * of the Dekker pattern with unlock (store word, then load q). */
	uint32_t v = atomic_fetch_add(q, LS_RW_SLEEPER) + LS_RW_SLEEPER;
	int r = 0;
	bool slept = blocked(l, who, flags, memory_order_seq_cst);
	if (slept)
		r = ls_park(q, v, clock, abstime);
	if (who == WRITER) {
		/* relaxed: the count only decides whether a waker issues
		 * FUTEX_WAKE; a stale high count costs one futile wake. */
		atomic_fetch_sub_explicit(q, LS_RW_SLEEPER, memory_order_relaxed);
	} else if (!slept || r == ETIMEDOUT) {
		/* relaxed: as above.  Same sequence: no wake since our count-in,
		 * so our count is still in (other readers' count-ins and
		 * count-outs change only the count). */
		uint32_t now = atomic_load_explicit(q, memory_order_relaxed);
		while ((now & ~LS_RW_SLEEPERS_MASK) == (v & ~LS_RW_SLEEPERS_MASK) &&
		       (now & LS_RW_SLEEPERS_MASK) &&
		       !atomic_compare_exchange_weak_explicit(q, &now, now - LS_RW_SLEEPER,
		                                              memory_order_relaxed,
		                                              memory_order_relaxed))
			;
	}
	return r == ETIMEDOUT ? ETIMEDOUT : 0;
}

/* Wake one sleeper of q (writers). */
static void wake_one(_Atomic uint32_t *q)
{
	/* seq_cst load: the waker's half of the Dekker pattern in park(). */
	if (!(atomic_load(q) & LS_RW_SLEEPERS_MASK))
		return;
	/* release: a sleeper that sees the new sequence also sees the state
	 * change that preceded it (it re-loads the word anyway). */
	atomic_fetch_add_explicit(q, LS_RW_SEQ, memory_order_release);
	ls_unpark(q, 1);
}

/* Wake every sleeper of q (readers) and remove their counts: bump the
 * sequence and zero the count in one RMW.  Returns how many the kernel
 * woke (a counted reader not yet in futex_wait sees the new sequence and
 * does not sleep; it is not in that number). */
static int wake_all(_Atomic uint32_t *q)
{
	/* seq_cst load and CAS: the waker's half of the Dekker pattern in
	 * park(); a sleeper that sees the new sequence also sees the state
	 * change that preceded it. */
	uint32_t v = atomic_load(q);
	do {
		if (!(v & LS_RW_SLEEPERS_MASK))
			return 0;
	} while (!atomic_compare_exchange_weak(q, &v, (v & ~LS_RW_SLEEPERS_MASK) + LS_RW_SEQ));
	return ls_unpark(q, INT_MAX);
}

void ls_rwlock_wake_readers(struct ls_rwlock *l)
{
	wake_all(&l->rq);
}

/* The last reader left and writers wait: hand the lock to them unless a
 * reader or writer got in first (then its unlock decides). */
void ls_rwlock_hand_to_writer(struct ls_rwlock *l)
{
	/* relaxed: only the expected value of the seq_cst CAS below. */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	while (ls_rwlock_readers(w) == 0 && (w & LS_RW_WWAIT_MASK) && !(w & LS_RW_WRITER)) {
		/* seq_cst: the waker's half of the Dekker pattern in park(). */
		if (atomic_compare_exchange_weak(&l->word, &w, w | LS_RW_WRITER | LS_RW_HANDOFF)) {
			wake_one(&l->wq);
			return;
		}
	}
}

void ls_rwlock_wrunlock(struct ls_rwlock *l, unsigned flags)
{
	/* relaxed: only the expected value of the seq_cst CASes below. */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		bool writers = (w & LS_RW_WWAIT_MASK) != 0;
		/* Writer to writer under writer preference, as glibc, and for a
		 * hungry writer (see the header): otherwise, with reader
		 * preference, the readers that arrived meanwhile go first, and a
		 * lock handed to a parked writer would sit idle until the kernel
		 * runs it. */
		if (writers && ((flags & LS_RW_PREFER_WRITER) || (w & LS_RW_HUNGRY))) {
			/* seq_cst (release for the critical section): hand over. */
			if (atomic_compare_exchange_weak(&l->word, &w, w | LS_RW_HANDOFF)) {
				wake_one(&l->wq);
				return;
			}
			continue;
		}
		/* seq_cst: release, and ordered before the sleeper loads. */
		if (atomic_compare_exchange_weak(&l->word, &w, w - LS_RW_WRITER)) {
			/* A writer too, unless a reader was woken: each woken
			 * reader tries the lock once more (after a timeout too),
			 * so it either holds it, and its unlock hands the lock to
			 * the writers, or finds it taken by a writer, whose
			 * unlock wakes again.  Waking a writer along with readers
			 * mostly woke one that parked again behind them. */
			if (wake_all(&l->rq) == 0 && writers)
				wake_one(&l->wq);
			return;
		}
	}
}

int ls_rwlock_rdlock_slow(struct ls_rwlock *l, unsigned flags, clockid_t clock,
                          const struct timespec *abstime)
{
	int r;
	if (abstime && ls_timespec_negative(abstime))
		return (r = ls_rwlock_tryrdlock(l, flags)) == EBUSY ? ETIMEDOUT : r;
	for (;;) {
		if ((r = ls_rwlock_tryrdlock(l, flags)) != EBUSY)
			return r;
		if (spin(l, READER, flags))
			continue;
		/* Readers are woken all at once, so a timed-out reader cannot
		 * have absorbed a wake meant for another; one last try anyway,
		 * the lock may have come free just now. */
		if (park(l, &l->rq, READER, flags, clock, abstime) == ETIMEDOUT)
			return (r = ls_rwlock_tryrdlock(l, flags)) == EBUSY ? ETIMEDOUT : r;
	}
}

/* The value after a counted (waiting) writer takes the lock from w: it
 * claims a handoff (readers seen then are only backing out) or sets
 * WRITER on a free lock, and drops its WWAIT in the same step, so readers
 * held back by PREFER_WRITER keep waiting for this writer's unlock. */
static uint64_t taken(uint64_t w)
{
	w &= ~LS_RW_HUNGRY; /* a writer got in: a hungry one that lost sets it again */
	return w & LS_RW_HANDOFF ? w - LS_RW_HANDOFF - LS_RW_WWAIT : (w - LS_RW_WWAIT) | LS_RW_WRITER;
}

static bool take_counted(struct ls_rwlock *l)
{
	/* relaxed: only the expected value of the acquiring CAS. */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	while (!counted_blocked(w)) {
		/* acquire: pairs with the release RMW of the unlock or handoff. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, taken(w), memory_order_acquire,
		                                          memory_order_relaxed))
			return true;
	}
	return false;
}

/* The word after a waiting writer counts out: the last one takes the
 * hungry mark with it (it is only meaningful while writers wait). */
static uint64_t left(uint64_t w)
{
	w -= LS_RW_WWAIT;
	return w & LS_RW_WWAIT_MASK ? w : w & ~LS_RW_HUNGRY;
}

/* Mark the lock hungry (see the header): this writer has waited since
 * t0 and just found the lock taken again. */
static void maybe_hungry(struct ls_rwlock *l, uint64_t *t0)
{
	uint64_t now = ls_now_ns(CLOCK_MONOTONIC);
	if (!*t0) {
		*t0 = now;
		return;
	}
	/* relaxed: a hint to unlockers; the word's RMWs order everything
	 * that matters (we are counted in WWAIT, so the bit cannot outlive
	 * the waiting writers: left() clears it with the last). */
	if (now - *t0 >= LS_RW_FAIR_NS &&
	    !(atomic_load_explicit(&l->word, memory_order_relaxed) & LS_RW_HUNGRY))
		atomic_fetch_or_explicit(&l->word, LS_RW_HUNGRY, memory_order_relaxed);
}

static int give_up(struct ls_rwlock *l, unsigned flags)
{
	/* Take the lock if it is free or handed off (a handoff may name this
	 * writer, who must then claim it: leaving would strand it); else
	 * count out.  One CAS decides between the two.  A wake-one absorbed
	 * by this writer is harmless either way: a held lock's unlock wakes
	 * the next writer.  seq_cst CASes: ordered before wake_all()'s load (the
	 * relaxed load only seeds the expected value). */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		if (!counted_blocked(w)) {
			if (atomic_compare_exchange_weak(&l->word, &w, taken(w)))
				return 0;
		} else if (atomic_compare_exchange_weak(&l->word, &w, left(w))) {
			break;
		}
	}
	uint64_t now = left(w);
	if ((flags & LS_RW_PREFER_WRITER) && !(now & (LS_RW_WWAIT_MASK | LS_RW_WRITER)))
		wake_all(&l->rq); /* readers held back only by this writer */
	return ETIMEDOUT;
}

int ls_rwlock_wrlock_slow(struct ls_rwlock *l, unsigned flags, clockid_t clock,
                          const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_rwlock_trywrlock(l) == 0 ? 0 : ETIMEDOUT;
	/* relaxed: the count is ordered with unlocks by the word's own
	 * modification order; parking re-reads the word with seq_cst. */
	atomic_fetch_add_explicit(&l->word, LS_RW_WWAIT, memory_order_relaxed);
	uint64_t t0 = 0; /* when this writer first parked */
	for (;;) {
		if (take_counted(l))
			return 0;
		if (spin(l, WRITER, flags))
			continue;
		maybe_hungry(l, &t0);
		if (park(l, &l->wq, WRITER, flags, clock, abstime) == ETIMEDOUT)
			return give_up(l, flags);
	}
}
