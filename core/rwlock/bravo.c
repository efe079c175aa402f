#include "bravo.h"

#include <errno.h>
#include <limits.h>

#include "../runtime/wait.h"
#include "../runtime/timespec.h"
#include "../runtime/cold.h"

_Atomic uint64_t ls_bravo_table[LS_BRAVO_SLOTS] LS_COLD_BSS;

/* This thread's fast holds (see the header: never read by other threads). */
struct held {
	struct ls_bravo *lock;
	uint32_t slot;
	uint32_t depth;
};
static __thread struct held held[LS_BRAVO_HELD_MAX] __attribute__((tls_model("initial-exec")));
static __thread unsigned nheld __attribute__((tls_model("initial-exec")));
static __thread unsigned clock_tick __attribute__((tls_model("initial-exec")));

static struct held *find_held(struct ls_bravo *b)
{
	for (unsigned i = 0; i < nheld; i++)
		if (held[i].lock == b)
			return &held[i];
	return NULL;
}

bool ls_bravo_held_fast(struct ls_bravo *b)
{
	return find_held(b) != NULL;
}

/* Slot of (lock, thread): the address of this thread's TLS names it. */
static uint32_t slot_of(struct ls_bravo *b)
{
	uint64_t k = (uint64_t)(uintptr_t)b ^ ((uint64_t)(uintptr_t)&nheld << 7);
	k *= UINT64_C(0x9e3779b97f4a7c15);
	return (uint32_t)(k >> 52) % LS_BRAVO_SLOTS;
}

/* The futex word of a slot: its low half, which holds the lock address's
 * low bits and the WAITED bit (little-endian). */
static _Atomic uint32_t *slot_futex(uint32_t slot)
{
	_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "low half first");
	return (_Atomic uint32_t *)(void *)&ls_bravo_table[slot];
}

static void slot_release(uint32_t slot)
{
	/* release: publishes the read-side critical section to the writer
	 * whose seq_cst slot load sees the entry gone. */
	uint64_t old = atomic_exchange_explicit(&ls_bravo_table[slot], 0, memory_order_release);
	if (old & LS_BRAVO_SLOT_WAITED)
		ls_unpark(slot_futex(slot), INT_MAX);
}

static bool fast_read(struct ls_bravo *b, unsigned flags)
{
	struct held *h = find_held(b);
	if (h && h->depth < UINT32_MAX) {
		h->depth++; /* recursive: the announcement already holds it */
		return true;
	}
	/* relaxed: a hint; the seq_cst re-load below decides. */
	if (!(atomic_load_explicit(&b->bias, memory_order_relaxed) & LS_BRAVO_BIASED) ||
	    nheld == LS_BRAVO_HELD_MAX)
		return false;
	/* Writer preference: no fast read while a writer waits for the inner
	 * lock.  relaxed: a writer counted just after this load finds our
	 * announcement when it revokes and waits for this one reader. */
	if ((flags & LS_RW_PREFER_WRITER) &&
	    ls_rwlock_rd_blocked(atomic_load_explicit(&b->inner.word, memory_order_relaxed), flags))
		return false;
	uint32_t slot = slot_of(b);
	uint64_t expected = 0;
	/* seq_cst CAS then seq_cst load: the reader's half of the Dekker
	 * pattern with write_lock() (store bias, then load slots). */
	if (!atomic_compare_exchange_strong(&ls_bravo_table[slot], &expected, (uintptr_t)b))
		return false;
	if (!(atomic_load(&b->bias) & LS_BRAVO_BIASED)) {
		slot_release(slot);
		return false;
	}
	held[nheld++] = (struct held){ b, slot, 1 };
	return true;
}

/* Holding the inner read lock (so no writer is revoking): bias again once
 * the inhibition is over. */
static void maybe_rebias(struct ls_bravo *b)
{
	/* relaxed: bias is written by writers under the inner write lock,
	 * which our inner read acquisition is ordered after. */
	uint64_t v = atomic_load_explicit(&b->bias, memory_order_relaxed);
	if (v & LS_BRAVO_BIASED)
		return;
	/* The clock is read on one slow read in LS_BRAVO_CLOCK_EVERY per
	 * thread: reading it every time would make every inhibited read pay a
	 * clock_gettime (the inhibition then lasts at most that many reads
	 * longer). */
	if (v >> LS_BRAVO_INHIBIT_SHIFT && (++clock_tick % LS_BRAVO_CLOCK_EVERY) != 0)
		return;
	if (ls_now_ns(CLOCK_MONOTONIC) < (v >> LS_BRAVO_INHIBIT_SHIFT))
		return;
	/* relaxed: readers load the bias seq_cst after their slot CAS; a
	 * reader that misses this store just takes the slow path once more. */
	atomic_compare_exchange_strong_explicit(&b->bias, &v, v | LS_BRAVO_BIASED,
	                                        memory_order_relaxed, memory_order_relaxed);
}

static int slow_read(struct ls_bravo *b, unsigned flags, clockid_t clock,
                     const struct timespec *abstime, bool try)
{
	int r = try ? ls_rwlock_tryrdlock(&b->inner, flags)
	            : abstime ? ls_rwlock_timedrdlock(&b->inner, flags, clock, abstime)
	                      : ls_rwlock_rdlock(&b->inner, flags);
	if (r == 0)
		maybe_rebias(b);
	return r;
}

int ls_bravo_rdlock(struct ls_bravo *b, unsigned flags)
{
	return fast_read(b, flags) ? 0 : slow_read(b, flags, CLOCK_MONOTONIC, NULL, false);
}

int ls_bravo_tryrdlock(struct ls_bravo *b, unsigned flags)
{
	return fast_read(b, flags) ? 0 : slow_read(b, flags, CLOCK_MONOTONIC, NULL, true);
}

int ls_bravo_timedrdlock(struct ls_bravo *b, unsigned flags, clockid_t clock,
                         const struct timespec *abstime)
{
	return fast_read(b, flags) ? 0 : slow_read(b, flags, clock, abstime, false);
}

/* How a writer waits for one announced reader (wait_slot). */
enum slot_wait {
	SLOT_TRY,  /* not at all: EBUSY */
	SLOT_SPIN, /* while the waiting policy lets it spin: then EBUSY */
	SLOT_PARK, /* spin, then park until the entry changes (or abstime) */
};

/* Wait until slot no longer names b: spin, then (SLOT_PARK) park on the
 * slot's low half with WAITED set (the reader's release exchange sees it
 * and wakes).  Returns 0, EBUSY (SLOT_TRY, SLOT_SPIN) or ETIMEDOUT. */
static int wait_slot(struct ls_bravo *b, uint32_t slot, enum slot_wait how, clockid_t clock,
                     const struct timespec *abstime)
{
	_Atomic uint64_t *e = &ls_bravo_table[slot];
	const uint64_t mine = (uintptr_t)b;
	if ((atomic_load(e) & ~LS_BRAVO_SLOT_WAITED) != mine)
		return 0;
	if (how == SLOT_TRY)
		return EBUSY;
	/* acquire: pairs with the reader's release exchange. */
	if (LS_SPIN_UNTIL(e, (atomic_load_explicit(e, memory_order_acquire) &
	                      ~LS_BRAVO_SLOT_WAITED) != mine))
		return 0;
	if (how == SLOT_SPIN)
		return EBUSY;
	if (abstime && ls_timespec_negative(abstime))
		return ETIMEDOUT;
	for (;;) {
		uint64_t v = atomic_load(e);
		if ((v & ~LS_BRAVO_SLOT_WAITED) != mine)
			return 0;
		/* relaxed CAS: only marks the entry; the reader's exchange that
		 * follows it in the entry's modification order sees the mark. */
		if (!(v & LS_BRAVO_SLOT_WAITED) &&
		    !atomic_compare_exchange_strong_explicit(e, &v, v | LS_BRAVO_SLOT_WAITED,
		                                             memory_order_relaxed, memory_order_relaxed))
			continue;
		if (ls_park(slot_futex(slot), (uint32_t)(mine | LS_BRAVO_SLOT_WAITED), clock,
		                  abstime) == ETIMEDOUT &&
		    (atomic_load(e) & ~LS_BRAVO_SLOT_WAITED) == mine)
			return ETIMEDOUT;
	}
}

/* Wait for every announced reader of b to leave; stops at the first that
 * does not (EBUSY or ETIMEDOUT, as wait_slot). */
static int drain(struct ls_bravo *b, enum slot_wait how, clockid_t clock,
                 const struct timespec *abstime)
{
	int r = 0;
	for (uint32_t i = 0; i < LS_BRAVO_SLOTS && r == 0; i++)
		r = wait_slot(b, i, how, clock, abstime);
	return r;
}

static uint64_t inhibit_until(uint64_t t0)
{
	uint64_t t1 = ls_now_ns(CLOCK_MONOTONIC);
	return (t1 + LS_BRAVO_INHIBIT_MULT * (t1 - t0)) << LS_BRAVO_INHIBIT_SHIFT;
}

static int inner_wrlock(struct ls_bravo *b, unsigned flags, bool try, clockid_t clock,
                        const struct timespec *abstime)
{
	return try ? ls_rwlock_trywrlock(&b->inner)
	           : abstime ? ls_rwlock_timedwrlock(&b->inner, flags, clock, abstime)
	                     : ls_rwlock_wrlock(&b->inner, flags);
}

/* A writer is done only once it holds the inner write lock, has closed
 * the bias in that same hold and then found no announced reader.  How it
 * waits for announced readers depends on the kind:
 *
 * - Writer preference (PREFER_WRITER_NONRECURSIVE): holding the inner
 *   lock, as the paper's writer does.  New readers then wait for this
 *   writer, which is what the kind promises (and, as in glibc, a reader
 *   holding the lock that waits for another thread's read lock
 *   deadlocks).
 * - Reader preference (the default): a new reader must get in while
 *   readers hold the lock, even with a writer waiting, so a writer never
 *   waits for announced readers while holding the inner lock.  It spins a
 *   little holding it; if a reader is still announced after that, it
 *   leaves the bias closed with DRAINING set, releases the inner lock
 *   (new readers take the inner read lock meanwhile) and waits for the
 *   announced readers without holding anything, then starts over.
 *   Holding the inner lock while parked let a reader that waits for
 *   another reader deadlock: the first held through the table, the writer
 *   held the inner lock waiting for it, the second reader waited for the
 *   inner lock.
 *
 * The bias stays inhibited "forever" while a drain is under way, so slow
 * readers cannot re-open it and the drain ends once the readers already
 * announced leave; the writer that completes sets the usual inhibition, 9
 * times the revocation's duration.  A writer that gives up (try, timeout)
 * leaves DRAINING set, so the next writer scans, and a finite inhibition. */
static int write_lock(struct ls_bravo *b, unsigned flags, bool try, clockid_t clock,
                      const struct timespec *abstime)
{
	const bool prefer_readers = !(flags & LS_RW_PREFER_WRITER);
	uint64_t t0 = 0;
	int r;
	for (;;) {
		/* relaxed: a hint; the decision is taken under the inner lock. */
		if (prefer_readers && !try &&
		    (atomic_load_explicit(&b->bias, memory_order_relaxed) & LS_BRAVO_DRAINING)) {
			if (!t0)
				t0 = ls_now_ns(CLOCK_MONOTONIC);
			if ((r = drain(b, SLOT_PARK, clock, abstime)) != 0)
				break;
		}
		if ((r = inner_wrlock(b, flags, try, clock, abstime)) != 0)
			return r;
		/* relaxed: only writers holding the inner write lock clear the
		 * flags; a flag seen late only costs one scan. */
		if (!(atomic_load_explicit(&b->bias, memory_order_relaxed) &
		      (LS_BRAVO_BIASED | LS_BRAVO_DRAINING)))
			return 0;
		if (!t0)
			t0 = ls_now_ns(CLOCK_MONOTONIC);
		/* seq_cst store, then seq_cst slot loads: the writer's half of
		 * the Dekker pattern with fast_read(). */
		atomic_store(&b->bias, LS_BRAVO_DRAINING | LS_BRAVO_INHIBIT_FOREVER);
		r = drain(b, try ? SLOT_TRY : prefer_readers ? SLOT_SPIN : SLOT_PARK, clock, abstime);
		if (r == 0) {
			/* relaxed: read by slow readers after they take the inner
			 * read lock, ordered after our inner write unlock. */
			atomic_store_explicit(&b->bias, inhibit_until(t0), memory_order_relaxed);
			return 0;
		}
		if (r != EBUSY || try) {
			/* Still holding: no slow reader re-biases under us.
			 * relaxed: as above. */
			atomic_store_explicit(&b->bias, LS_BRAVO_DRAINING | inhibit_until(t0),
			                      memory_order_relaxed);
			ls_rwlock_wrunlock(&b->inner, flags);
			return r;
		}
		ls_rwlock_wrunlock(&b->inner, flags);
		/* Reader preference, a reader still announced: the top of the
		 * loop waits for it without holding the inner lock. */
	}
	/* Timed out in an unheld drain: the bias stays closed with DRAINING,
	 * and the inhibition we set becomes finite unless another writer or
	 * reader changed the word meanwhile.  relaxed: as above. */
	uint64_t v = LS_BRAVO_DRAINING | LS_BRAVO_INHIBIT_FOREVER;
	atomic_compare_exchange_strong_explicit(&b->bias, &v, LS_BRAVO_DRAINING | inhibit_until(t0),
	                                        memory_order_relaxed, memory_order_relaxed);
	return r;
}

int ls_bravo_wrlock(struct ls_bravo *b, unsigned flags)
{
	return write_lock(b, flags, false, CLOCK_MONOTONIC, NULL);
}

int ls_bravo_trywrlock(struct ls_bravo *b, unsigned flags)
{
	return write_lock(b, flags, true, CLOCK_MONOTONIC, NULL);
}

int ls_bravo_timedwrlock(struct ls_bravo *b, unsigned flags, clockid_t clock,
                         const struct timespec *abstime)
{
	return write_lock(b, flags, false, clock, abstime);
}

void ls_bravo_unlock(struct ls_bravo *b, unsigned flags)
{
	struct held *h = find_held(b);
	if (!h) {
		ls_rwlock_unlock(&b->inner, flags);
		return;
	}
	if (--h->depth)
		return;
	slot_release(h->slot);
	*h = held[--nheld];
}
