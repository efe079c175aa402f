/*
 * rwlock_counted.h - the slow paths that the rwlock counting table
 * (rwlock_counting.c) jumps to (rwlock_counted.c), apart from the entry
 * points (pthread_rwlock.c), as mutex_counted.h is for mutexes, so that
 * the includes and calls run one way: pthread_rwlock -> rwlock_select ->
 * rwlock_counting -> rwlock_counted -> rwlock_bodies.
 */
#ifndef LS_INTERPOSE_RWLOCK_COUNTED_H
#define LS_INTERPOSE_RWLOCK_COUNTED_H

#include <stdint.h>

/* The counting table's uncommon cases of a read lock: the slow path's
 * statistics protocol, entered with a jump from the table's verb.  `l` is
 * the rwlock (the address of its lock state), `site` the program's call
 * site.  Each gives back the countdown step the verb took (stats/quick.h).
 *   declined - before the try: a hold sample due, or in the profiler, or
 *              no statistics block yet: the whole observed read lock;
 *   blocked  - the backend's try returned `e` != 0: EBUSY takes the
 *              contended protocol, anything else (EAGAIN) is the answer;
 *   after    - the try got it, the thread's read row is not this rwlock's
 *              yet: counted by the hooks (which key the row).
 * Unlock: the observed unlock (a hold sample or a stack request is
 * pending). */
int ls_rwlock_counted_declined(void *l, uintptr_t site);
int ls_rwlock_counted_blocked(void *l, uintptr_t site, int e);
int ls_rwlock_counted_after(void *l, uintptr_t site);
void ls_rwlock_counted_unlock(void *l);

#endif
