/* active.c - what start-up publishes (active.h), defined below start-up
 * (init.c) and the entry points, which both read it. */
#include "active.h"

const struct ls_lock_ops *_Atomic ls_active_backend;
const struct ls_rwlock_ops *_Atomic ls_rwlock_active;
__thread bool ls_hold_due;
_Atomic unsigned ls_hooks;
