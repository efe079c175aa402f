/*
 * mutex_counted.h - the slow paths that the counting table
 * (counting.c) jumps to: what the counting table needs from the mutex
 * entry points (defined in mutex.c).  A header of its own, not mutex.h,
 * so that the counting table depends on these declarations only and the
 * includes run one way: gate -> counting -> mutex_counted <- mutex.
 */
#ifndef LS_INTERPOSE_MUTEX_COUNTED_H
#define LS_INTERPOSE_MUTEX_COUNTED_H

#include <stdint.h>

/* The counting table's uncommon cases (counting.c): the slow path's
 * statistics protocol for a plain mutex, entered with a jump from the
 * table's verb.  `m` is the mutex (the address of its lock state), `site`
 * the program's call site.  Lock:
 *   declined - before the try: a hold sample due, or in the profiler, or
 *              no statistics block yet: the whole observed lock;
 *   blocked  - the backend's try found it held: the contended protocol;
 *   after    - the try got it, the thread's row is not this mutex's yet:
 *              counted by the hooks (which key the row);
 *   handoff  - counted inline, and the holder changed.
 * Trylock: the observed trylock.  Unlock: the observed unlock (a hold
 * sample or a stack request is pending). */
struct ls_stats_count;
int ls_mutex_counted_declined(void *m, uintptr_t site);
int ls_mutex_counted_blocked(void *m, uintptr_t site);
int ls_mutex_counted_after(void *m, uintptr_t site);
/* Counted, and the holder changed: the holder word and the owner change
 * (stats/quick.h ls_stats_quick_handoff).  Returns 0.  Out of line and
 * given the mutex, so the verb computes no address for this case. */
int ls_mutex_counted_handoff(struct ls_stats_count *r, void *m);
int ls_mutex_counted_trylock(void *m, uintptr_t site);
void ls_mutex_counted_unlock(void *m, uintptr_t site);

#endif
