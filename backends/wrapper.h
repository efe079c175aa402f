/*
 * wrapper.h - the backend `WRAPPER:INNER` from a core/ wrapper algorithm
 * (capacitor, restrict, slice) and an inner backend.
 *
 * State: the wrapper's 8-byte word first, the inner lock's state after it
 * (ls_wrapper_inner_state).  A core/ wrapper drives its inner lock through
 * a `struct ls_lockable` (core/wrap/lockable.h).
 *
 * Each backends/<wrapper>.c writes out, one line each, the compositions it
 * serves:
 *   LS_WRAPPER_OVER(capacitor_over_futex, capacitor, futexlock, ABOUT, capacitor_compose,
 *                   DEFAULT_INNER)
 *       the table `capacitor_over_futex`, whose verbs are named
 *       capacitor_over_futex_lock, _trylock, ... (what a profile shows):
 *       its lockable is a compile-time constant over the inner algorithm's
 *       inline verbs (ls_futexlock_*), so they are inlined into the
 *       wrapper's and the uncontended path of `capacitor:futex` is the
 *       capacitor's few instructions around futex's own, with no indirect
 *       call;
 *   LS_WRAPPER_ANY(ls_backend_capacitor, capacitor, ABOUT, capacitor_compose, DEFAULT_INNER)
 *       the listed table, serving any other inner lock (a native added to
 *       backends/list.h without a line of its own here) through a
 *       lockable copied from the inner table in compose(): correct, only
 *       slower;
 * then its compose(), which picks among them with ls_wrapper_pick().
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

/* The wrapper's word; the inner lock's state follows it. */
#define LS_WRAPPER_WORD_BYTES 8

static inline void *ls_wrapper_inner_state(void *s)
{
	return (char *)s + LS_WRAPPER_WORD_BYTES;
}

/* The verbs table_lock, _trylock, _timedlock, _unlock, _unlock_to_wait,
 * _is_locked of wrapper algorithm `wrap` over the lockable `in`, and the
 * ops table DECL (a declarator) that holds them; `compose_fn` is the
 * wrapper's compose(), and `<wrap>_settings` (defined before) its
 * LOCKSWAP_* settings.  Used by LS_WRAPPER_OVER and LS_WRAPPER_ANY. */
#define LS_WRAPPER_TABLE(DECL, table, wrap, in, ABOUT, compose_fn, DEFAULT_INNER)               \
	static int table##_lock(void *s)                                                        \
	{                                                                                       \
		return ls_##wrap##_lock(s, (in), ls_wrapper_inner_state(s));                    \
	}                                                                                       \
	static int table##_trylock(void *s)                                                     \
	{                                                                                       \
		return ls_##wrap##_trylock(s, (in), ls_wrapper_inner_state(s));                 \
	}                                                                                       \
	static int table##_timedlock(void *s, clockid_t c, const struct timespec *t)            \
	{                                                                                       \
		return ls_##wrap##_timedlock(s, (in), ls_wrapper_inner_state(s), c, t);         \
	}                                                                                       \
	static void table##_unlock(void *s)                                                     \
	{                                                                                       \
		ls_##wrap##_unlock(s, (in), ls_wrapper_inner_state(s));                         \
	}                                                                                       \
	static void table##_unlock_to_wait(void *s)                                             \
	{                                                                                       \
		ls_##wrap##_unlock_to_wait(s, (in), ls_wrapper_inner_state(s));                 \
	}                                                                                       \
	static bool table##_is_locked(void *s)                                                  \
	{                                                                                       \
		return (in)->is_locked(ls_wrapper_inner_state(s));                              \
	}                                                                                       \
	_Static_assert(sizeof(struct ls_##wrap) == LS_WRAPPER_WORD_BYTES, #wrap " word");       \
	static const struct ls_lock_ops *compose_fn(const struct ls_lock_ops *inner);           \
	DECL = {                                                                                \
		.name = #wrap,                                                                  \
		.about = ABOUT,                                                                 \
		.state_size = LS_WRAPPER_WORD_BYTES,                                            \
		.lock = table##_lock,                                                           \
		.trylock = table##_trylock,                                                     \
		.timedlock = table##_timedlock,                                                 \
		.unlock = table##_unlock,                                                       \
		.unlock_to_wait = table##_unlock_to_wait,                                       \
		.is_locked = table##_is_locked,                                                 \
		.compose = compose_fn,                                                          \
		.default_inner = DEFAULT_INNER,                                                 \
		.settings = wrap##_settings,                                                    \
	}

/* The inner verbs' adapters are always inlined into the wrapper's verbs
 * (GCC's size heuristics would otherwise keep some of them as calls);
 * their addresses fill the constant lockable table##_in. */
#define LS_WRAPPER_ADAPTER static inline __attribute__((always_inline))

/* The table `table`: wrapper algorithm `wrap` over the native whose core/
 * verbs are ls_<inner>_*, through the constant lockable `table##_in`. */
#define LS_WRAPPER_OVER(table, wrap, inner, ABOUT, compose_fn, DEFAULT_INNER)                   \
	LS_WRAPPER_ADAPTER int table##_in_lock(void *s) { return ls_##inner##_lock(s); }        \
	LS_WRAPPER_ADAPTER int table##_in_trylock(void *s) { return ls_##inner##_trylock(s); }  \
	LS_WRAPPER_ADAPTER int table##_in_timedlock(void *s, clockid_t c, const struct timespec *t) \
	{                                                                                       \
		return ls_##inner##_timedlock(s, c, t);                                         \
	}                                                                                       \
	LS_WRAPPER_ADAPTER void table##_in_unlock(void *s) { ls_##inner##_unlock(s); }          \
	LS_WRAPPER_ADAPTER bool table##_in_is_locked(void *s) { return ls_##inner##_is_locked(s); } \
	static const struct ls_lockable table##_in = {                                          \
		.lock = table##_in_lock,                                                        \
		.trylock = table##_in_trylock,                                                  \
		.timedlock = table##_in_timedlock,                                              \
		.unlock = table##_in_unlock,                                                    \
		.is_locked = table##_in_is_locked,                                              \
	};                                                                                      \
	_Static_assert(sizeof(struct ls_##inner) <= LS_LOCK_STATE_BYTES - LS_WRAPPER_WORD_BYTES, \
	               #table " fits");                                                         \
	LS_WRAPPER_TABLE(static const struct ls_lock_ops table, table, wrap, &table##_in,       \
	                 ABOUT, compose_fn, DEFAULT_INNER)

/* The listed table `table` of wrapper algorithm `wrap` over any inner
 * lock, through the lockable `table##_in` that compose() copies once from
 * the inner table (ls_wrapper_pick). */
#define LS_WRAPPER_ANY(table, wrap, ABOUT, compose_fn, DEFAULT_INNER)                           \
	static struct ls_lockable table##_in;                                                   \
	LS_WRAPPER_TABLE(const struct ls_lock_ops table, table, wrap, &table##_in, ABOUT,       \
	                 compose_fn, DEFAULT_INNER)

/* One composition a wrapper has a table of its own for. */
struct ls_wrapper_over {
	const char *inner; /* the inner backend's name */
	const struct ls_lock_ops *ops;
};

/* compose()'s choice: the table over `inner` among over[0..n), else
 * `any`, its lockable `any_in` then copied from `inner`.  Called once per
 * process, at selection, before any lock operation. */
static inline const struct ls_lock_ops *ls_wrapper_pick(const struct ls_wrapper_over *over, size_t n,
                                                        const struct ls_lock_ops *inner,
                                                        const struct ls_lock_ops *any,
                                                        struct ls_lockable *any_in)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(inner->name, over[i].inner) == 0)
			return over[i].ops;
	ls_lockable_from_ops(any_in, inner);
	return any;
}

#endif
