#include "rwslice.h"

/* The inner rwlock's verbs with the kind bound, for the slice code's
 * lockable interface (which passes only the state). */
#define KIND_VERBS(k)                                                                          \
	static int rd_lock_##k(void *s) { return ls_rwlock_rdlock(s, k); }                     \
	static int rd_try_##k(void *s) { return ls_rwlock_tryrdlock(s, k); }                   \
	static int rd_timed_##k(void *s, clockid_t c, const struct timespec *t)                \
	{                                                                                        \
		return ls_rwlock_timedrdlock(s, k, c, t);                                      \
	}                                                                                        \
	static int wr_lock_##k(void *s) { return ls_rwlock_wrlock(s, k); }                     \
	static int wr_timed_##k(void *s, clockid_t c, const struct timespec *t)                \
	{                                                                                        \
		return ls_rwlock_timedwrlock(s, k, c, t);                                      \
	}                                                                                        \
	static void unlock_##k(void *s) { ls_rwlock_unlock(s, k); }

KIND_VERBS(0)
KIND_VERBS(1)

_Static_assert(LS_RW_PREFER_WRITER == 1u, "kinds index the tables");

static int wr_try(void *s)
{
	return ls_rwlock_trywrlock(s);
}

/* Held in either mode (the slice's unlock ignores a misused unlock of a
 * free lock). */
static bool held(void *s)
{
	return ls_rwslice_held(s);
}

/* Read-held (relaxed: a racy snapshot, as the watch wants). */
static bool read_held(void *s)
{
	return ls_rwlock_readers(atomic_load_explicit(&((struct ls_rwlock *)s)->word,
	                                              memory_order_relaxed)) != 0;
}

/* The slice's reservation in the inner word (LS_RW_RESERVED): seq_cst, as
 * ls_slice_mirror wants; skipped when the bit is already so. */
static void reserve(void *s, bool on)
{
	_Atomic uint64_t *w = &((struct ls_rwlock *)s)->word;
	uint64_t v = atomic_load_explicit(w, memory_order_seq_cst);
	if (((v & LS_RW_RESERVED) != 0) == on)
		return;
	if (on)
		atomic_fetch_or_explicit(w, LS_RW_RESERVED, memory_order_seq_cst);
	else
		atomic_fetch_and_explicit(w, ~LS_RW_RESERVED, memory_order_seq_cst);
}
#define LOCKABLE(lk, try, timed, unl)                                                         \
	{ .lock = lk, .trylock = try, .timedlock = timed, .unlock = unl, .is_locked = held,   \
	  .shared = read_held, .reserve = reserve }

const struct ls_lockable ls_rwslice_rd[2] = {
	LOCKABLE(rd_lock_0, rd_try_0, rd_timed_0, unlock_0),
	LOCKABLE(rd_lock_1, rd_try_1, rd_timed_1, unlock_1),
};

const struct ls_lockable ls_rwslice_wr[2] = {
	LOCKABLE(wr_lock_0, wr_try, wr_timed_0, unlock_0),
	LOCKABLE(wr_lock_1, wr_try, wr_timed_1, unlock_1),
};

/* A stale reservation (no slice runs): cleared.  A race between two
 * mirrors can leave one (slice.c ls_slice_mirror); every later fast path
 * would come here until it is gone. */
static void unreserve_stale(struct ls_rwslice *l, unsigned flags)
{
	if ((atomic_load_explicit(&l->inner.word, memory_order_relaxed) & LS_RW_RESERVED) &&
	    ls_slice_open(atomic_load_explicit(&l->slice.word, memory_order_relaxed)))
		ls_slice_mirror(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner);
}

int ls_rwslice_rd_settle(struct ls_rwslice *l, unsigned flags, uint64_t old)
{
	if (!(old & LS_RW_WRITER) && (int64_t)old >= 0 &&
	    !((flags & LS_RW_PREFER_WRITER) && (old & LS_RW_WWAIT_MASK))) {
		/* Only the reservation stopped it: a slice runs.  A reader
		 * that is not the owner joins readers that hold the lock
		 * (the read rule, above); otherwise the slice decides (the
		 * owner keeps it, accounted; anyone else lets go). */
		if (ls_rwlock_readers(old) != 0 &&
		    !ls_slice_mine(&l->slice, atomic_load_explicit(&l->slice.word, memory_order_relaxed)))
			return 0;
		return ls_slice_take_reserved(&l->slice, &ls_rwslice_rd[flags & 1u], &l->inner, false);
	}
	ls_rwlock_rdunlock(&l->inner); /* blocked: the count goes back */
	return EBUSY;
}

int ls_rwslice_rdlock_raised(struct ls_rwslice *l, unsigned flags, uint64_t old)
{
	if (ls_rwslice_rd_settle(l, flags, old) == 0)
		return 0;
	return ls_rwslice_rdlock_contended(l, flags);
}

int ls_rwslice_rdlock_contended(struct ls_rwslice *l, unsigned flags)
{
	unreserve_stale(l, flags);
	int r = ls_rwslice_join_readers(l, flags);
	if (r != EBUSY)
		return r;
	return ls_slice_lock(&l->slice, &ls_rwslice_rd[flags & 1u], &l->inner);
}

int ls_rwslice_wrlock_contended(struct ls_rwslice *l, unsigned flags)
{
	unreserve_stale(l, flags);
	return ls_slice_lock(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner);
}

void ls_rwslice_unlock_slow(struct ls_rwslice *l, unsigned flags, uint64_t w)
{
	if (w & LS_RW_RESERVED) {
		/* The owner's unlock may end its slice (ls_slice_unlock);
		 * anyone else's is the inner lock's. */
		if (ls_slice_mine(&l->slice, atomic_load_explicit(&l->slice.word, memory_order_relaxed))) {
			ls_slice_unlock(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner);
			return;
		}
		unreserve_stale(l, flags);
	}
	/* Not the slice's owner: the inner lock's unlock, unless the lock is
	 * free (a misused unlock: nothing to do, as ls_slice_unlock). */
	if (ls_rwslice_held(&l->inner))
		ls_rwlock_unlock(&l->inner, flags);
}
