/*
 * park.h - the primitive under wait.h's door: every sleep of the library
 * sends a delegated critical section home first (home.h), then waits on
 * the futex.  Kept apart from wait.h so that the allocators' lock
 * (alloc_lock.h), which the thread records that wait.h's policy counts
 * depend on, can sleep through it too without a circle of modules.
 */
#ifndef LS_CORE_PARK_H
#define LS_CORE_PARK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* Go home if away, then wait while *word == expected, uncancellably;
 * returns what ls_futex_wait returns (futex.h), errno untouched. */
int ls_park_home_first(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                       const struct timespec *abstime);

/* Wake up to n waiters of word (errno untouched); how many were woken. */
int ls_park_wake(const _Atomic uint32_t *word, int n);

#endif
