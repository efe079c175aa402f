#include "slice_futex.h"

#include "../runtime/timespec.h"
#include "../runtime/wait.h"

/* ---- the lock word as the slice's inner lock -------------------------- */

/* One poll of the spin phase: true to stop (taken, or someone is parked:
 * spinning on would only barge past them), as the futex lock's. */
static bool spin_step(_Atomic uint32_t *w, bool *got)
{
	uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
	if (!(v & LS_SF_HELD))
		return (*got = ls_sf_take(w));
	return v & LS_SF_PARKED;
}

int ls_slice_futex_inner_lock(_Atomic uint32_t *w, clockid_t clock,
                              const struct timespec *abstime)
{
	if (ls_sf_take(w))
		return 0;
	bool got = false;
	LS_SPIN_UNTIL(w, spin_step(w, &got));
	if (got)
		return 0;
	if (abstime && ls_timespec_negative(abstime))
		return ls_sf_take(w) ? 0 : ETIMEDOUT;
	/* A parked waiter holds no position: a cancelled one leaves nothing
	 * behind but a PARKED mark, which costs one spurious wake. */
	struct ls_wait_scope sc;
	ls_wait_enter(&sc);
	int r = 0;
	uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
	for (;;) {
		if (!(v & LS_SF_HELD)) {
			/* Taken after a park: marked PARKED, since others may
			 * still be parked behind us.  Acquire: the critical
			 * section begins here. */
			if (atomic_compare_exchange_weak_explicit(w, &v, v | LS_SF_HELD | LS_SF_PARKED,
			                                          memory_order_acquire,
			                                          memory_order_relaxed))
				break;
			continue;
		}
		if (!(v & LS_SF_PARKED)) {
			/* relaxed: the futex wait checks the word in the kernel. */
			if (!atomic_compare_exchange_weak_explicit(w, &v, v | LS_SF_PARKED,
			                                           memory_order_relaxed,
			                                           memory_order_relaxed))
				continue;
			v |= LS_SF_PARKED;
		}
		if (ls_park(w, v, clock, abstime) == ETIMEDOUT) {
			r = ETIMEDOUT;
			break;
		}
		v = atomic_load_explicit(w, memory_order_relaxed);
	}
	ls_wait_exit(&sc);
	return r;
}

void ls_slice_futex_wake(_Atomic uint32_t *w)
{
	uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
	/* Held again: its holder's unlock sees PARKED and wakes.  relaxed:
	 * the release was the unlock's own RMW. */
	while ((v & LS_SF_PARKED) && !(v & LS_SF_HELD))
		if (atomic_compare_exchange_weak_explicit(w, &v, v & ~LS_SF_PARKED,
		                                          memory_order_relaxed,
		                                          memory_order_relaxed)) {
			ls_unpark(w, 1);
			return;
		}
}

bool ls_slice_futex_mark_parked(struct ls_slice_futex *l)
{
	/* relaxed, as a parker's mark: the unlock's RMW sees it or the lock
	 * was free at the CAS, which then fails on HELD. */
	uint32_t v = atomic_load_explicit(&l->word, memory_order_relaxed);
	while (v & LS_SF_HELD) {
		if ((v & LS_SF_PARKED) ||
		    atomic_compare_exchange_weak_explicit(&l->word, &v, v | LS_SF_PARKED,
		                                          memory_order_relaxed, memory_order_relaxed))
			return true;
	}
	return false;
}

void ls_slice_futex_owe_wake(struct ls_slice_futex *l)
{
	/* A free word marked PARKED is one the fast paths leave to the slow
	 * ones: the next unlock, of whoever takes it, wakes one. */
	if (!(atomic_load_explicit(&l->word, memory_order_relaxed) & LS_SF_PARKED))
		atomic_fetch_or_explicit(&l->word, LS_SF_PARKED, memory_order_relaxed);
}

static int in_lock(void *s)
{
	return ls_slice_futex_inner_lock(s, CLOCK_MONOTONIC, NULL);
}

static int in_trylock(void *s)
{
	return ls_sf_take(s) ? 0 : EBUSY;
}

static int in_timedlock(void *s, clockid_t clock, const struct timespec *abstime)
{
	return ls_slice_futex_inner_lock(s, clock, abstime);
}

/* The inner unlock alone: no slice accounting (the slice code does it). */
static void in_unlock(void *s)
{
	if (!ls_sf_release(s) &&
	    (atomic_load_explicit((_Atomic uint32_t *)s, memory_order_relaxed) & LS_SF_PARKED))
		ls_slice_futex_wake(s);
}

static bool in_is_locked(void *s)
{
	return atomic_load_explicit((_Atomic uint32_t *)s, memory_order_relaxed) & LS_SF_HELD;
}

/* seq_cst: ls_slice_mirror's protocol (slice.c).  Skipped when the bit is
 * already so: at every hand-over it is. */
static void in_reserve(void *s, bool on)
{
	_Atomic uint32_t *w = s;
	uint32_t v = atomic_load_explicit(w, memory_order_seq_cst);
	if (((v & LS_SF_RESERVED) != 0) == on)
		return;
	if (on)
		atomic_fetch_or_explicit(w, LS_SF_RESERVED, memory_order_seq_cst);
	else
		atomic_fetch_and_explicit(w, ~LS_SF_RESERVED, memory_order_seq_cst);
}

const struct ls_lockable ls_slice_futex_in = {
	.lock = in_lock,
	.trylock = in_trylock,
	.timedlock = in_timedlock,
	.unlock = in_unlock,
	.is_locked = in_is_locked,
	.reserve = in_reserve,
};

/* ---- the verbs past their fast paths ---------------------------------- */

/* Past the owner's common case: out of line, so that the common case
 * keeps no frame. */
static __attribute__((noinline)) int lock_reserved_slow(struct ls_slice_futex *l, uint64_t w)
{
	if (ls_slice_take_reserved_slow(&l->slice, &ls_slice_futex_in, &l->word, w, false) == 0)
		return 0;
	return ls_slice_acquire(&l->slice, &ls_slice_futex_in, &l->word, CLOCK_MONOTONIC, NULL);
}

int ls_slice_futex_lock_reserved(struct ls_slice_futex *l)
{
	/* ls_slice_take_reserved, its common case inline. */
	uint64_t w = atomic_load_explicit(&l->slice.word, memory_order_relaxed);
	if (__builtin_expect(ls_slice_owner_fast(&l->slice, w), 1)) {
		ls_slice_owner_enter();
		return 0;
	}
	return lock_reserved_slow(l, w);
}

int ls_slice_futex_lock_contended(struct ls_slice_futex *l)
{
	/* A reservation with no slice running (a race between two mirrors,
	 * or one made stale by a fork): cleared, then the lock tried again,
	 * since the arrival may not have found it held. */
	uint64_t w = atomic_load_explicit(&l->slice.word, memory_order_relaxed);
	if (ls_slice_open(w) && ls_sf_reserved(&l->word)) {
		ls_slice_mirror(&l->slice, &ls_slice_futex_in, &l->word);
		if (ls_sf_take(&l->word) &&
		    (!ls_sf_reserved(&l->word) ||
		     ls_slice_take_reserved(&l->slice, &ls_slice_futex_in, &l->word, false) == 0))
			return 0;
	}
	return ls_slice_acquire(&l->slice, &ls_slice_futex_in, &l->word, CLOCK_MONOTONIC, NULL);
}

int ls_slice_futex_take_reserved(struct ls_slice_futex *l)
{
	return ls_slice_take_reserved(&l->slice, &ls_slice_futex_in, &l->word, false);
}

void ls_slice_futex_try_reserved(struct ls_slice_futex *l)
{
	(void)ls_slice_take_reserved(&l->slice, &ls_slice_futex_in, &l->word, true);
}

/* A release that found PARKED: wake one, then what a reserved release owes. */
static __attribute__((noinline)) void unlock_parked(struct ls_slice_futex *l, uint32_t v)
{
	ls_slice_futex_wake(&l->word);
	if (v & LS_SF_RESERVED)
		ls_slice_released_reserved(&l->slice, &ls_slice_futex_in, &l->word);
}

void ls_slice_futex_unlock_slow(struct ls_slice_futex *l)
{
	uint32_t v = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (__builtin_expect(v & LS_SF_PARKED, 0))
		unlock_parked(l, v);
	else if (v & LS_SF_RESERVED)
		ls_slice_released_reserved(&l->slice, &ls_slice_futex_in, &l->word);
}

int ls_slice_futex_timedlock(struct ls_slice_futex *l, clockid_t clock,
                             const struct timespec *abstime)
{
	if (ls_sf_take(&l->word) &&
	    (!ls_sf_reserved(&l->word) ||
	     ls_slice_take_reserved(&l->slice, &ls_slice_futex_in, &l->word, false) == 0))
		return 0;
	return ls_slice_acquire(&l->slice, &ls_slice_futex_in, &l->word, clock, abstime);
}

void ls_slice_futex_unlock_to_wait(struct ls_slice_futex *l)
{
	ls_slice_unlock_to_wait(&l->slice, &ls_slice_futex_in, &l->word);
}
