/*
 * pinned.h - a lock call that glibc serves on an object whose owner is the
 * kernel thread (robust, priority-inheritance or -protect, process-shared
 * mutexes and rwlocks), while the backend delegates: made from home, and
 * counted in ls_home_pins while held (pins.c says why).  Costs one test
 * of a global otherwise.
 */
#ifndef LS_INTERPOSE_AWAY_PINNED_H
#define LS_INTERPOSE_AWAY_PINNED_H

#include <stdbool.h>

#include "../../core/runtime/home.h"

/* r is the call's result; `acquire`: it was a lock call (0 and
 * EOWNERDEAD hold the lock), else an unlock (0 released it). */
int ls_away_pin_after(int r, bool acquire);

#define LS_PINNED(CALL, ACQUIRE)                                                        \
	(__builtin_expect(ls_home_delegating, 0)                                        \
	         ? (ls_go_home(LS_BACK_KERNEL_LOCK), ls_away_pin_after((CALL), (ACQUIRE))) \
	         : (CALL))

#endif
