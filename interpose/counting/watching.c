/*
 * watching.c - the watching table (watching.h): what a plain mutex's
 * lock, trylock and unlock do while the watch is on and the statistics
 * off (LOCKSWAP_DEADLOCK, LOCKSWAP_HANG_MS; stats/watch.h), reached
 * straight from the entry points' fast path (the gate, gate.h), as the
 * counting table (counting.c) is with statistics on.
 *
 * lock: if the thread's record holds no lock (its count, one load through
 * the thread's pointer to it), try the backend; if that got the mutex,
 * write it into the record's first entry with the call site and return.
 * The verb is reached by a jump from pthread_mutex_lock, so its return
 * address is the program's call site.  Every other case goes, by a jump,
 * to the slow path's body with the watch's hooks (mutex_watch.h): a thread
 * without a record yet (its pointer names the shared empty record, whose
 * count is never 0), a thread that holds a lock (the lock-order edge is
 * added before anything can block), a try that failed (the wait is told to
 * the watchdog while it lasts).
 *
 * unlock: if the mutex is the only lock the record holds, the record is
 * emptied (one store); otherwise the general release; then the backend's
 * unlock.  The release is recorded first: under ces the backend's unlock
 * runs the next waiters' sections before it returns, and they must not
 * find this thread still listed as the holder.
 *
 * trylock: the backend's, and on success the general acquisition (a try
 * adds no lock-order edge).
 *
 * Over futex and slice:futex the try and unlock are the inline verbs
 * (backends/inline_verbs.h: no call, no frame in the common case); over
 * any other backend, its table's verbs.  There is no single-threaded table: the
 * watch is a debugging and profiling mode.  The mutex's lock state is at
 * offset 0 of the mutex (mutex_layout.h), so the state pointer is the mutex.
 */
#include "watching.h"

#include "../../backends/inline_verbs.h"
#include "../entry/entry.h"
#include "../entry/mutex_layout.h"
#include "../entry/mutex_watch.h"

/* Bound once by ls_watching_table, before the gate's release store. */
static const struct ls_lock_ops *bound;

#define SITE() ((uintptr_t)__builtin_return_address(0))

/* The uncommon cases, out of line (noinline: the verbs keep no frame).
 * They run only behind an open gate: the backend is published. */
static __attribute__((noinline)) int watched_other(void *s, uintptr_t site)
{
	return watched_lock(s, ls_active_published(), site, &(struct blocking){ 0 });
}

static __attribute__((noinline)) int watched_blocked(void *s, uintptr_t site)
{
	const struct ls_lock_ops *b = ls_active_published();
	int e = block_for(s, b, ls_mutex_kind(ls_mutex_of(s)), &(struct blocking){ 0 }, site);
	if (e == 0)
		ls_watch_acquired(ls_watch_me, (uintptr_t)s, site);
	return e;
}

static __attribute__((noinline)) int watched_tried(void *s, uintptr_t site, int e)
{
	if (e == 0)
		ls_watch_acquired(ls_watch_self(), (uintptr_t)s, site);
	return e;
}

static inline __attribute__((always_inline)) int watch_lock(bool (*try)(void *), void *s,
                                                            uintptr_t site)
{
	struct ls_watch_thread *t = ls_watch_me;
	if (UNLIKELY(atomic_load_explicit(&t->n, memory_order_relaxed) != 0))
		return watched_other(s, site);
	if (UNLIKELY(!try(s)))
		return watched_blocked(s, site);
	ls_watch_first(t, (uintptr_t)s, site);
	return 0;
}

/* `other`: the general release, then the unlock, out of line, so that the
 * common case keeps nothing across a call. */
static inline __attribute__((always_inline)) void watch_unlock(void (*unlock)(void *),
                                                               void (*other)(void *), void *s)
{
	if (UNLIKELY(!ls_watch_release_only(ls_watch_me, (uintptr_t)s)))
		return other(s);
	unlock(s);
}

#define WATCHING(LOCK, TRYLOCK, UNLOCK)                                                         \
	{ .name = "watching", .lock = LOCK, .trylock = TRYLOCK, .unlock = UNLOCK, .gate_only = true }

/* Any backend: its verbs through the table bound at start-up. */
static bool any_try(void *s) { return bound->trylock(s) == 0; }
static void any_unlock(void *s) { bound->unlock(s); }
/* As watch_lock, written so that nothing but the mutex is kept across the
 * call: the record and the call site are read again after it. */
static int any_lock_verb(void *s)
{
	if (UNLIKELY(atomic_load_explicit(&ls_watch_me->n, memory_order_relaxed) != 0))
		return watched_other(s, SITE());
	if (UNLIKELY(!any_try(s)))
		return watched_blocked(s, SITE());
	ls_watch_first(ls_watch_me, (uintptr_t)s, SITE());
	return 0;
}
static int any_trylock_verb(void *s) { return watched_tried(s, SITE(), bound->trylock(s)); }
static __attribute__((noinline)) void any_release(void *s)
{
	ls_watch_released(ls_watch_me, (uintptr_t)s);
	bound->unlock(s);
}
static void any_unlock_verb(void *s) { watch_unlock(any_unlock, any_release, s); }
static const struct ls_lock_ops any_table = WATCHING(any_lock_verb, any_trylock_verb,
                                                     any_unlock_verb);

/* futex, whose verbs inline. */
static bool futex_try(void *s) { return ls_futexlock_trylock(s) == 0; }
static void futex_unlock(void *s) { ls_futexlock_unlock(s); }
static int futex_lock_verb(void *s) { return watch_lock(futex_try, s, SITE()); }
static int futex_trylock_verb(void *s)
{
	return watched_tried(s, SITE(), ls_futexlock_trylock(s));
}
static __attribute__((noinline)) void futex_release(void *s)
{
	ls_watch_released(ls_watch_me, (uintptr_t)s);
	ls_futexlock_unlock(s);
}
static void futex_unlock_verb(void *s) { watch_unlock(futex_unlock, futex_release, s); }
static const struct ls_lock_ops futex_table = WATCHING(futex_lock_verb, futex_trylock_verb,
                                                       futex_unlock_verb);

/* slice:futex, the default, whose verbs inline too: the take with the
 * reservation's test, as the counting table's (counting.c), so that a
 * lock call queues behind a slice it does not own rather than taking the
 * lock as a trylock may. */
static __attribute__((noinline)) int slice_reserved(void *s, uintptr_t site)
{
	/* A slice runs: the caller keeps the lock if the slice is its own;
	 * else it has let the lock go and waits as any blocked call does. */
	if (ls_slice_futex_take_reserved(s) != 0)
		return watched_blocked(s, site);
	ls_watch_first(ls_watch_me, (uintptr_t)s, site);
	return 0;
}
static int slice_lock_verb(void *s)
{
	struct ls_watch_thread *t = ls_watch_me;
	_Atomic uint32_t *w = &((struct ls_slice_futex *)s)->word;
	if (UNLIKELY(atomic_load_explicit(&t->n, memory_order_relaxed) != 0))
		return watched_other(s, SITE());
	if (UNLIKELY(!ls_sf_take(w)))
		return watched_blocked(s, SITE());
	if (UNLIKELY(ls_sf_reserved(w)))
		return slice_reserved(s, SITE());
	ls_watch_first(t, (uintptr_t)s, SITE());
	return 0;
}
static int slice_trylock_verb(void *s)
{
	return watched_tried(s, SITE(), ls_slice_futex_trylock(s));
}
static void slice_unlock(void *s) { ls_slice_futex_unlock(s); }
static __attribute__((noinline)) void slice_release(void *s)
{
	ls_watch_released(ls_watch_me, (uintptr_t)s);
	ls_slice_futex_unlock(s);
}
static void slice_unlock_verb(void *s) { watch_unlock(slice_unlock, slice_release, s); }
static const struct ls_lock_ops slice_table = WATCHING(slice_lock_verb, slice_trylock_verb,
                                                       slice_unlock_verb);

const struct ls_lock_ops *ls_watching_table(const struct ls_lock_ops *b)
{
	if (b == &ls_backend_futex)
		return &futex_table;
	if (b == &ls_backend_slice_futex)
		return &slice_table;
	bound = b;
	return &any_table;
}
