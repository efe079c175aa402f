/*
 * mutex.h - what the condition variable needs from the mutex entry points:
 * release a mutex of any kind for a wait, and take it back afterwards, and
 * the mutex's description for the statistics hooks.
 */
#ifndef LS_INTERPOSE_MUTEX_H
#define LS_INTERPOSE_MUTEX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct ls_mutex_saved {
	uint32_t count; /* recursion depth to restore */
	bool glibc;     /* served by glibc: relock through glibc */
};

/* 0, or EPERM when an errorcheck/recursive mutex is not held by the caller
 * (as glibc's cond_wait reports it). */
int ls_mutex_release_for_wait(pthread_mutex_t *m, struct ls_mutex_saved *s);

/* 0, or EOWNERDEAD/ENOTRECOVERABLE from a robust mutex served by glibc. */
int ls_mutex_reacquire_after_wait(pthread_mutex_t *m, const struct ls_mutex_saved *s);

/* True when the mutex is served by lockswap's backend (not glibc). */
bool ls_mutex_is_native(pthread_mutex_t *m);

/* The mutex as the statistics hooks see it (stats/hooks.h). */
struct ls_stats_obj;
void ls_mutex_stats_obj(pthread_mutex_t *m, struct ls_stats_obj *o);

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
int ls_mutex_counted_declined(void *m, uintptr_t site);
int ls_mutex_counted_blocked(void *m, uintptr_t site);
int ls_mutex_counted_after(void *m, uintptr_t site);
/* Counted, and the holder changed: the holder word and the owner change
 * (stats/quick.h ls_stats_quick_handoff).  Returns 0.  Out of line and
 * given the mutex, so the verb computes no address for this case. */
struct ls_stats_count;
int ls_mutex_counted_handoff(struct ls_stats_count *r, void *m);
int ls_mutex_counted_trylock(void *m, uintptr_t site);
void ls_mutex_counted_unlock(void *m, uintptr_t site);

#endif
