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
 * Open, the gate is the backend's own table, or, while the process has one
 * thread and the backend has plain verbs (backend.h: lock_plain,
 * unlock_plain), a table whose lock, trylock and unlock use them: no locked
 * instruction while nobody else can look.  glibc's __libc_single_threaded
 * says when: set at start, cleared by pthread_create before the new thread
 * exists (also for threads created by dlopen()ed code and by glibc itself),
 * never set again in glibc 2.36, not even in a fork child of a threaded
 * parent (checked by tests/preload/single.c).  The single-threaded verbs
 * read it on every call, so correctness never depends on when the gate
 * moves: the first call that finds a second thread moves the gate to the
 * backend's table, and later calls pay nothing for the shortcut.  The plain
 * verbs leave exactly the state the atomic ones would, so a lock taken
 * plainly and held while the second thread starts is held, and released
 * atomically, like any other.
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

/* Fork child: one thread again, if glibc says so. */
void ls_gate_after_fork(void);

#endif
