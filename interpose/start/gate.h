/*
 * gate.h - the one load of the entry points' fast path.
 *
 * ls_gate is the lock table that a normal or adaptive mutex goes straight
 * to.  NULL means closed: before ls_init(), and with statistics on under
 * the "glibc" backend; every call then takes its entry point's slow path,
 * which serves every case (and, with statistics on, calls the hooks).
 *
 * With statistics on under a lockswap backend the gate holds the
 * statistics' counting table (counting.h): its lock counts an uncontended
 * acquisition inline and hands every other case to the slow path's
 * protocol.  The entry points that have no verb in the table (timed
 * locks, init, destroy, condvar waits) then must still see the statistics:
 * they test ls_gate_watch, one load as the gate test was, and the condvar
 * signal/broadcast shortcut tests the table's gate_only flag (one compare,
 * as the glibc table's address was).  So statistics off still costs the
 * entry points nothing: the mode is folded into tests they make anyway.
 *
 * With the watch on (LOCKSWAP_DEADLOCK, LOCKSWAP_HANG_MS: stats/watch.h)
 * and statistics off, the gate holds the watching table (watching.h),
 * which records a thread's held locks inline and sends nesting and
 * contention to the slow path; ls_gate_watch stays set, as with
 * statistics on.  With both on the gate stays closed.
 *
 * Under the "glibc" backend it is ls_gate_glibc, whose verbs are glibc's
 * own mutex functions (the condvar entry points must not take their native
 * shortcut then: ls_gate_native).  Otherwise, open, the gate is the
 * backend's own table, or, while the process has one
 * thread, the backend's `single` table (backends/backend.h), whose lock,
 * trylock and unlock use plain loads and stores: no locked instruction
 * while nobody else can look.  Those verbs check glibc's
 * __libc_single_threaded on every call (core/runtime/single.h), so correctness
 * never depends on when the gate moves; the first one that finds a second
 * thread moves the gate to the backend's table, and later calls pay
 * nothing for the shortcut.  The plain verbs leave exactly the state the
 * atomic ones would, so a lock taken plainly and held while the second
 * thread starts is held, and released atomically, like any other.  The
 * gate itself is core/runtime/single.h's ls_single_gate, the word those verbs
 * move.
 */
#ifndef LS_INTERPOSE_GATE_H
#define LS_INTERPOSE_GATE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "../../backends/backend.h"
#include "../../core/runtime/single.h"

static inline const struct ls_lock_ops *ls_gate_get(void)
{
	/* acquire: pairs with the release in ls_gate_open, so what ls_init
	 * prepared (backend, probed offsets) is visible. */
	return atomic_load_explicit(&ls_single_gate, memory_order_acquire);
}

extern const struct ls_lock_ops ls_gate_glibc;

/* The gate is open on a native backend and statistics are off (lockswap's
 * condvar serves, with nothing to record). */
static inline bool ls_gate_native(const struct ls_lock_ops *g)
{
	return g != NULL && !g->gate_only;
}

/* True until the gate opens with statistics off: the statistics may be
 * on, so an entry point without a verb in the gate's table asks
 * ls_active() and ls_observing().  Acquire: pairs with the release in
 * ls_gate_open, as the gate's own load does. */
extern _Atomic bool ls_gate_watch;
static inline bool ls_gate_watched(void)
{
	return atomic_load_explicit(&ls_gate_watch, memory_order_acquire);
}

/* Open the gate for backend b (pass-through included); called once, by
 * the ls_init() that published b, when statistics are off. */
void ls_gate_open(const struct ls_lock_ops *b);

/* Statistics on: open the gate to the counting table over b, unless b is
 * pass-through (the gate stays closed).  Called once, by that ls_init(). */
void ls_gate_open_counting(const struct ls_lock_ops *b);

/* The watch on, statistics off (stats/watch.h): open the gate to the
 * watching table over b (watching.h), pass-through included.  With both
 * on, the gate stays closed: the slow paths serve both.  Called once, by
 * that ls_init(). */
void ls_gate_open_watching(const struct ls_lock_ops *b);

/* Fork child: one thread again, if glibc says so. */
void ls_gate_after_fork(void);

#endif
