/*
 * c11.c - C11 <threads.h> mutexes and condition variables: the kinds
 * (mtx_plain, mtx_timed, mtx_recursive), glibc's error mapping
 * (thrd_success/busy/timedout/error), cnd_wait and cnd_timedwait with
 * recursive and timed mutexes, and one object used both as mtx_t and as
 * pthread_mutex_t (consistent only if both reach the same implementation).
 * The answers are glibc's: run.sh runs it without lockswap as well.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

#include "rwcheck.h"

static mtx_t *tm;
static int other;

static int try_other(void *a) { other = mtx_trylock(tm); if (other == thrd_success) mtx_unlock(tm); return 0; }
static int timed_other(void *a)
{
	struct timespec t = deadline_in(CLOCK_REALTIME, 5);
	other = mtx_timedlock(tm, &t);
	if (other == thrd_success)
		mtx_unlock(tm);
	return 0;
}

static int in_other(thrd_start_t fn, mtx_t *m)
{
	thrd_t t;
	tm = m;
	thrd_create(&t, fn, NULL);
	thrd_join(t, NULL);
	return other;
}

static void init_types(void)
{
	mtx_t m;
	CHECK_EQ(mtx_init(&m, mtx_plain), thrd_success, "mtx_init(mtx_plain)");
	mtx_destroy(&m);
	CHECK_EQ(mtx_init(&m, mtx_timed), thrd_success, "mtx_init(mtx_timed)");
	mtx_destroy(&m);
	CHECK_EQ(mtx_init(&m, mtx_plain | mtx_recursive), thrd_success, "mtx_init(mtx_plain|mtx_recursive)");
	mtx_destroy(&m);
	CHECK_EQ(mtx_init(&m, mtx_timed | mtx_recursive), thrd_success, "mtx_init(mtx_timed|mtx_recursive)");
	mtx_destroy(&m);
	/* glibc 2.36 maps any other type to a normal mutex. */
	CHECK_EQ(mtx_init(&m, 4), thrd_success, "mtx_init(4) -> thrd_success (normal)");
	CHECK_EQ(mtx_trylock(&m), thrd_success, "mtx_init(4): trylock");
	CHECK_EQ(mtx_trylock(&m), thrd_busy, "mtx_init(4): not recursive");
	mtx_unlock(&m);
	mtx_destroy(&m);
}

static void plain_errors(void)
{
	mtx_t m;
	struct timespec bad = { time(NULL) + 1, 1000000000L };
	mtx_init(&m, mtx_timed);
	CHECK_EQ(mtx_lock(&m), thrd_success, "plain: mtx_lock");
	CHECK_EQ(mtx_trylock(&m), thrd_busy, "plain: mtx_trylock by owner -> thrd_busy");
	CHECK_EQ(in_other(try_other, &m), thrd_busy, "plain: mtx_trylock by another thread -> thrd_busy");
	CHECK_EQ(in_other(timed_other, &m), thrd_timedout, "timed: mtx_timedlock by another thread -> thrd_timedout");
	CHECK_EQ(mtx_timedlock(&m, &bad), thrd_error, "timed: contended mtx_timedlock tv_nsec=1e9 -> thrd_error (EINVAL)");
	CHECK_EQ(mtx_unlock(&m), thrd_success, "plain: mtx_unlock");
	CHECK_EQ(in_other(timed_other, &m), thrd_success, "timed: mtx_timedlock once free -> thrd_success");
	mtx_destroy(&m);
}

static void recursive_errors(void)
{
	mtx_t m;
	mtx_init(&m, mtx_plain | mtx_recursive);
	CHECK_EQ(mtx_lock(&m), thrd_success, "recursive: lock");
	CHECK_EQ(mtx_lock(&m), thrd_success, "recursive: lock again");
	CHECK_EQ(mtx_trylock(&m), thrd_success, "recursive: trylock by owner -> thrd_success");
	CHECK_EQ(in_other(try_other, &m), thrd_busy, "recursive: trylock by another thread -> thrd_busy");
	CHECK_EQ(mtx_unlock(&m), thrd_success, "recursive: unlock 3");
	CHECK_EQ(mtx_unlock(&m), thrd_success, "recursive: unlock 2");
	CHECK_EQ(mtx_unlock(&m), thrd_success, "recursive: unlock 1");
	CHECK_EQ(mtx_unlock(&m), thrd_error, "recursive: unlock when unlocked -> thrd_error (EPERM)");
	mtx_destroy(&m);
}

/* ---- condition variables ---- */

static mtx_t cm;
static cnd_t cv;
static int ready, seen_free;

static int signaller(void *a)
{
	/* Gets the mutex only if the waiter released every level of it. */
	mtx_lock(&cm);
	seen_free = 1;
	ready = 1;
	CHECK_EQ(cnd_signal(&cv), thrd_success, "cnd_signal");
	mtx_unlock(&cm);
	return 0;
}

/* depth: how many times the waiter holds the mutex.  Depth 2 is checked
 * under lockswap only: glibc's wait releases one level, so the signaller
 * would never get the mutex (POSIX leaves it undefined); lockswap
 * releases every level and restores them (docs/interposer.md). */
static void wait_with(int type, int depth, bool timed, const char *what)
{
	char name[160];
	thrd_t t;
	ready = seen_free = 0;
	mtx_init(&cm, type);
	cnd_init(&cv);
	for (int i = 0; i < depth; i++)
		mtx_lock(&cm);
	thrd_create(&t, signaller, NULL);
	int r = thrd_success;
	while (!ready && r == thrd_success) {
		struct timespec d = deadline_in(CLOCK_REALTIME, 10000);
		r = timed ? cnd_timedwait(&cv, &cm, &d) : cnd_wait(&cv, &cm);
	}
	snprintf(name, sizeof name, "%s: woken by the signaller, which got the mutex", what);
	CHECK(r == thrd_success && ready && seen_free, name);
	snprintf(name, sizeof name, "%s: the mutex is held again at its depth", what);
	bool ok = in_other(try_other, &cm) == thrd_busy;
	for (int i = 0; i < depth; i++)
		ok = ok && mtx_unlock(&cm) == thrd_success;
	if (type & mtx_recursive) /* all levels released now: EPERM */
		ok = ok && mtx_unlock(&cm) == thrd_error;
	CHECK(ok, name);
	thrd_join(t, NULL);
	cnd_destroy(&cv);
	mtx_destroy(&cm);
}

static void cond_timeouts(void)
{
	mtx_t m;
	cnd_t c;
	struct timespec past = { 1, 0 };
	mtx_init(&m, mtx_plain);
	CHECK_EQ(cnd_init(&c), thrd_success, "cnd_init");
	mtx_lock(&m);
	CHECK_EQ(cnd_timedwait(&c, &m, &past), thrd_timedout, "cnd_timedwait past deadline -> thrd_timedout");
	struct timespec bad = { time(NULL) + 1, -1 };
	CHECK_EQ(cnd_timedwait(&c, &m, &bad), thrd_error, "cnd_timedwait tv_nsec=-1 -> thrd_error (EINVAL)");
	CHECK_EQ(cnd_broadcast(&c), thrd_success, "cnd_broadcast without waiters");
	CHECK_EQ(cnd_signal(&c), thrd_success, "cnd_signal without waiters");
	mtx_unlock(&m);
	cnd_destroy(&c);
	mtx_destroy(&m);
}

/* One object, two APIs: consistent only if both reach the same code. */
static void mixed_with_pthread(void)
{
	mtx_t m;
	mtx_init(&m, mtx_plain);
	CHECK_EQ(mtx_lock(&m), thrd_success, "mixed: mtx_lock");
	CHECK_ERR(pthread_mutex_trylock((pthread_mutex_t *)&m), EBUSY, "mixed: pthread_mutex_trylock sees it held");
	/* glibc's locked normal mutex keeps the owner's TID at offset 8;
	 * lockswap's backends do not (they keep their own state). */
	int32_t owner;
	memcpy(&owner, (char *)&m + 8, sizeof owner);
	const char *b = check_backend();
	bool glibc = strcmp(b, "none") == 0 || strcmp(b, "glibc") == 0;
	CHECK(glibc ? owner == gettid() : owner != gettid(), "mixed: mtx_lock served by the active mutex backend");
	CHECK_ERR(pthread_mutex_unlock((pthread_mutex_t *)&m), 0, "mixed: pthread_mutex_unlock releases it");
	CHECK_EQ(mtx_trylock(&m), thrd_success, "mixed: mtx_trylock then succeeds");
	mtx_unlock(&m);
	mtx_destroy(&m);
}

int main(void)
{
	init_types();
	plain_errors();
	recursive_errors();
	const char *b = check_backend();
	bool lockswap = strcmp(b, "none") != 0 && strcmp(b, "glibc") != 0;
	wait_with(mtx_plain, 1, false, "cnd_wait, mtx_plain");
	wait_with(mtx_timed, 1, true, "cnd_timedwait, mtx_timed");
	wait_with(mtx_plain | mtx_recursive, 1, false, "cnd_wait, mtx_recursive");
	wait_with(mtx_timed | mtx_recursive, 1, true, "cnd_timedwait, mtx_timed|mtx_recursive");
	if (lockswap) {
		wait_with(mtx_plain | mtx_recursive, 2, false, "cnd_wait, mtx_recursive held twice");
		wait_with(mtx_timed | mtx_recursive, 3, true, "cnd_timedwait, mtx_timed|mtx_recursive held 3 times");
	}
	cond_timeouts();
	mixed_with_pthread();
	return rw_finish();
}
