/*
 * slice_futex.h - lock slices (slice.h) over a futex lock whose word also
 * carries the slice's reservation: `slice:futex`, the default backend,
 * with the uncontended cost of the futex lock alone.
 *
 * Why: the slice wrapper over any inner lock (slice.h ls_slice_lock) reads
 * the slice word on every call to learn whether a slice runs, and its
 * unlock reads it again and tests the inner lock first: 60 instructions
 * per uncontended lock+unlock pair through the interposer, against 43 for
 * the futex lock alone (callgrind, a second thread alive).  Here the lock
 * word says it: RESERVED is set while a slice runs, so a lock is one
 * bit-test-and-set of HELD and a look at the same word, and an unlock one
 * locked AND that clears HELD and tells, by its result being zero, that
 * nothing else is there (no slice, nobody parked): the pair costs what
 * the futex lock's does, or less (docs/results.md, "The default you can
 * leave on").
 *
 * The word (all-zero = free, no slice, nobody parked):
 *   bit 0  HELD      the lock is held: exclusion is this bit's alone
 *   bit 1  PARKED    a thread may be parked on the word (its unlock wakes one)
 *   bit 2  RESERVED  a slice runs: a thread that finds the lock free takes it
 *                    only if it owns the slice (or owns another lock's slice,
 *                    or is a trylock); anyone else lets go and queues
 * Lock:   set HELD (lock bts): it was clear -> held.  Then RESERVED clear
 *         -> done; set -> ls_slice_take_reserved (slice.h) says whether the
 *         caller keeps it.  HELD was set -> the slice's slow path
 *         (ls_slice_acquire: open a slice, queue, or the inner lock).
 * Unlock: clear HELD (lock and): the word is then 0 -> done; else PARKED
 *         -> wake one, RESERVED -> the owner's accounting
 *         (ls_slice_released_reserved), which may end the slice.
 * The inner lock of the slice's slow path (ls_slice_futex_in: the lock the
 * owner, and everyone let go, waits for) spins while the policy allows,
 * then parks: it takes HELD whatever RESERVED says, marking PARKED when
 * it takes the lock after a park (others may be parked behind it), as
 * Drepper's mutex 3 does ("Futexes Are Tricky").  Unfair (barging), like
 * the futex lock; the slices make it fair.
 *
 * RESERVED mirrors the slice word's OWNED (slice.c ls_slice_mirror): set
 * by whoever opens a slice, cleared by whoever ends one without a new
 * owner, each after its change of the slice word.  The two words are not
 * changed together, so a race can leave the mirror wrong for a moment;
 * it only decides who takes the fast path, never exclusion (HELD does):
 * a stale RESERVED sends arrivals to the slow path, which clears it
 * (ls_slice_futex_lock_contended, ls_slice_take_reserved); a missing one
 * lets arrivals barge into a slice until its owner's slice ends or the
 * waiters' watch takes it over (slice.c watch), which sets it again.
 *
 * Memory order: taking HELD is an acquire RMW, clearing it a release RMW
 * (on x86-64 both are locked instructions: full barriers); RESERVED and
 * PARKED are changed with seq_cst RMWs and read relaxed (hints: the slow
 * paths decide).  The waker and the parker follow the futex protocol:
 * a parker sets PARKED before it parks on the exact word it saw, and the
 * releaser, finding PARKED after clearing HELD, clears it and wakes one.
 *
 * State: the slice word (8 bytes), the lock word, and 4 bytes it never
 * touches, where the statistics keep their holder word (backends/
 * inline_verbs.h, claims).
 */
#ifndef LS_CORE_SLICE_FUTEX_H
#define LS_CORE_SLICE_FUTEX_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/single.h"
#include "slice.h"

/* The x86-64 forms below are inline assembly, which ThreadSanitizer does
 * not see: under it the C11 forms, so that it sees the lock's acquire and
 * release (else every critical section would look like a race). */
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(__SANITIZE_THREAD__)
#define LS_SF_ASM 1
#else
#define LS_SF_ASM 0
#endif

#define LS_SF_HELD 1u
#define LS_SF_PARKED 2u
#define LS_SF_RESERVED 4u

struct ls_slice_futex {
	struct ls_slice slice;
	_Atomic uint32_t word;
	uint32_t spare; /* never touched: the statistics' holder word (claims) */
};

/* The lock word as the slice's slow path drives it (lockable.h). */
extern const struct ls_lockable ls_slice_futex_in;

/* Set HELD; true if it was clear (the caller now holds the lock).  Acquire. */
static inline bool ls_sf_take(_Atomic uint32_t *w)
{
#if LS_SF_ASM
	bool held;
	/* A locked instruction is a full barrier on x86-64; the "memory"
	 * clobber keeps the critical section's accesses after it. */
	__asm__ volatile("lock btsl $0, %1" : "=@ccc"(held), "+m"(*w) : : "memory");
	return !held;
#else
	return !(atomic_fetch_or_explicit(w, LS_SF_HELD, memory_order_acquire) & LS_SF_HELD);
#endif
}

/* Clear HELD; true if the word is then 0 (no slice, nobody parked: the
 * unlock is done).  Release.  Clearing a clear HELD changes nothing: an
 * unlock of a free lock (misuse) is harmless, as glibc's. */
static inline bool ls_sf_release(_Atomic uint32_t *w)
{
#if LS_SF_ASM
	bool zero;
	__asm__ volatile("lock andl $-2, %1" : "=@ccz"(zero), "+m"(*w) : : "memory");
	return zero;
#else
	return (atomic_fetch_and_explicit(w, ~LS_SF_HELD, memory_order_release) & ~LS_SF_HELD) == 0;
#endif
}

/* A slice runs (relaxed: a hint, read after the caller's own RMW). */
static inline bool ls_sf_reserved(_Atomic uint32_t *w)
{
#if LS_SF_ASM
	/* One test of the word in memory (an aligned byte read is
	 * single-copy atomic, as a relaxed load is): the compiler keeps an
	 * atomic load in a register of its own, a load and a test. */
	bool set;
	__asm__("testb %2, %1" : "=@ccnz"(set) : "m"(*(const uint8_t *)w), "i"(LS_SF_RESERVED));
	return set;
#else
	return atomic_load_explicit(w, memory_order_relaxed) & LS_SF_RESERVED;
#endif
}

/* Out of line (slice_futex.c). */
int ls_slice_futex_lock_reserved(struct ls_slice_futex *l);
int ls_slice_futex_lock_contended(struct ls_slice_futex *l);
void ls_slice_futex_try_reserved(struct ls_slice_futex *l);
/* ls_slice_take_reserved for a lock call (not a try): 0 kept, EBUSY let go. */
int ls_slice_futex_take_reserved(struct ls_slice_futex *l);
void ls_slice_futex_unlock_slow(struct ls_slice_futex *l);
int ls_slice_futex_timedlock(struct ls_slice_futex *l, clockid_t clock,
                             const struct timespec *abstime);
void ls_slice_futex_unlock_to_wait(struct ls_slice_futex *l);
/* The slice's inner lock alone: spin, then park; takes HELD whatever
 * RESERVED says.  abstime validated by the caller, or NULL. */
int ls_slice_futex_inner_lock(_Atomic uint32_t *w, clockid_t clock,
                              const struct timespec *abstime);
/* Wake one parked thread, if PARKED is set and the lock is free. */
void ls_slice_futex_wake(_Atomic uint32_t *w);
/* Mark PARKED if the lock is held (its unlock then wakes one); false if it
 * was free.  A condvar waiter moved to the word (core/condvar/morph.h). */
bool ls_slice_futex_mark_parked(struct ls_slice_futex *l);
/* Mark PARKED, held or free: the next unlock wakes one (a moved condvar
 * waiter that woke, before it takes the lock: morph.h). */
void ls_slice_futex_owe_wake(struct ls_slice_futex *l);

static inline int ls_slice_futex_lock(struct ls_slice_futex *l)
{
	if (__builtin_expect(ls_sf_take(&l->word), 1)) {
		if (__builtin_expect(!ls_sf_reserved(&l->word), 1))
			return 0;
		return ls_slice_futex_lock_reserved(l);
	}
	return ls_slice_futex_lock_contended(l);
}

/* As the slice wrapper's trylock: the lock whenever it is free, slice or
 * not (a trylock never waits in line: slice.h); the owner's counts as an
 * acquisition of its slice. */
static inline int ls_slice_futex_trylock(struct ls_slice_futex *l)
{
	if (!ls_sf_take(&l->word))
		return EBUSY;
	if (ls_sf_reserved(&l->word))
		ls_slice_futex_try_reserved(l);
	return 0;
}

static inline void ls_slice_futex_unlock(struct ls_slice_futex *l)
{
	if (__builtin_expect(ls_sf_release(&l->word), 1))
		return;
	ls_slice_futex_unlock_slow(l);
}

static inline bool ls_slice_futex_is_locked(struct ls_slice_futex *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) & LS_SF_HELD;
}

/* Single-threaded verbs (backends/backend.h): the fast path's transitions
 * with a plain load and store while no other thread exists; false =
 * declined (a slice, a parked mark: the atomic verbs), nothing changed. */
static inline bool ls_slice_futex_lock_plain(struct ls_slice_futex *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	atomic_store_explicit(&l->word, LS_SF_HELD, memory_order_relaxed);
	return true;
}

static inline bool ls_slice_futex_unlock_plain(struct ls_slice_futex *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_SF_HELD)
		return false;
	atomic_store_explicit(&l->word, 0u, memory_order_relaxed);
	return true;
}

#endif
