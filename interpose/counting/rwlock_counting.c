/*
 * rwlock_counting.c - the rwlock counting table (rwlock_counting.h): what
 * a read lock and an unlock do with statistics on, reached from the
 * rwlock entry points' fast path, as the mutex's counting table
 * (counting.c) serves plain mutexes.
 *
 * Inline: the futex rwlock's and the slice rwlock's verbs (the default),
 * backends/inline_verbs.h; any other backend through its table.
 *
 * rdlock: if the statistics may count inline (stats/quick.h: the thread's
 * hold-sample countdown is not at its end, nor parked), try the backend's
 * read (for an inlined backend without its back-out, which a refused try
 * makes out of line: see count_rdlock); if that got the lock and the
 * thread has counted this
 * rwlock's reads before, bump the thread's own read row and return.  A
 * read keeps no holder and no site (readers share the lock; the hooks
 * count them the same way).  The verb is reached by a jump from
 * pthread_rwlock_rdlock, after its EDEADLK test, so its return address is
 * the program's call site.  Every other case goes, by a jump, to the slow
 * path's protocol (rwlock_counted.h), which records exactly what it did
 * before this table existed.
 *
 * unlock: the backend's, unless the statistics want to see it (hooks.h
 * ls_stats_unlock_wanted), then the slow path's observed unlock.
 *
 * tryrdlock, wrlock and trywrlock are NULL: their entry points take the
 * slow path (backends/rwlock.h), which counts as before.  A write is not
 * counted here because its verb is reached by a call, not a jump (the
 * entry point records the writer after it), so its return address is not
 * the program's, and a write keeps the holder's site.  The timed forms
 * always take their slow path.  The lock state is at offset 0 of the
 * rwlock (rwlock_layout.h), so the verbs' state pointer is the rwlock.
 */
#include "rwlock_counting.h"

#include "../../backends/inline_verbs.h"
#include "../../stats/hooks.h"
#include "../entry/entry.h"
#include "rwlock_counted.h"
#include "../entry/rwlock_layout.h"

/* Bound once by ls_rwlock_counting_table, before the gate's release store
 * publishes the table that uses it. */
static const struct ls_rwlock_ops *bound;

/* `tryrd` answers 0, an errno value, or LS_RW_RAISED_BLOCKED, which
 * `refused` (out of line: the back-out may call) turns into the errno
 * value before the blocked protocol: every exit but the common one is a
 * jump, so the verb keeps no frame.  The key is the address | type
 * (quick.h); the rwlock is 8-aligned, so + is |, and one lea. */
static inline __attribute__((always_inline)) int count_read(void *s, uintptr_t site)
{
	struct ls_stats_count *r = ls_stats_quick_row(&ls_rw_of(s)->stats, 0,
	                                              (uintptr_t)s + LS_STATS_QUICK_RWLOCK);
	if (UNLIKELY(!r))
		return ls_rwlock_counted_after(s, site);
	ls_stats_bump(&r->c[LS_C_ACQ]);
	return 0;
}

static inline __attribute__((always_inline)) int count_rdlock(int (*tryrd)(void *, unsigned),
                                                              int (*refused)(void *, uintptr_t, int),
                                                              void *s, unsigned f,
                                                              uintptr_t site)
{
	if (UNLIKELY(!ls_stats_quick_take()))
		return ls_rwlock_counted_declined(s, site);
	int e = tryrd(s, f);
	if (UNLIKELY(e != 0))
		return refused(s, site, e);
	return count_read(s, site);
}

/* pthread_rwlock_unlock calls the unlock verb (it returns 0 after): the
 * observed unlock has no site, as the mutex's. */
static inline __attribute__((always_inline)) void count_unlock(void (*unlock)(void *, unsigned),
                                                               void *s, unsigned f)
{
	if (UNLIKELY(ls_stats_unlock_wanted()))
		return ls_rwlock_counted_unlock(s);
	unlock(s, f);
}

#define SITE() ((uintptr_t)__builtin_return_address(0))

/* The counting tables: a read verb over a backend's read try
 * (LS_RW_RAISED_BLOCKED from it asks for its back-out) and an unlock;
 * where these are inline functions (backends/inline_verbs.h) the read verb
 * has no call in its common case, so no frame. */
#define COUNTING(RDLOCK, UNLOCK) \
	{ .name = "counting", .rdlock = RDLOCK, .unlock = UNLOCK, .gate_only = true }

/* Any backend: its verbs through the table bound at start-up (its try
 * backs out itself). */
static int any_tryrd(void *s, unsigned f) { return bound->tryrdlock(s, f); }
static void any_unlock(void *s, unsigned f) { bound->unlock(s, f); }
static __attribute__((noinline)) int any_refused(void *s, uintptr_t site, int e)
{
	return ls_rwlock_counted_blocked(s, site, e == LS_RW_RAISED_BLOCKED ? EBUSY : e);
}
static int any_count_rdlock(void *s, unsigned f)
{
	return count_rdlock(any_tryrd, any_refused, s, f, SITE());
}
static void any_count_unlock(void *s, unsigned f) { count_unlock(any_unlock, s, f); }
static const struct ls_rwlock_ops any_counting = COUNTING(any_count_rdlock, any_count_unlock);

/* futex, the default rwlock backend, whose verbs inline. */
static __attribute__((noinline)) int futex_refused(void *s, uintptr_t site, int e)
{
	return ls_rwlock_counted_blocked(s, site, e == LS_RW_RAISED_BLOCKED ?
	                                                  ls_rwlock_futex_inline_backout(s) : e);
}
static int futex_count_rdlock(void *s, unsigned f)
{
	return count_rdlock(ls_rwlock_futex_inline_tryrd, futex_refused, s, f, SITE());
}
static void futex_count_unlock(void *s, unsigned f)
{
	count_unlock(ls_rwlock_futex_inline_unlock, s, f);
}
static const struct ls_rwlock_ops futex_counting = COUNTING(futex_count_rdlock, futex_count_unlock);

/* The slice rwlock, the default, whose verbs inline too: a fetch_add
 * that did not let the reader straight in is settled out of line (the
 * slice's owner and a reader joining readers keep the lock, and are
 * counted here; anyone else has given the count back and blocks through
 * the protocol). */
static __attribute__((noinline)) int slice_settle(void *s, unsigned f, uintptr_t site,
                                                  uint64_t old)
{
	if (ls_rwslice_rd_settle(s, f, old) != 0)
		return ls_rwlock_counted_blocked(s, site, EBUSY);
	return count_read(s, site);
}
static int slice_count_rdlock(void *s, unsigned f)
{
	uintptr_t site = SITE();
	uint64_t old;
	if (UNLIKELY(!ls_stats_quick_take()))
		return ls_rwlock_counted_declined(s, site);
	if (UNLIKELY(!ls_rwslice_inline_rd(s, f, &old)))
		return slice_settle(s, f, site, old);
	return count_read(s, site);
}
static void slice_count_unlock(void *s, unsigned f)
{
	count_unlock(ls_rwslice_inline_unlock, s, f);
}
static const struct ls_rwlock_ops slice_counting = COUNTING(slice_count_rdlock, slice_count_unlock);

const struct ls_rwlock_ops *ls_rwlock_counting_table(const struct ls_rwlock_ops *b)
{
	if (ls_rwlock_is_passthrough(b))
		return NULL;
	if (b == &ls_rwlock_backend_futex)
		return &futex_counting;
	if (b == &ls_rwlock_backend_slice)
		return &slice_counting;
	bound = b;
	return &any_counting;
}
