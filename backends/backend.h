/*
 * backend.h - a lock backend is a const table of operations on the lock
 * state that lives in place inside each pthread_mutex_t.
 *
 * The interposer (interpose/entry/mutex.c) owns everything pthread-specific:
 * mutex kinds, owners, recursion, error codes, statistics.  A backend only
 * provides a mutual-exclusion lock over LS_LOCK_STATE_BYTES bytes whose
 * all-zero value means "unlocked" (static initializers never call init).
 *
 * Verbs (same for every backend; callers guarantee the preconditions):
 *   lock(s)                      -> 0
 *   trylock(s)                   -> 0 or EBUSY, never blocks
 *   timedlock(s, clock, abstime) -> 0 or ETIMEDOUT.  clock is
 *        CLOCK_REALTIME or CLOCK_MONOTONIC, abstime already validated
 *        (tv_nsec in range; tv_sec may be negative = already expired).
 *   unlock(s)                    called by the holder only
 *   is_locked(s)                 racy snapshot, for destroy's EBUSY
 *   lock_plain(s), unlock_plain(s)   optional (NULL = none): the same
 *        transitions with plain loads and stores, for a process with one
 *        thread.  They leave exactly the state lock() and unlock() would,
 *        or return false and change nothing (the caller then uses the
 *        atomic verb): a lock taken plainly must be held for the atomic
 *        verbs once a second thread exists.
 *   single                optional: the same lock as a table whose lock,
 *        trylock and unlock use the plain verbs while the process has one
 *        thread (core/runtime/single.h) and the atomic ones otherwise; what the
 *        interposer's fast path calls during the single-threaded phase.
 *
 * A wrapper backend (capacitor, restrict, slice) holds an inner lock in the
 * upper part of its state; compose(inner) is called once at selection, before any lock
 * operation, and gives the table for that composition (backends/wrapper.h).
 * ls_backend_select() rejects inner locks whose state does not fit.
 *
 * The "glibc" entry has no operations: it marks pass-through, and the
 * interposer forwards every call to glibc's own functions.
 */
#ifndef LS_BACKENDS_BACKEND_H
#define LS_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "../core/condvar/morph.h"
#include "../core/wrap/lockable.h"
#include "../core/runtime/single.h"
#include "setting.h"

#define LS_LOCK_STATE_BYTES 16

/* LOCKSWAP_BACKEND's default (a name in list.h, or a wrapper over one):
 * lock slices over the futex lock, chosen by the matrix of
 * scripts/default-matrix.sh (docs/results.md, "The default"). */
#define LS_BACKEND_DEFAULT "slice:futex"

struct ls_lock_ops {
	const char *name;
	const char *about;     /* one line: fairness claim and waiting policy */
	/* Optional: the algorithm's LOCKSWAP_* settings, ending with
	 * LS_SETTINGS_END (setting.h), declared in the backend's own file;
	 * the shim lists them in the backend list's order. */
	const struct ls_option *settings;
	size_t state_size;     /* bytes used, <= LS_LOCK_STATE_BYTES */
	int (*lock)(void *s);
	int (*trylock)(void *s);
	int (*timedlock)(void *s, clockid_t clock, const struct timespec *abstime);
	void (*unlock)(void *s);
	/* Optional (NULL = unlock): the holder's unlock before it blocks (a
	 * condvar wait).  A lock that keeps something for its holder across
	 * an unlock (a slice, core/wrap/slice.h) gives it up here, since the
	 * holder will not come back soon. */
	void (*unlock_to_wait)(void *s);
	/* Optional (NULL = lock): lock, for a caller whose own trylock has
	 * just failed.  The statistics' observed lock tries first, to tell an
	 * uncontended acquisition from a contended one, and then blocks with
	 * this verb: a lock whose `lock` starts with the same try goes
	 * straight to waiting here, since a second atomic write right after
	 * the failed one takes the lock's cache line from its holder once more
	 * (MutexBench on 2 vCPUs, summary mode over statistics off: 0.74 ->
	 * 0.87 at 8 threads, 0.66 -> 0.75 at 2; docs/stats.md). */
	int (*lock_after_try)(void *s);
	bool (*is_locked)(void *s);
	/* Optional (NULL = none): the lock's park word, for a condvar signal
	 * from its holder to move a waiter there rather than wake it
	 * (core/condvar/morph.h).  A backend with it tells the hint from every
	 * verb that takes or releases the lock (ls_cv_took, ls_cv_released). */
	const struct ls_cv_morph *morph;
	bool (*lock_plain)(void *s);
	bool (*unlock_plain)(void *s);
	const struct ls_lock_ops *single;
	/* Optional: called by ls_backend_select() before the backend is
	 * chosen (and again whenever it is selected); false refuses the
	 * backend on this machine or in this process, with a one-line reason
	 * in err (the delegation lock needs x86-64 and no rseq area). */
	bool (*prepare)(char *err, size_t errlen);
	/* Optional (0 = none): the hang watchdog's limit in milliseconds
	 * while LOCKSWAP_HANG_MS is auto and LOCKSWAP_DEADLOCK off, for a
	 * backend whose way of failing is a hang (ces: a delegated section
	 * that waits for its releaser; docs/deadlock.md). */
	unsigned hang_ms_default;
	/* Set only in the tables that interpose/start/gate.h alone puts in the
	 * gate (glibc pass-through, the statistics' counting table): with
	 * one of those in the gate the condvar entry points must not take
	 * their native shortcut.  Backends leave it false. */
	bool gate_only;
	/* Wrappers only.  The inner lock's state must fit in what the wrapper
	 * leaves free (checked generically: state_size + inner->state_size <=
	 * LS_LOCK_STATE_BYTES).  compose() binds the inner lock and returns
	 * the table that serves the composition (backends/wrapper.h); it is
	 * called once, by ls_backend_select(), before any lock operation. */
	const struct ls_lock_ops *(*compose)(const struct ls_lock_ops *inner);
	const char *default_inner; /* used when the name has no ":INNER" */
};

/*
 * LS_SINGLE_TABLE(id, ABOUT) defines `id##_single`, the `single` table of
 * backend id, from its functions id##_lock, _trylock, _unlock, _lock_plain,
 * _unlock_plain: while the process has one thread the plain verbs, else
 * (or when they decline) the atomic ones, after telling core/runtime/single.h.
 */
#define LS_SINGLE_TABLE(id, ABOUT)                                                     \
	static int id##_lock_single(void *s)                                            \
	{                                                                                 \
		if (__builtin_expect(ls_single_threaded(), 1) && id##_lock_plain(s))      \
			return 0;                                                         \
		ls_single_over();                                                         \
		return id##_lock(s);                                                      \
	}                                                                                 \
	static int id##_trylock_single(void *s)                                         \
	{                                                                                 \
		if (__builtin_expect(ls_single_threaded(), 1) && id##_lock_plain(s))      \
			return 0;                                                         \
		ls_single_over();                                                         \
		return id##_trylock(s);                                                   \
	}                                                                                 \
	static void id##_unlock_single(void *s)                                         \
	{                                                                                 \
		if (__builtin_expect(ls_single_threaded(), 1) && id##_unlock_plain(s))    \
			return;                                                           \
		ls_single_over();                                                         \
		id##_unlock(s);                                                           \
	}                                                                                 \
	static const struct ls_lock_ops id##_single = {                                 \
		.name = #id,                                                              \
		.about = ABOUT,                                                           \
		.lock = id##_lock_single,                                               \
		.trylock = id##_trylock_single,                                         \
		.unlock = id##_unlock_single,                                           \
	}

/*
 * LS_BACKEND_FROM_CORE(id, algo, ABOUT) defines `ls_backend_<id>`, listed
 * as "id", for a core/ lock whose verbs are ls_<algo>_{lock,trylock,
 * timedlock,unlock,is_locked,lock_plain,unlock_plain} on `struct ls_<algo>`: the ops take `void *`
 * state, so each verb gets a one-line adapter.  Wrappers and delegation
 * backends, whose ops do more than forward, are written out by hand.
 * LS_BACKEND_FROM_CORE_SLOW also gives the table a lock_after_try, the
 * algorithm's ls_<algo>_lock_slow(l, clock, NULL): its lock without the
 * first try, which must be correct from any state (the state can change
 * between a failed try and the slow path anyway).  LS_BACKEND_FROM_CORE_WITH
 * is both's body; its last arguments are more designated initializers of
 * the table (`.settings = ...`).
 */
#define LS_BACKEND_FROM_CORE(id, algo, ABOUT) \
	LS_BACKEND_FROM_CORE_WITH(id, algo, ABOUT, .lock_after_try = NULL)
#define LS_BACKEND_FROM_CORE_SLOW(id, algo, ABOUT)                                       \
	static int id##_lock_after_try(void *s)                                         \
	{                                                                                 \
		return ls_##algo##_lock_slow(s, CLOCK_MONOTONIC, NULL);                   \
	}                                                                                 \
	LS_BACKEND_FROM_CORE_WITH(id, algo, ABOUT, .lock_after_try = id##_lock_after_try)
#define LS_BACKEND_FROM_CORE_WITH(id, algo, ABOUT, ...)                                \
	_Static_assert(sizeof(struct ls_##algo) <= LS_LOCK_STATE_BYTES, #id " state fits"); \
	static int id##_lock(void *s) { return ls_##algo##_lock(s); }                   \
	static int id##_trylock(void *s) { return ls_##algo##_trylock(s); }             \
	static int id##_timedlock(void *s, clockid_t c, const struct timespec *t)       \
	{                                                                                 \
		return ls_##algo##_timedlock(s, c, t);                                    \
	}                                                                                 \
	static void id##_unlock(void *s) { ls_##algo##_unlock(s); }                     \
	static bool id##_is_locked(void *s) { return ls_##algo##_is_locked(s); }        \
	static bool id##_lock_plain(void *s) { return ls_##algo##_lock_plain(s); }      \
	static bool id##_unlock_plain(void *s) { return ls_##algo##_unlock_plain(s); }  \
	LS_SINGLE_TABLE(id, ABOUT);                                                      \
	const struct ls_lock_ops ls_backend_##id = {                                    \
		.name = #id,                                                              \
		.about = ABOUT,                                                           \
		.state_size = sizeof(struct ls_##algo),                                   \
		.lock = id##_lock,                                                      \
		.trylock = id##_trylock,                                                \
		.timedlock = id##_timedlock,                                            \
		.unlock = id##_unlock,                                                  \
		.is_locked = id##_is_locked,                                            \
		.lock_plain = id##_lock_plain,                                          \
		.unlock_plain = id##_unlock_plain,                                      \
		.single = &id##_single,                                                 \
		__VA_ARGS__,                                                              \
	}

/* A wrapper's view of its inner backend (core/wrap/lockable.h).  Copied once,
 * in compose(): core/ wrappers never see the backend table. */
static inline void ls_lockable_from_ops(struct ls_lockable *to, const struct ls_lock_ops *from)
{
	to->lock = from->lock;
	to->trylock = from->trylock;
	to->timedlock = from->timedlock;
	to->unlock = from->unlock;
	to->is_locked = from->is_locked;
}

/* The table, in listing order; ends with NULL. */
extern const struct ls_lock_ops *const ls_backends[];

/* Pass-through marker (the "glibc" entry). */
static inline bool ls_backend_is_passthrough(const struct ls_lock_ops *b)
{
	return b->lock == NULL;
}

/* Look up "name" or "wrapper:inner".  On success returns the ops (for a
 * wrapper, after compose() bound the inner lock); on failure returns NULL and
 * writes a one-line reason (no trailing newline) into err. */
const struct ls_lock_ops *ls_backend_select(const char *name, char *err, size_t errlen);

/* While true (this thread only), ls_backend_select() checks names and
 * compositions but calls no backend's prepare(): what lockswap_check_option
 * does for the CLI, which checks the settings of a program it will start
 * under another environment (interpose/options/describe.c). */
extern __thread bool ls_backend_names_only;

/* Whether every part of "name" or "wrapper:inner" is a listed backend
 * name, whether or not the two compose: an unknown one is a typo worth a
 * did-you-mean (interpose/options/option_hints.h). */
bool ls_backend_name_known(const char *name);

/* Enumerate every selectable name, including each wrapper around each inner
 * lock that fits ("capacitor:futex"): calls fn(name, about, arg), where
 * about is the backend's line (for a wrapper, the wrapper's). */
void ls_backend_each(void (*fn)(const char *name, const char *about, void *arg), void *arg);

/* The name that says which lock really runs: a wrapper given without
 * ":INNER" gets its default inner lock spelt out ("capacitor" ->
 * "capacitor:tts"); any other name is copied as given.  Writes at most len
 * bytes (always terminated); returns out. */
char *ls_backend_full_name(const char *name, char *out, size_t len);

#endif
