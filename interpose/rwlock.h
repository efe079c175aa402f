/*
 * rwlock.h - the rwlock backend serving this process (LOCKSWAP_RWLOCK),
 * selected by ls_init() together with the mutex backend and published by
 * the same release store, so entry points read it after ls_active().
 */
#ifndef LS_INTERPOSE_RWLOCK_H
#define LS_INTERPOSE_RWLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

#include "../backends/rwlock.h"

extern const struct ls_rwlock_ops *_Atomic ls_rwlock_active;

/* Called by ls_init(): options_ok false means a bad configuration, where
 * the whole program runs on glibc's own locks, rwlocks included. */
void ls_rwlock_select(bool options_ok);

#endif
