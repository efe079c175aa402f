#include "bravo.h"

#include <errno.h>
#include <limits.h>

#include "futex.h"
#include "wait.h"
#include "timespec.h"

_Atomic uint64_t ls_bravo_table[LS_BRAVO_SLOTS];

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
		ls_futex_wake(slot_futex(slot), INT_MAX);
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
	 * pattern with revoke_bias() (store bias, then load slots). */
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

/* Wait until slot no longer names b: spin, then park on the slot's low
 * half with WAITED set (the reader's release exchange sees it and wakes).
 * Returns 0, or ETIMEDOUT (try: EBUSY at once). */
static int wait_slot(struct ls_bravo *b, uint32_t slot, bool try, clockid_t clock,
                     const struct timespec *abstime)
{
	_Atomic uint64_t *e = &ls_bravo_table[slot];
	const uint64_t mine = (uintptr_t)b;
	if ((atomic_load(e) & ~LS_BRAVO_SLOT_WAITED) != mine)
		return 0;
	if (try)
		return EBUSY;
	/* acquire: pairs with the reader's release exchange. */
	if (LS_SPIN_UNTIL(e, (atomic_load_explicit(e, memory_order_acquire) &
	                      ~LS_BRAVO_SLOT_WAITED) != mine))
		return 0;
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

/* Holding the inner write lock: clear the bias and wait for every fast
 * reader of b to leave; then inhibit re-biasing for MULT times as long. */
static int revoke_bias(struct ls_bravo *b, bool try, clockid_t clock, const struct timespec *abstime)
{
	uint64_t t0 = ls_now_ns(CLOCK_MONOTONIC);
	/* seq_cst store, then seq_cst slot loads: the writer's half of the
	 * Dekker pattern with fast_read(). */
	atomic_store(&b->bias, 0);
	int r = 0;
	for (uint32_t i = 0; i < LS_BRAVO_SLOTS && r == 0; i++)
		r = wait_slot(b, i, try, clock, abstime);
	uint64_t t1 = ls_now_ns(CLOCK_MONOTONIC);
	uint64_t until = t1 + LS_BRAVO_INHIBIT_MULT * (t1 - t0);
	/* A writer that gave up (try, timeout) leaves fast readers behind, so
	 * it sets the bias back: the next writer must revoke and wait for them
	 * ("not biased" has to mean "no announced reader").
	 * relaxed: read by slow readers after they take the inner read lock,
	 * which is ordered after our inner write unlock; the next writer reads
	 * it under the inner write lock. */
	atomic_store_explicit(&b->bias, until << LS_BRAVO_INHIBIT_SHIFT | (r ? LS_BRAVO_BIASED : 0),
	                      memory_order_relaxed);
	return r;
}

static int write_lock(struct ls_bravo *b, unsigned flags, bool try, clockid_t clock,
                      const struct timespec *abstime)
{
	int r = try ? ls_rwlock_trywrlock(&b->inner)
	            : abstime ? ls_rwlock_timedwrlock(&b->inner, flags, clock, abstime)
	                      : ls_rwlock_wrlock(&b->inner, flags);
	if (r != 0)
		return r;
	/* relaxed: only writers clear the bias, under the inner write lock we
	 * hold; a set bit seen late only costs one revocation scan. */
	if (atomic_load_explicit(&b->bias, memory_order_relaxed) & LS_BRAVO_BIASED) {
		if ((r = revoke_bias(b, try, clock, abstime)) != 0)
			ls_rwlock_wrunlock(&b->inner, flags);
	}
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
