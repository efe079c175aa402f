/*
 * counting.c - the counting table (counting.h): what a plain mutex's
 * lock, trylock and unlock do with statistics on, reached straight from
 * the entry points' fast path (the gate, gate.h).
 *
 * lock: if the statistics may count inline (quick.h: the thread's
 * hold-sample countdown is not at its end, nor parked because the thread
 * is in the profiler), try the backend; if that got the mutex and the
 * thread acquired this mutex last (its holder word, quick.h
 * ls_stats_quick_mine) and has keyed its row for it, count it in the
 * thread's own row and return.  The verb is reached by a jump from
 * pthread_mutex_lock, so its return address is the program's call site.
 * Every other case goes, by a jump, to the slow path's protocol
 * (mutex_counted.h: ls_mutex_counted_*), which records exactly what it did
 * before this table existed: a hold sample due (its clock starts before
 * the try; in the common case two hooks around the try instead of the
 * whole protocol, stats/hooks.h ls_stats_hold_quick_begin), the thread's
 * first use of the mutex (it gets a record and
 * keys the row), contention (the waiting time, sampled waits; the backend
 * then waits with lock_after_try, without a second try), the holder
 * changing (the holder word on the mutex's own line, the owner change in
 * the row).
 *
 * trylock: the slow path's protocol (a failure is counted there).
 * unlock: the backend's, unless the statistics want to see it (a hold
 * sample open in this thread, a stack asked for: hooks.h
 * ls_stats_unlock_wanted), then the slow path's observed unlock (for a
 * hold sample alone, two hooks around the release:
 * ls_stats_hold_quick_unlock).
 *
 * Over a backend with claims (backends/inline_verbs.h; futex on x86-64)
 * the holder word is kept in the lock state, and the unlock frees the
 * mutex naming this thread, so that no owner change, contended or not,
 * writes inside the critical section (claim_unlock).  The lock takes the
 * mutex whatever it names and compares the name after (take_lock); while
 * the process has one thread, its try is a claim, which takes the mutex
 * and tests the name in one plain compare (claim_lock).
 *
 * Two tables: one over the backend's atomic verbs, and, when the backend
 * has a single-threaded table, one over that, which the gate holds while
 * the process has one thread.  The single-threaded verbs move the gate to
 * ls_single_after when they find a second thread (core/runtime/single.h); gate.c
 * puts the atomic counting table there, so the hand-over keeps counting.
 * The mutex's lock state is at offset 0 of the mutex (mutex_layout.h), so
 * the verbs' state pointer is the mutex.
 */
#include "counting.h"

#include "../../backends/inline_verbs.h"
#include "../../stats/hooks.h"
#include "../entry/entry.h"
#include "mutex_counted.h"
#include "../entry/mutex_layout.h"

/* Bound once by ls_counting_table, before the gate's release store
 * publishes the tables that use them. */
static const struct ls_lock_ops *atomic_ops, *single_ops;

static inline __attribute__((always_inline)) int count_lock(bool (*try)(void *, int *), void *s,
                                                            uintptr_t site)
{
	int zero; /* the lock word the try found free: the verb's result */
	if (UNLIKELY(!ls_stats_quick_take()))
		return ls_mutex_counted_declined(s, site);
	if (UNLIKELY(!try(s, &zero)))
		return ls_mutex_counted_blocked(s, site);
	uint64_t off = ls_stats_quick_mine(&ls_mutex_of(s)->stats);
	if (UNLIKELY(off > LS_STATS_ROW_LAST))
		return ls_mutex_counted_changed(s, site);
	struct ls_stats_count *r = ls_stats_quick_row_at(off);
	if (UNLIKELY(r->key != (uintptr_t)s))
		return ls_mutex_counted_changed(s, site);
	ls_stats_quick_count(r, site);
	return zero;
}

/* The lock verb over a backend with claims (backends/inline_verbs.h)
 * while the process has one thread (the single-threaded table): the try
 * names this thread in the lock state's holder word, and succeeds only
 * where the word named this thread already, so the common case tests the
 * holder without a load of its own, and an owner change writes nothing
 * inside the critical section.
 * `other`: claim_failed for this backend, out of line, given the
 * claim's new value, still in its register. */
static inline __attribute__((always_inline)) int claim_lock(bool (*claim)(void *, uint64_t,
                                                                          uint64_t *, uint64_t *),
                                                            int (*other)(void *, uintptr_t,
                                                                         uint64_t, uint64_t),
                                                            void *s, uintptr_t site)
{
	uint64_t seen, to;
	if (UNLIKELY(!ls_stats_quick_take()))
		return ls_mutex_counted_declined(s, site);
	if (UNLIKELY(!claim(s, ls_stats_q.mine, &seen, &to)))
		return other(s, site, seen, to);
	/* The slot word alone, masked into the rows (one instruction where
	 * count_lock's range test, which also tests the holder there, takes
	 * two): 0 or a stray word lands on a row's start whose key is not
	 * this mutex's. */
	struct ls_stats_count *r = ls_stats_quick_row(&ls_mutex_of(s)->stats, 0, (uintptr_t)s);
	if (UNLIKELY(r == NULL))
		return ls_mutex_counted_first(s, site);
	ls_stats_quick_count(r, site);
	return (int)(uint32_t)seen;
}

/* The lock verb over a backend with claims while the process has more
 * than one thread: the take (backends/inline_verbs.h) gets a free lock
 * whatever it names, and the name, the last releaser's, is compared after
 * it: another name is an owner change, counted from the name, which this
 * thread's release replaces, so nothing is stored inside the critical
 * section but the thread's own row.
 *
 * The owner change is counted without a branch
 * (ls_stats_quick_changed_flag): a quarter of LevelDB's acquisitions
 * change owner, in no order a branch predictor can learn, and the
 * branch that counted them out of line cost LevelDB readrandom at 8
 * threads 1.3-2.5% of its time (summary at 0.954-0.959 of off with it,
 * 0.966-0.980 without; docs/stats.md "The owner change without a
 * branch"), for two instructions fewer than this takes.  Exact without
 * the test for a name of 0 (nobody has released the mutex yet), which
 * the branch's out of line count made: a keyed row (this thread has
 * acquired the mutex through the hooks, which key it) means a name,
 * since every acquisition that keys a row leaves the mutex named (the
 * hooks name the holder, stats/record.c acquired_as, or the release
 * that let a waiter in did) and every release of a plain mutex names
 * the releaser (claim_unlock, mutex_bodies.h name_releaser); a mutex
 * initialised again has slot word 0, whose row is never keyed.
 * tests/stats test_counting's hand_lock (one thread, then two) counts
 * exactly one owner change. */
static inline __attribute__((always_inline)) int taken(_Atomic uint32_t *(*name)(void *), void *s,
                                                       uintptr_t site)
{
	struct ls_stats_count *r = ls_stats_quick_row(&ls_mutex_of(s)->stats, 0, (uintptr_t)s);
	if (UNLIKELY(r == NULL))
		return ls_mutex_counted_first(s, site);
	ls_stats_quick_count(r, site);
	ls_stats_quick_changed_flag(r, name(s));
	return 0;
}

static inline __attribute__((always_inline)) int take_lock(bool (*take)(void *),
                                                           _Atomic uint32_t *(*name)(void *),
                                                           void *s, uintptr_t site)
{
	if (UNLIKELY(!ls_stats_quick_take()))
		return ls_mutex_counted_declined(s, site);
	if (UNLIKELY(!take(s)))
		return ls_mutex_counted_blocked(s, site);
	return taken(name, s, site);
}

/* The claim failed: the lock is held (the contended protocol), or it is
 * free and names another thread or none: take it at once (the reclaim),
 * then count it, with the owner change, in this thread's row.  Without a
 * keyed row the hooks count it (they key the row; once per thread and
 * mutex), and they find the owner change in the holder word, so the
 * previous name goes back there first (relaxed: only the holder writes
 * the word). */
static inline __attribute__((always_inline)) int claim_failed(bool (*reclaim)(void *, uint64_t *,
                                                                               uint64_t),
                                                               _Atomic uint32_t *(*name)(void *),
                                                               void *s, uintptr_t site,
                                                               uint64_t seen, uint64_t to)
{
	if (UNLIKELY(!reclaim(s, &seen, to)))
		return ls_mutex_counted_blocked(s, site);
	uint32_t prev = (uint32_t)(seen >> 32);
	struct ls_stats_count *r = ls_stats_quick_row(&ls_mutex_of(s)->stats, 0, (uintptr_t)s);
	if (UNLIKELY(r == NULL)) {
		atomic_store_explicit(name(s), prev, memory_order_relaxed);
		return ls_mutex_counted_first(s, site);
	}
	ls_stats_quick_count(r, site);
	ls_stats_quick_changed(r, prev);
	return 0;
}

/* pthread_mutex_unlock calls the unlock verb (it returns 0 after), so the
 * verb's return address is in the shim: the observed unlock gets site 0,
 * and its stack capture starts at the program's frames (stats/stacks.c).
 * "Wanted?" is the mutex's own unlock word (mutex_layout.h), on the line
 * the unlock writes next: a hold sample open on this mutex or a waiter's
 * stack request, and nothing about other objects.  Relaxed: the bits this
 * thread set it reads back itself; a waiter's bit that it misses is
 * answered by the next unlock (the observed unlock clears the word with
 * an acquire and then checks the record). */
static inline __attribute__((always_inline)) void count_unlock(void (*unlock)(void *), void *s)
{
	if (UNLIKELY(ls_stats_word_nonzero(&ls_mutex_of(s)->unlock_want)))
		return ls_mutex_counted_unlock(s, 0);
	unlock(s);
}

/* The same over a backend with claims: its unlock names this thread
 * (backends/inline_verbs.h), so that a holder that got the mutex by
 * waiting needs no store of its own (stats/hooks.h release_names); the
 * observed unlock names it too (mutex_bodies.h name_releaser). */
static inline __attribute__((always_inline)) void claim_unlock(void (*unclaim)(void *, uint64_t),
                                                               void *s)
{
	if (UNLIKELY(ls_stats_word_nonzero(&ls_mutex_of(s)->unlock_want)))
		return ls_mutex_counted_unlock(s, 0);
	unclaim(s, ls_stats_q.mine);
}

#define SITE() ((uintptr_t)__builtin_return_address(0))

static int counted_trylock(void *s)
{
	return ls_mutex_counted_trylock(s, SITE());
}

/* The counting tables: their lock and unlock verbs, the observed trylock.
 * The gate alone holds them (gate_only).  Each has an atomic table and a
 * single-threaded one (`.single`, set when the table is chosen).  Where a
 * backend's try and unlock are inline functions (backends/inline_verbs.h)
 * the verb has no call in its common case, so no frame. */
#define COUNTING(LOCK, UNLOCK)                                                                 \
	{ .name = "counting", .lock = LOCK, .trylock = counted_trylock, .unlock = UNLOCK,       \
	  .gate_only = true }

/* Any backend: its verbs through the tables bound at start-up. */
static bool any_try(const struct ls_lock_ops *ops, void *s, int *found)
{
	*found = ops->trylock(s);
	return *found == 0;
}
static bool any_try_atomic(void *s, int *found) { return any_try(atomic_ops, s, found); }
static bool any_try_single(void *s, int *found) { return any_try(single_ops, s, found); }
static int any_atomic_lock(void *s) { return count_lock(any_try_atomic, s, SITE()); }
static int any_single_lock(void *s) { return count_lock(any_try_single, s, SITE()); }
static void any_unlock_atomic(void *s) { atomic_ops->unlock(s); }
static void any_unlock_single(void *s) { single_ops->unlock(s); }
static void any_atomic_unlock(void *s) { count_unlock(any_unlock_atomic, s); }
static void any_single_unlock(void *s) { count_unlock(any_unlock_single, s); }
static struct ls_lock_ops any_single_table = COUNTING(any_single_lock, any_single_unlock);
static struct ls_lock_ops any_atomic_table = COUNTING(any_atomic_lock, any_atomic_unlock);

/* futex, the default backend, whose verbs inline. */
static void futex_single_unlock(void *s) { count_unlock(ls_futex_inline_unlock_single, s); }
#ifdef LS_INLINE_CLAIM_NAME_OFF
/* With claims (x86-64): the tables lock with them, and keep the
 * statistics' holder word in the lock state. */
static __attribute__((noinline)) int futex_other(void *s, uintptr_t site, uint64_t seen,
                                                 uint64_t to)
{
	return claim_failed(ls_futex_inline_reclaim, ls_futex_inline_name, s, site, seen, to);
}
static void futex_atomic_unlock(void *s) { claim_unlock(ls_futex_inline_unclaim, s); }
static int futex_atomic_lock(void *s)
{
	return take_lock(ls_futex_inline_take, ls_futex_inline_name, s, SITE());
}
static int futex_single_lock(void *s)
{
	return claim_lock(ls_futex_inline_claim_single, futex_other, s, SITE());
}
#else
static int futex_atomic_lock(void *s) { return count_lock(ls_futex_inline_try, s, SITE()); }
static int futex_single_lock(void *s) { return count_lock(ls_futex_inline_try_single, s, SITE()); }
static void futex_atomic_unlock(void *s) { count_unlock(ls_futex_inline_unlock, s); }
#endif
static struct ls_lock_ops futex_single_table = COUNTING(futex_single_lock, futex_single_unlock);
static struct ls_lock_ops futex_atomic_table = COUNTING(futex_atomic_lock, futex_atomic_unlock);

/* slice:futex, the default backend, whose verbs inline too
 * (backends/inline_verbs.h): the futex lock's tries and claims at its lock
 * word, the take with the reservation's test, and an unlock that names
 * the caller without clearing the reservation. */
static void slice_single_unlock(void *s)
{
	count_unlock(ls_slice_futex_inline_unlock, s);
}
#ifdef LS_INLINE_CLAIM_NAME_OFF
static bool slice_claim_single(void *s, uint64_t mine, uint64_t *seen, uint64_t *to)
{
	return ls_futex_inline_claim_single(ls_slice_futex_inline_word(s), mine, seen, to);
}
static bool slice_reclaim(void *s, uint64_t *seen, uint64_t to)
{
	return ls_futex_inline_reclaim(ls_slice_futex_inline_word(s), seen, to);
}
static __attribute__((noinline)) int slice_other(void *s, uintptr_t site, uint64_t seen,
                                                 uint64_t to)
{
	return claim_failed(slice_reclaim, ls_slice_futex_inline_name, s, site, seen, to);
}
static void slice_unclaim(void *s, uint64_t mine)
{
	ls_slice_futex_inline_unclaim(s, (uint32_t)(mine >> 32));
}
static void slice_atomic_unlock(void *s) { claim_unlock(slice_unclaim, s); }
/* The take found a slice running: the caller keeps the lock if it owns
 * the slice (ls_slice_take_reserved), and is counted as after any take;
 * else it has let the lock go and waits through the blocked protocol.  Out
 * of line, so that the common path keeps no frame. */
static __attribute__((noinline)) int slice_reserved(void *s, uintptr_t site)
{
	if (ls_slice_futex_take_reserved(s) != 0)
		return ls_mutex_counted_blocked(s, site);
	return taken(ls_slice_futex_inline_name, s, site);
}
static int slice_atomic_lock(void *s)
{
	uintptr_t site = SITE();
	struct ls_slice_futex *l = s;
	if (UNLIKELY(!ls_stats_quick_take()))
		return ls_mutex_counted_declined(s, site);
	if (UNLIKELY(!ls_sf_take(&l->word)))
		return ls_mutex_counted_blocked(s, site);
	if (UNLIKELY(ls_sf_reserved(&l->word)))
		return slice_reserved(s, site);
	return taken(ls_slice_futex_inline_name, s, site);
}
static int slice_single_lock(void *s)
{
	return claim_lock(slice_claim_single, slice_other, s, SITE());
}
#else
static bool slice_try(void *s, int *found)
{
	*found = 0;
	return ls_slice_futex_inline_take(s);
}
static int slice_atomic_lock(void *s) { return count_lock(slice_try, s, SITE()); }
static int slice_single_lock(void *s) { return count_lock(slice_try, s, SITE()); }
static void slice_atomic_unlock(void *s) { count_unlock(ls_slice_futex_inline_unlock, s); }
#endif
static struct ls_lock_ops slice_single_table = COUNTING(slice_single_lock, slice_single_unlock);
static struct ls_lock_ops slice_atomic_table = COUNTING(slice_atomic_lock, slice_atomic_unlock);

const struct ls_lock_ops *ls_counting_table(const struct ls_lock_ops *b)
{
	if (ls_backend_is_passthrough(b))
		return NULL;
	if (b == &ls_backend_futex) {
#ifdef LS_INLINE_CLAIM_NAME_OFF
		/* The holder word moves into the lock state, for every
		 * mutex, before the gate publishes the table. */
		ls_mutex_holder_in_state(LS_INLINE_CLAIM_NAME_OFF);
#endif
		futex_atomic_table.single = b->single ? &futex_single_table : NULL;
		return &futex_atomic_table;
	}
	if (b == &ls_backend_slice_futex) {
#ifdef LS_INLINE_CLAIM_NAME_OFF
		ls_mutex_holder_in_state(LS_SLICE_FUTEX_NAME_OFF);
#endif
		slice_atomic_table.single = b->single ? &slice_single_table : NULL;
		return &slice_atomic_table;
	}
	atomic_ops = b;
	single_ops = b->single;
	any_atomic_table.single = b->single ? &any_single_table : NULL;
	return &any_atomic_table;
}
