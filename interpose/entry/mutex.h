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

/* The call site of this thread's condvar wait, whose re-acquisition of
 * the mutex the watch is told of (stats/watch.h); set by cond.c while the
 * watch is on. */
extern __thread uintptr_t ls_cond_wait_site;

/* Record in the waiter's record the mutex's lock state and its morph verbs
 * (core/condvar/morph.h), before it enqueues; NULL and NULL when a signal
 * must wake the waiter: a mutex glibc serves, a backend without a park
 * word, or the statistics or the watch on (their tables take the lock
 * without telling the hint). */
struct ls_thread;
void ls_mutex_morph_target(pthread_mutex_t *m, struct ls_thread *waiter);

/* True when the mutex is served by lockswap's backend (not glibc). */
bool ls_mutex_is_native(pthread_mutex_t *m);

/* The mutex as the statistics hooks see it (stats/hooks.h). */
struct ls_stats_obj;
void ls_mutex_stats_obj(pthread_mutex_t *m, struct ls_stats_obj *o);

#endif
