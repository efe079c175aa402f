/*
 * rwlock.c - the exported pthread_rwlock_* functions.
 *
 * Every call: the active rwlock backend (one load after ls_active()), the
 * pass-through test (glibc backend, or __shared set: process-shared
 * rwlocks are glibc's for their whole life), the kind, then the backend's
 * verb.  Error codes follow glibc 2.36 as measured (tests/rwlock/errors.c
 * checks them under every rwlock backend, glibc's included):
 *   EDEADLK  rdlock/wrlock/timed/clock forms by the thread holding the
 *            write lock (after the EINVAL checks, before any timeout)
 *   EBUSY    tryrdlock/trywrlock when they would block (also for the
 *            write holder itself)
 *   EINVAL   bad tv_nsec or a clock other than REALTIME/MONOTONIC, checked
 *            eagerly (even when the lock is free)
 *   ETIMEDOUT  deadline passed while blocked (tv_sec < 0 included; a free
 *            lock is still taken)
 *   EAGAIN   reader count would overflow
 * destroy always returns 0, as glibc's does; unlocking a lock the caller
 * does not hold is undefined (glibc corrupts its state too).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../core/thread.h"
#include "../core/timespec.h"
#include "export.h"
#include "init.h"
#include "options.h"
#include "rwlock.h"
#include "rwlock_layout.h"
#include "rwlock_real.h"

const struct ls_rwlock_ops *_Atomic ls_rwlock_active;

void ls_rwlock_select(bool options_ok)
{
	const struct ls_rwlock_ops *b = ls_rwlock_backends[0]; /* glibc */
	bool resolved = ls_rwlock_real_resolve();
	if (options_ok && resolved) {
		const struct ls_rwlock_ops *chosen =
		        ls_rwlock_backend_find(ls_option_value(ls_option_find("RWLOCK")));
		if (chosen) /* always: the option's choices are backend names */
			b = chosen;
	}
	/* relaxed: published by ls_init's release store of the mutex backend,
	 * which every entry point acquires through ls_active() first. */
	atomic_store_explicit(&ls_rwlock_active, b, memory_order_relaxed);
}

static inline const struct ls_rwlock_ops *rw_backend(void)
{
	/* relaxed: stored before ls_init's release store of the mutex
	 * backend, which ls_active() loads with acquire. */
	ls_active();
	return atomic_load_explicit(&ls_rwlock_active, memory_order_relaxed);
}

static inline bool served_by_glibc(const struct ls_rwlock_ops *b, struct ls_rw *x)
{
	return ls_rwlock_is_passthrough(b) || ls_rw_is_glibc(x);
}

/* Does the caller hold the write lock?  relaxed: the writer field equals
 * the caller's id only if the caller itself stored it. */
static inline bool writing(struct ls_rw *x)
{
	uint32_t w = atomic_load_explicit(&x->writer, memory_order_relaxed);
	if (!w)
		return false;
	struct ls_thread *t = ls_thread_self();
	return t && t->id == w;
}

static inline int wrote(struct ls_rw *x, int r)
{
	if (r == 0) {
		struct ls_thread *t = ls_thread_self();
		/* relaxed: read back only by this thread (writing()). */
		atomic_store_explicit(&x->writer, t ? t->id : 0, memory_order_relaxed);
	}
	return r;
}

LS_EXPORT int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr)
{
	/* glibc validates the attributes, zeroes all 56 bytes (= unlocked for
	 * every backend) and writes __flags and __shared. */
	rw_backend();
	return ls_real_rwlock_init(l, attr);
}

LS_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	if (served_by_glibc(rw_backend(), ls_rw_of(l)))
		return ls_real_rwlock_destroy(l);
	return 0;
}

LS_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x))
		return ls_real_rwlock_rdlock(l);
	if (writing(x))
		return EDEADLK;
	return b->rdlock(x->lock, ls_rw_flags(x));
}

LS_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x))
		return ls_real_rwlock_tryrdlock(l);
	return b->tryrdlock(x->lock, ls_rw_flags(x));
}

LS_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x))
		return ls_real_rwlock_wrlock(l);
	if (writing(x))
		return EDEADLK;
	return wrote(x, b->wrlock(x->lock, ls_rw_flags(x)));
}

LS_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x))
		return ls_real_rwlock_trywrlock(l);
	return wrote(x, b->trywrlock(x->lock, ls_rw_flags(x)));
}

/* The four timed forms.  glibc checks the clock and tv_nsec first, even
 * when the lock is free, then EDEADLK, then blocks. */
static int timed(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime,
                 bool is_clock, bool write)
{
	const struct ls_rwlock_ops *b = rw_backend();
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x)) {
		if (is_clock)
			return (write ? ls_real_rwlock.clockwrlock : ls_real_rwlock.clockrdlock)(l, clock, abstime);
		return (write ? ls_real_rwlock.timedwrlock : ls_real_rwlock.timedrdlock)(l, abstime);
	}
	if (!ls_clock_supported(clock) || !ls_timespec_valid(abstime))
		return EINVAL;
	if (writing(x))
		return EDEADLK;
	unsigned f = ls_rw_flags(x);
	if (write)
		return wrote(x, b->timedwrlock(x->lock, f, clock, abstime));
	return b->timedrdlock(x->lock, f, clock, abstime);
}

LS_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	return timed(l, CLOCK_REALTIME, abstime, false, false);
}

LS_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	return timed(l, CLOCK_REALTIME, abstime, false, true);
}

LS_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock,
                                         const struct timespec *abstime)
{
	return timed(l, clock, abstime, true, false);
}

LS_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock,
                                         const struct timespec *abstime)
{
	return timed(l, clock, abstime, true, true);
}

LS_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	const struct ls_rwlock_ops *b = rw_backend();
	struct ls_rw *x = ls_rw_of(l);
	if (served_by_glibc(b, x))
		return ls_real_rwlock_unlock(l);
	/* Cleared before the backend's release, so the next writer never
	 * finds our id. */
	if (writing(x))
		atomic_store_explicit(&x->writer, 0, memory_order_relaxed);
	b->unlock(x->lock, ls_rw_flags(x));
	return 0;
}

/* The rwlock backend serving this process, for tests and tools. */
LS_EXPORT const char *lockswap_rwlock(void)
{
	return rw_backend()->name;
}
