/*
 * c11.c - the C11 <threads.h> mutex and condition functions.
 *
 * glibc's mtx_* / cnd_* call its internal __pthread_* functions directly
 * (docs/glibc.md, section 3), so without these a C11 program never
 * reaches lockswap, and an object touched both as mtx_t and through
 * pthread_* would mix two implementations.  Here each is served by the
 * exported pthread function, so C11 objects get the same backend, kinds,
 * statistics and pass-through rules as pthread ones.  mtx_t and cnd_t are
 * glibc's pthread_mutex_t and pthread_cond_t (same size and layout).
 *
 * As glibc (sysdeps/pthread/mtx_init.c, thrd_priv.h):
 *   mtx_plain, mtx_timed                 -> PTHREAD_MUTEX_NORMAL (explicit
 *                                           settype: __kind 0x200)
 *   mtx_plain|mtx_recursive, mtx_timed|mtx_recursive -> RECURSIVE
 *   any other type                       -> NORMAL too (glibc 2.36 accepts it)
 *   error map: 0 thrd_success, ENOMEM thrd_nomem, ETIMEDOUT thrd_timedout,
 *              EBUSY thrd_busy, anything else thrd_error.
 */
#include <errno.h>
#include <pthread.h>
#include <threads.h>

#include "export.h"

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t is a pthread mutex");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t is a pthread condvar");

static int thrd_map(int err)
{
	switch (err) {
	case 0: return thrd_success;
	case ENOMEM: return thrd_nomem;
	case ETIMEDOUT: return thrd_timedout;
	case EBUSY: return thrd_busy;
	default: return thrd_error;
	}
}

static pthread_mutex_t *pm(mtx_t *m) { return (pthread_mutex_t *)(void *)m; }
static pthread_cond_t *pc(cnd_t *c) { return (pthread_cond_t *)(void *)c; }

LS_EXPORT int mtx_init(mtx_t *m, int type)
{
	int kind;
	switch (type) {
	case mtx_plain | mtx_recursive:
	case mtx_timed | mtx_recursive: kind = PTHREAD_MUTEX_RECURSIVE; break;
	default: kind = PTHREAD_MUTEX_NORMAL; break;
	}
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, kind);
	int r = pthread_mutex_init(pm(m), &a);
	pthread_mutexattr_destroy(&a);
	return thrd_map(r);
}

LS_EXPORT int mtx_lock(mtx_t *m) { return thrd_map(pthread_mutex_lock(pm(m))); }
LS_EXPORT int mtx_trylock(mtx_t *m) { return thrd_map(pthread_mutex_trylock(pm(m))); }
LS_EXPORT int mtx_unlock(mtx_t *m) { return thrd_map(pthread_mutex_unlock(pm(m))); }
LS_EXPORT void mtx_destroy(mtx_t *m) { pthread_mutex_destroy(pm(m)); }

LS_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict t)
{
	return thrd_map(pthread_mutex_timedlock(pm(m), t));
}

LS_EXPORT int cnd_init(cnd_t *c) { return thrd_map(pthread_cond_init(pc(c), NULL)); }
LS_EXPORT int cnd_signal(cnd_t *c) { return thrd_map(pthread_cond_signal(pc(c))); }
LS_EXPORT int cnd_broadcast(cnd_t *c) { return thrd_map(pthread_cond_broadcast(pc(c))); }
LS_EXPORT void cnd_destroy(cnd_t *c) { pthread_cond_destroy(pc(c)); }
LS_EXPORT int cnd_wait(cnd_t *c, mtx_t *m) { return thrd_map(pthread_cond_wait(pc(c), pm(m))); }

LS_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict t)
{
	return thrd_map(pthread_cond_timedwait(pc(c), pm(m), t));
}
