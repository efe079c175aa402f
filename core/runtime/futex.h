/*
 * futex.h - the futex(2) calls of every lock, condition variable and
 * internal lock of lockswap.
 *
 * Every one of them in core/ parks on a 32-bit word and is woken through
 * wait.h's door (ls_park and its variants, ls_unpark) or, for the
 * allocators' lock (alloc_lock.h), the primitive under it (park.h); only
 * these and the embedder's cancellable park (interpose/entry/cancel.c) call the
 * functions below.  The one other futex in the library is the statistics'
 * watchdog thread's own sleep and kick (stats/watchdog.c, raw calls): it
 * is no lock's waiter, so it fires no park probe.  All futexes are
 * process-private (FUTEX_PRIVATE_FLAG): process-shared objects never reach
 * lockswap's code, they are passed through to glibc.  A waiter moved from
 * one word to another (ls_futex_requeue) is woken by the second's wake.
 *
 * Timeouts are absolute, on CLOCK_MONOTONIC or CLOCK_REALTIME only, as
 * FUTEX_WAIT_BITSET allows; that is exactly the set pthread accepts.
 *
 * errno: both calls leave the caller's errno as it was and return the
 * kernel's answer instead.  They run inside the host's lock calls, and
 * glibc's own never change errno (its futex calls go through its internal
 * syscall macro, which sets none): a program may take a lock between a
 * failed call and the line that prints strerror(errno), and a timed-out
 * wait must not leave ETIMEDOUT there (tests/preload/errno_kept.c).
 */
#ifndef LS_CORE_FUTEX_H
#define LS_CORE_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probes.h"
#include "sys.h"

/* Wait while *word == expected.  abstime may be NULL (no timeout).
 * Returns 0 when woken (or on a spurious wake), EAGAIN when *word already
 * differed, ETIMEDOUT, or EINTR.  Callers always re-check their condition. */
static inline int ls_futex_wait(const _Atomic uint32_t *word, uint32_t expected,
                                clockid_t clock, const struct timespec *abstime)
{
	int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG;
	if (abstime && clock == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	int saved = errno;
	/* Every park in lockswap comes here (probes.h: park, park_done). */
	LS_PROBE2(park, word, expected);
	long r = syscall(SYS_futex, word, op, expected, abstime, NULL,
	                 FUTEX_BITSET_MATCH_ANY);
	int err = r == 0 ? 0 : errno;
	errno = saved;
	LS_PROBE2(park_done, word, err);
	return err;
}

/* Wake up to n waiters parked on word; returns how many were woken. */
static inline int ls_futex_wake(const _Atomic uint32_t *word, int n)
{
	int saved = errno;
	long r = syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, n,
	                 NULL, NULL, 0);
	errno = saved;
	int woken = r < 0 ? 0 : (int)r;
	/* Every wake in lockswap comes here (probes.h: unpark). */
	LS_PROBE3(unpark, word, n, woken);
	return woken;
}

/* Move at most one sleeper on `from` to `to`, waking none, if *from is
 * still `expected` (FUTEX_CMP_REQUEUE); returns how many moved, 0 when
 * *from had changed or nobody slept there.  The moved thread wakes as a
 * sleeper of `to` (a condvar waiter moved to its mutex's word:
 * core/condvar/morph.h). */
static inline int ls_futex_requeue(const _Atomic uint32_t *from, uint32_t expected,
                                   const _Atomic uint32_t *to)
{
	int saved = errno;
	/* The fourth argument is the number to move, passed where a wait
	 * passes its timeout. */
	long r = syscall(SYS_futex, from, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 0,
	                 (void *)1, to, expected);
	errno = saved;
	int moved = r < 0 ? 0 : (int)r;
	LS_PROBE3(requeue, from, to, moved);
	return moved;
}

/* The wait of a thread whose TLS may be in use elsewhere (a parked waiter
 * whose context a delegate runs, home.h): a raw call, no errno, no probe,
 * no timeout.  Returns 0 or -errno. */
static inline long ls_futex_wait_raw(const _Atomic uint32_t *word, uint32_t expected)
{
	return ls_sys6(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, expected, 0, 0, 0);
}

#endif
