/*
 * rwlock_select.h - the rwlock backend serving this process
 * (LOCKSWAP_RWLOCK), selected by ls_init() together with the mutex backend
 * and published by the same release store, so entry points read it after
 * ls_active().  Apart from the entry points (pthread_rwlock.c) so that start-up
 * (init.c), which selects, and the entry points, which call ls_active(),
 * do not depend on each other: the gate is defined here, the backend in
 * active.c, and both are declared hidden, so that the entry points read
 * them PC-relative as if they were their own.
 */
#ifndef LS_INTERPOSE_RWLOCK_SELECT_H
#define LS_INTERPOSE_RWLOCK_SELECT_H

#include <stdatomic.h>
#include <stdbool.h>

#include "../../backends/rwlock.h"
#include "active.h" /* ls_rwlock_active, the backend selected here */

/* The rwlock entry points' gate (the mutex's is gate.h): the backend that
 * serves a call at once; with statistics on, the counting table over it
 * (rwlock_counting.h), whose NULL verbs send their calls to the slow path;
 * or NULL - before ls_init(), and with statistics on over glibc's rwlocks
 * - for the slow path, which initialises and calls the statistics' hooks.
 * So with statistics off the entry points never test the mode. */
extern const struct ls_rwlock_ops *_Atomic ls_rwlock_gate __attribute__((visibility("hidden")));

/* Called once by the ls_init() that published the backends, when
 * statistics are off. */
void ls_rwlock_gate_open(void);

/* The same when statistics are on: the counting table, unless the rwlock
 * backend is glibc's (the gate stays closed). */
void ls_rwlock_gate_open_counting(void);

/* Called by ls_init(): options_ok false means a bad configuration, where
 * the whole program runs on glibc's own locks, rwlocks included. */
void ls_rwlock_select(bool options_ok);

#endif
