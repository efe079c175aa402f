/*
 * rwlock_real.h - glibc's own pthread_rwlock functions, for process-shared
 * rwlocks and the "glibc" rwlock backend.  Seven are bound at load time to
 * glibc's __pthread_rwlock_*@GLIBC_2.2.5 aliases (.symver, as real.h does
 * for the mutex); the timed and clock forms have no alias and are resolved
 * with dlvsym(RTLD_NEXT) by ls_rwlock_real_resolve(), run from ls_init().
 */
#ifndef LS_INTERPOSE_RWLOCK_REAL_H
#define LS_INTERPOSE_RWLOCK_REAL_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

__asm__(".symver ls_real_rwlock_init, __pthread_rwlock_init@GLIBC_2.2.5");
__asm__(".symver ls_real_rwlock_destroy, __pthread_rwlock_destroy@GLIBC_2.2.5");
__asm__(".symver ls_real_rwlock_rdlock, __pthread_rwlock_rdlock@GLIBC_2.2.5");
__asm__(".symver ls_real_rwlock_tryrdlock, __pthread_rwlock_tryrdlock@GLIBC_2.2.5");
__asm__(".symver ls_real_rwlock_wrlock, __pthread_rwlock_wrlock@GLIBC_2.2.5");
__asm__(".symver ls_real_rwlock_trywrlock, __pthread_rwlock_trywrlock@GLIBC_2.2.5");
__asm__(".symver ls_real_rwlock_unlock, __pthread_rwlock_unlock@GLIBC_2.2.5");

int ls_real_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a);
int ls_real_rwlock_destroy(pthread_rwlock_t *l);
int ls_real_rwlock_rdlock(pthread_rwlock_t *l);
int ls_real_rwlock_tryrdlock(pthread_rwlock_t *l);
int ls_real_rwlock_wrlock(pthread_rwlock_t *l);
int ls_real_rwlock_trywrlock(pthread_rwlock_t *l);
int ls_real_rwlock_unlock(pthread_rwlock_t *l);

struct ls_real_rwlock {
	int (*timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
};

extern struct ls_real_rwlock ls_real_rwlock;

bool ls_rwlock_real_resolve(void);

#endif
