/*
 * rwlock_counting.h - the rwlock gate's table while statistics are on
 * (rwlock_select.h): the backend's read lock with each uncontended
 * acquisition counted inline.
 */
#ifndef LS_INTERPOSE_RWLOCK_COUNTING_H
#define LS_INTERPOSE_RWLOCK_COUNTING_H

#include "../../backends/rwlock.h"

/* The counting table over rwlock backend b, or NULL for pass-through.
 * Called once, before the gate opens; binds b for the life of the
 * process. */
const struct ls_rwlock_ops *ls_rwlock_counting_table(const struct ls_rwlock_ops *b);

#endif
