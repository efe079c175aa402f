/*
 * lock_harness.h - checks every backend must pass, written once against
 * struct ls_lock_ops (backends/backend.h).  test_backends.c runs them for
 * every name the table lists, so a new backend is covered by adding it to
 * backends/list.h.  Assertions use cmocka; the callers are cmocka tests.
 */
#ifndef LS_TEST_LOCK_HARNESS_H
#define LS_TEST_LOCK_HARNESS_H

#include "../../backends/backend.h"

/* `threads` threads x `iters` acquisitions (lock, trylock, timedlock mixed)
 * of one lock guarding a plain counter: no update may be lost. */
void lh_mutual_exclusion(const struct ls_lock_ops *ops, int threads, long iters);

/* trylock EBUSY / 0, timedlock ETIMEDOUT on both clocks, expired and
 * negative deadlines, is_locked, timedlock success when released. */
void lh_try_and_timed(const struct ls_lock_ops *ops);

/* Timed-out waiters leave cleanly: many waiters time out while the lock is
 * held, then a plain waiter must still get it at release. */
void lh_timeouts_leave_cleanly(const struct ls_lock_ops *ops);

/* fork while the forking thread holds the lock and other threads wait on
 * it: the child can release and re-take it (no hand-off to a ghost). */
void lh_fork_child(const struct ls_lock_ops *ops);

#endif
