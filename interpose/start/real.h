/*
 * real.h - glibc's own implementations, for pass-through objects (robust,
 * priority-inherit/protect, process-shared, destroyed) and for the "glibc"
 * backend.
 *
 * The mutex functions are bound at load time through glibc's exported
 * __pthread_mutex_*@GLIBC_2.2.5 aliases (.symver in real.c): they work
 * before any constructor and need no dlsym.  The others have no such alias
 * and are resolved with dlvsym(RTLD_NEXT) once, in ls_real_resolve(), which
 * ls_init() runs before any object can be passed through.
 */
#ifndef LS_INTERPOSE_REAL_H
#define LS_INTERPOSE_REAL_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

/* .symver applies per translation unit, so it lives here, beside the
 * declarations; -z defs in the Makefile catches a unit that misses it. */
__asm__(".symver ls_real_mutex_init, __pthread_mutex_init@GLIBC_2.2.5");
__asm__(".symver ls_real_mutex_destroy, __pthread_mutex_destroy@GLIBC_2.2.5");
__asm__(".symver ls_real_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver ls_real_mutex_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver ls_real_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");

int ls_real_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int ls_real_mutex_destroy(pthread_mutex_t *m);
int ls_real_mutex_lock(pthread_mutex_t *m);
int ls_real_mutex_trylock(pthread_mutex_t *m);
int ls_real_mutex_unlock(pthread_mutex_t *m);

struct ls_real {
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
};

extern struct ls_real ls_real;

/* Resolve ls_real; returns false (with a static reason) if any is missing. */
bool ls_real_resolve(const char **missing);

#endif
