/*
 * watching.h - the gate's table while the watch is on and the statistics
 * off (gate.h; stats/watch.h): the backend's lock with the thread's held
 * locks recorded inline (watching.c).
 */
#ifndef LS_INTERPOSE_WATCHING_H
#define LS_INTERPOSE_WATCHING_H

#include "../../backends/backend.h"

/* The watching table over backend b (for pass-through: over glibc's own
 * functions, gate.c's ls_gate_glibc).  Called once, before the gate
 * opens; binds b for the life of the process. */
const struct ls_lock_ops *ls_watching_table(const struct ls_lock_ops *b);

#endif
