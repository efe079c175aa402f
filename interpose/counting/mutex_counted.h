/*
 * mutex_counted.h - the slow paths that the counting table
 * (counting.c) jumps to (mutex_counted.c), apart from the entry points
 * (mutex.c) so that the includes and the calls run one way:
 * mutex -> gate -> counting -> mutex_counted -> mutex_bodies.
 */
#ifndef LS_INTERPOSE_MUTEX_COUNTED_H
#define LS_INTERPOSE_MUTEX_COUNTED_H

#include <stddef.h>
#include <stdint.h>

/* The counting table's uncommon cases (counting.c): the slow path's
 * statistics protocol for a plain mutex, entered with a jump from the
 * table's verb.  `m` is the mutex (the address of its lock state), `site`
 * the program's call site.  Lock:
 *   declined - before the try: a hold sample due, or in the profiler, or
 *              no statistics block yet: the whole observed lock;
 *   blocked  - the backend's try found it held: the contended protocol;
 *   changed  - the try got it, and another thread (or none) acquired it
 *              last: counted in the thread's row if the row is keyed for
 *              this mutex, with the owner change and the holder word
 *              (stats/quick.h ls_stats_quick_handoff), else as `first`;
 *   first    - the try got it, and the thread's row is not keyed for this
 *              mutex: counted by the hooks (which key the row, and count
 *              an owner change from the holder word as they find it).
 * Trylock: the observed trylock.  Unlock: the observed unlock (a hold
 * sample or a stack request is pending). */
int ls_mutex_counted_declined(void *m, uintptr_t site);
int ls_mutex_counted_blocked(void *m, uintptr_t site);
int ls_mutex_counted_changed(void *m, uintptr_t site);
int ls_mutex_counted_first(void *m, uintptr_t site);
int ls_mutex_counted_trylock(void *m, uintptr_t site);
void ls_mutex_counted_unlock(void *m, uintptr_t site);

/* The counting table over a backend with claims (counting.c) keeps a
 * plain mutex's holder word in the lock state, at byte `state_off` of it
 * (mutex_layout.h).  Called once, before the gate publishes that table. */
void ls_mutex_holder_in_state(size_t state_off);

#endif
