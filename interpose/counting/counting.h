/*
 * counting.h - the gate's table while statistics are on (gate.h): the
 * backend's lock with each uncontended acquisition counted inline.
 */
#ifndef LS_INTERPOSE_COUNTING_H
#define LS_INTERPOSE_COUNTING_H

#include "../../backends/backend.h"

/* The counting table over backend b (its `single` table too, if b has
 * one), or NULL for pass-through.  Called once, before the gate opens;
 * binds b for the life of the process. */
const struct ls_lock_ops *ls_counting_table(const struct ls_lock_ops *b);

#endif
