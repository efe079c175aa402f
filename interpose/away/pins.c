/*
 * pins.c - locks whose owner is a kernel thread, outside lockswap's
 * mutexes: stdio's FILE locks and pthread spin locks.  (The mutexes and
 * rwlocks lockswap passes through to glibc are counted where they are
 * served, interpose/entry/mutex_bodies.h and rwlock_bodies.h.)
 *
 * While a thread holds one (ls_home_pins > 0), it runs no other thread's
 * section and is never run delegated itself (core/runtime/home.h): a
 * hand-over-hand pattern (lock m; flockfile(f); unlock m) would otherwise
 * let a waiter's section, run by this very thread, wait for f forever.
 * A section that takes one goes home first.  Counting costs one test of a
 * global unless the backend delegates.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "../entry/export.h"
#include "away.h"
#include "pinned.h"

static void pin(void)
{
	ls_home_pins++;
}

static void unpin(void)
{
	if (ls_home_pins)
		ls_home_pins--;
}

LS_EXPORT void flockfile(FILE *f)
{
	if (ls_home_delegating) {
		ls_go_home(LS_BACK_KERNEL_LOCK);
		pin();
	}
	GLIBC(flockfile)(f);
}

LS_EXPORT int ftrylockfile(FILE *f)
{
	if (!ls_home_delegating)
		return GLIBC(ftrylockfile)(f);
	ls_go_home(LS_BACK_KERNEL_LOCK);
	int r = GLIBC(ftrylockfile)(f);
	if (r == 0)
		pin();
	return r;
}

LS_EXPORT void funlockfile(FILE *f)
{
	GLIBC(funlockfile)(f);
	if (ls_home_delegating)
		unpin();
}

LS_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	if (ls_home_delegating) {
		ls_go_home(LS_BACK_KERNEL_LOCK);
		pin();
	}
	return GLIBC(pthread_spin_lock)(l);
}

LS_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	if (!ls_home_delegating)
		return GLIBC(pthread_spin_trylock)(l);
	ls_go_home(LS_BACK_KERNEL_LOCK);
	int r = GLIBC(pthread_spin_trylock)(l);
	if (r == 0)
		pin();
	return r;
}

LS_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	int r = GLIBC(pthread_spin_unlock)(l);
	if (ls_home_delegating)
		unpin();
	return r;
}

int ls_away_pin_after(int r, bool acquire)
{
	if (acquire ? (r == 0 || r == EOWNERDEAD) : r == 0)
		acquire ? pin() : unpin();
	return r;
}
