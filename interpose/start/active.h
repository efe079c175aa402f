/*
 * active.h - what start-up published (init.c's ls_init): the mutex and
 * rwlock backends, the statistics mode, and each thread's hold-sample
 * flag.
 *
 * Apart from init.h so that the counting tables' uncommon cases
 * (mutex_counted.c, rwlock_counted.c) can read them without reaching
 * start-up: start-up opens the gates to the counting tables, so the
 * tables must not depend on it.  They need no lazy initialisation either:
 * a counting table's verb runs only behind its open gate, and the gate
 * opens after the backends are published (init.c).  The entry points,
 * which can be the first call into the library, use init.h's ls_active().
 */
#ifndef LS_INTERPOSE_ACTIVE_H
#define LS_INTERPOSE_ACTIVE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "../../backends/backend.h"
#include "../../backends/rwlock.h"
#include "../../stats/hooks.h"

/* The mutex backend; NULL until ls_init() publishes it (release). */
extern const struct ls_lock_ops *_Atomic ls_active_backend;

/* The rwlock backend (LOCKSWAP_RWLOCK), stored by ls_rwlock_select
 * before the mutex backend's release store.  Hidden: read PC-relative by
 * the rwlock entry points, not through the GOT (-fPIC). */
extern const struct ls_rwlock_ops *_Atomic ls_rwlock_active __attribute__((visibility("hidden")));

/* The backends, for code that runs only behind an open gate (so after
 * ls_init() published them): no test for NULL, no initialisation. */
static inline const struct ls_lock_ops *ls_active_published(void)
{
	/* acquire: as ls_active()'s load (init.h). */
	return atomic_load_explicit(&ls_active_backend, memory_order_acquire);
}

static inline const struct ls_rwlock_ops *ls_rwlock_published(void)
{
	/* relaxed: the gate's acquire, which let the caller in, follows the
	 * store (rwlock_select.c). */
	return atomic_load_explicit(&ls_rwlock_active, memory_order_relaxed);
}

/* Statistics on (LOCKSWAP_STATS, read once by ls_init): the entry points'
 * slow paths call the hooks.  Read only behind a closed gate (gate.h),
 * after ls_active(). */
extern _Atomic unsigned ls_opt_stats;
static inline bool ls_observing(void)
{
	return atomic_load_explicit(&ls_opt_stats, memory_order_relaxed) != LS_STATS_OFF;
}

/* What the slow paths report to, set once by ls_init before it publishes
 * the backend: the statistics (LOCKSWAP_STATS) and the watch
 * (LOCKSWAP_DEADLOCK, LOCKSWAP_HANG_MS: stats/watch.h), a bit each, in one
 * word, so that a slow path that serves neither pays one load and one
 * test, as it did for the statistics alone.  Read, as ls_observing, only
 * behind a closed gate or a gate_only table (gate.h). */
enum { LS_HOOK_STATS = 1, LS_HOOK_WATCH = 2 };
extern _Atomic unsigned ls_hooks __attribute__((visibility("hidden")));
static inline bool ls_hooked(void)
{
	return atomic_load_explicit(&ls_hooks, memory_order_relaxed) != 0;
}
static inline bool ls_watching(void)
{
	return atomic_load_explicit(&ls_hooks, memory_order_relaxed) & LS_HOOK_WATCH;
}

/* Set when the statistics asked for the whole protocol (a hold sample
 * that starts before the try) on this thread's next lock, mutex or rwlock
 * (the answer of ls_stats_locked and ls_stats_lock_end). */
extern __thread bool ls_hold_due;

/* A counting table's verb (counting.c, rwlock_counting.c) declined
 * before its try: give back the countdown step it took (stats/quick.h);
 * if the countdown stopped at its end, this lock starts the hold sample
 * before its try. */
static inline void ls_counting_declined(void)
{
	ls_stats_quick_give_back();
	if (ls_stats_q.hold_left == 1)
		ls_hold_due = true;
}

#endif
