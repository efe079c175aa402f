/* entry.h - how the exported functions are built (mutex.c, cond.c,
 * pthread_rwlock.c): a fast path in the exported function, and a slow path it
 * reaches by a sibling call (a jump), which is where the statistics'
 * call site is read. */
#ifndef LS_INTERPOSE_ENTRY_H
#define LS_INTERPOSE_ENTRY_H

#include <stdint.h>

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The return address into the program.  Only meaningful in a function
 * that the exported one reached by a sibling call: the slow paths, which
 * are noinline (SLOW) and tail-called. */
#define CALLER() ((uintptr_t)__builtin_return_address(0))
#define SLOW __attribute__((noinline))

/* The bodies and observed paths, inlined into each slow path. */
#define INLINE inline __attribute__((always_inline))

/* A static function of a header shared by two files (mutex_bodies.h,
 * rwlock_bodies.h) that one of them does not call: no warning for it,
 * and no `inline`, which would change how the compiler inlines it. */
#define SHARED __attribute__((unused))

#endif
