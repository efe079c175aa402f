/*
 * gate.h - the one load of the entry points' fast path.
 *
 * ls_gate is the lock table that a normal or adaptive mutex goes straight
 * to.  NULL means closed: before ls_init(), under the "glibc" backend, and
 * with statistics on; every call then takes its entry point's slow path,
 * which serves every case (and, with statistics on, calls the hooks).  So
 * the statistics mode costs the fast path nothing: it is folded into the
 * test that the fast path makes anyway.
 *
 * Open, the gate is the backend's own table.
 */
#ifndef LS_INTERPOSE_GATE_H
#define LS_INTERPOSE_GATE_H

#include <stdatomic.h>

#include "../backends/backend.h"

extern const struct ls_lock_ops *_Atomic ls_gate;

static inline const struct ls_lock_ops *ls_gate_get(void)
{
	/* acquire: pairs with the release in ls_gate_open, so what ls_init
	 * prepared (backend, probed offsets) is visible. */
	return atomic_load_explicit(&ls_gate, memory_order_acquire);
}

/* Open the gate for backend b; called once, by the ls_init() that
 * published b, when b is native and statistics are off. */
void ls_gate_open(const struct ls_lock_ops *b);

#endif
