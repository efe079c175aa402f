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

#define LOCKABLE(lk, try, timed, unl)                                                         \
	{ .lock = lk, .trylock = try, .timedlock = timed, .unlock = unl, .is_locked = held,   \
	  .shared = read_held }

const struct ls_lockable ls_rwslice_rd[2] = {
	LOCKABLE(rd_lock_0, rd_try_0, rd_timed_0, unlock_0),
	LOCKABLE(rd_lock_1, rd_try_1, rd_timed_1, unlock_1),
};

const struct ls_lockable ls_rwslice_wr[2] = {
	LOCKABLE(wr_lock_0, wr_try, wr_timed_0, unlock_0),
	LOCKABLE(wr_lock_1, wr_try, wr_timed_1, unlock_1),
};

void ls_rwslice_owner_unlock(struct ls_rwslice *l, unsigned flags)
{
	ls_slice_unlock(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner);
}

int ls_rwslice_rdlock_contended(struct ls_rwslice *l, unsigned flags)
{
	int r = ls_rwslice_join_readers(l, flags);
	if (r != EBUSY)
		return r;
	return ls_slice_lock(&l->slice, &ls_rwslice_rd[flags & 1u], &l->inner);
}

int ls_rwslice_wrlock_contended(struct ls_rwslice *l, unsigned flags)
{
	return ls_slice_lock(&l->slice, &ls_rwslice_wr[flags & 1u], &l->inner);
}
