/*
 * wrapper.h - LS_BACKEND_WRAPPER: a backend `id:INNER` from a core/
 * wrapper algorithm (the capacitor, concurrency restriction) around any
 * native backend.
 *
 * A core/ wrapper drives its inner lock through a `struct ls_lockable`
 * (core/wrap/lockable.h).  For each native in LS_WRAPPABLE_NATIVES the macro
 * defines a table whose lockable is a compile-time constant: the wrapper's
 * inline verbs are inlined into it, and the calls through the lockable
 * become direct calls of the inner algorithm's inline verbs, so the
 * uncontended path of `capacitor:futex` is the capacitor's few
 * instructions around futex's own, with no indirect call.  Any other inner
 * lock (a native added to backends/list.h but not here) is served by a
 * generic table whose lockable is copied from the inner table in
 * compose(): correct, only slower.
 */
#ifndef LS_BACKENDS_WRAPPER_H
#define LS_BACKENDS_WRAPPER_H

#include <string.h>

#include "../core/mutex/futexlock.h"
#include "../core/mutex/mcs.h"
#include "../core/mutex/queued.h"
#include "../core/mutex/ticket.h"
#include "../core/mutex/tts.h"
#include "backend.h"

/* X(id, algo, ABOUT, DEFAULT_INNER, inner_id, inner_algo) for every native
 * a wrapper gets a constant-lockable table for: the backend's name and the
 * core/ algorithm behind it (its verbs are ls_<inner_algo>_*). */
#define LS_WRAPPABLE_NATIVES(X, id, algo, ABOUT, DEFAULT_INNER)                  \
	X(id, algo, ABOUT, DEFAULT_INNER, futex, futexlock)                      \
	X(id, algo, ABOUT, DEFAULT_INNER, tts, tts)                              \
	X(id, algo, ABOUT, DEFAULT_INNER, ticket, ticket)                        \
	X(id, algo, ABOUT, DEFAULT_INNER, mcs, mcs)                              \
	X(id, algo, ABOUT, DEFAULT_INNER, queued, queued)

/* The ops table DECL (a declarator) of wrapper `id`, serving its mutexes
 * through the lockable `in`; `table` prefixes its functions.  Every verb
 * passes the inner state, which follows the wrapper's 8-byte word. */
#define LS_WRAPPER_TABLE(DECL, table, id, algo, ABOUT, DEFAULT_INNER, in)                 \
	static int table##_lock(void *s) { return ls_##algo##_lock(s, (in), (char *)s + 8); } \
	static int table##_trylock(void *s)                                                \
	{                                                                                  \
		return ls_##algo##_trylock(s, (in), (char *)s + 8);                        \
	}                                                                                  \
	static int table##_timedlock(void *s, clockid_t c, const struct timespec *t)       \
	{                                                                                  \
		return ls_##algo##_timedlock(s, (in), (char *)s + 8, c, t);                \
	}                                                                                  \
	static void table##_unlock(void *s) { ls_##algo##_unlock(s, (in), (char *)s + 8); } \
	static void table##_unlock_to_wait(void *s)                                        \
	{                                                                                  \
		ls_##algo##_unlock_to_wait(s, (in), (char *)s + 8);                        \
	}                                                                                  \
	static bool table##_is_locked(void *s) { return (in)->is_locked((char *)s + 8); }   \
	static const struct ls_lock_ops *id##_compose(const struct ls_lock_ops *inner);     \
	DECL = {                                                                           \
		.name = #id,                                                               \
		.about = ABOUT,                                                            \
		.state_size = sizeof(struct ls_##algo),                                    \
		.lock = table##_lock,                                                      \
		.trylock = table##_trylock,                                                \
		.timedlock = table##_timedlock,                                            \
		.unlock = table##_unlock,                                                  \
		.unlock_to_wait = table##_unlock_to_wait,                                  \
		.is_locked = table##_is_locked,                                            \
		.compose = id##_compose,                                                   \
		.default_inner = DEFAULT_INNER,                                            \
	};

/* The inner verbs' adapters are always inlined into the wrapper's verbs
 * (GCC's size heuristics would otherwise keep some of them as calls);
 * their addresses fill the constant lockable. */
#define LS_WRAPPER_ADAPTER static inline __attribute__((always_inline))

/* One constant lockable over native inner_id, and the table using it. */
#define LS_WRAPPER_OVER(id, algo, ABOUT, DEFAULT_INNER, inner_id, inner_algo)              \
	LS_WRAPPER_ADAPTER int id##_##inner_id##_ilock(void *s) { return ls_##inner_algo##_lock(s); }   \
	LS_WRAPPER_ADAPTER int id##_##inner_id##_itrylock(void *s) { return ls_##inner_algo##_trylock(s); } \
	LS_WRAPPER_ADAPTER int id##_##inner_id##_itimedlock(void *s, clockid_t c, const struct timespec *t) \
	{                                                                                   \
		return ls_##inner_algo##_timedlock(s, c, t);                                \
	}                                                                                   \
	LS_WRAPPER_ADAPTER void id##_##inner_id##_iunlock(void *s) { ls_##inner_algo##_unlock(s); }     \
	LS_WRAPPER_ADAPTER bool id##_##inner_id##_iis_locked(void *s)                                   \
	{                                                                                   \
		return ls_##inner_algo##_is_locked(s);                                      \
	}                                                                                   \
	static const struct ls_lockable id##_##inner_id##_in = {                            \
		.lock = id##_##inner_id##_ilock,                                            \
		.trylock = id##_##inner_id##_itrylock,                                      \
		.timedlock = id##_##inner_id##_itimedlock,                                  \
		.unlock = id##_##inner_id##_iunlock,                                        \
		.is_locked = id##_##inner_id##_iis_locked,                                  \
	};                                                                                  \
	_Static_assert(sizeof(struct ls_##inner_algo) <= LS_LOCK_STATE_BYTES - 8,           \
	               #id ":" #inner_id " fits");                                          \
	LS_WRAPPER_TABLE(static const struct ls_lock_ops id##_##inner_id##_ops,             \
	                 id##_##inner_id, id, algo, ABOUT, DEFAULT_INNER,                    \
	                 &id##_##inner_id##_in)

#define LS_WRAPPER_PICK(id, algo, ABOUT, DEFAULT_INNER, inner_id, inner_algo)               \
	if (strcmp(inner->name, #inner_id) == 0)                                            \
		return &id##_##inner_id##_ops;

/*
 * LS_BACKEND_WRAPPER(id, algo, ABOUT, DEFAULT_INNER) defines
 * `ls_backend_<id>`, the wrapper `id:INNER`, for a core/ wrapper whose
 * verbs are ls_<algo>_{lock,trylock,timedlock,unlock}(state, inner
 * lockable, inner state[, clock, abstime]) on an 8-byte `struct ls_<algo>`.
 * `ls_backend_<id>` is the generic table (listed, and used for an inner
 * lock without a table of its own); compose() returns the inner lock's
 * own table where there is one.
 */
#define LS_BACKEND_WRAPPER(id, algo, ABOUT, DEFAULT_INNER)                                 \
	_Static_assert(sizeof(struct ls_##algo) == 8, #id " word");                         \
	static struct ls_lockable id##_inner; /* generic: copied once, in compose() */      \
	LS_WRAPPABLE_NATIVES(LS_WRAPPER_OVER, id, algo, ABOUT, DEFAULT_INNER)                \
	LS_WRAPPER_TABLE(const struct ls_lock_ops ls_backend_##id, id##_generic, id, algo,    \
	                 ABOUT, DEFAULT_INNER, &id##_inner)                                  \
	static const struct ls_lock_ops *id##_compose(const struct ls_lock_ops *inner)      \
	{                                                                                   \
		LS_WRAPPABLE_NATIVES(LS_WRAPPER_PICK, id, algo, ABOUT, DEFAULT_INNER)        \
		ls_lockable_from_ops(&id##_inner, inner);                                   \
		return &ls_backend_##id;                                                    \
	}

#endif
