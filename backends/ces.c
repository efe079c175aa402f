/* ces: FIFO mutex whose releaser runs the queued waiters' critical sections
 * on its own thread, in their contexts (core/delegation/ces.h). */
#include "backend.h"

#include <stdio.h>

#include "../core/delegation/ces.h"

_Static_assert(sizeof(struct ls_ces) <= LS_LOCK_STATE_BYTES, "ces state fits");

/* The batch bound in the description, from the one constant. */
#define CES_STR_(x) #x
#define CES_STR(x) CES_STR_(x)

static int ces_lock(void *s) { return ls_ces_lock(s); }
static int ces_trylock(void *s) { return ls_ces_trylock(s); }
static int ces_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_ces_timedlock(s, c, t);
}
static void ces_unlock(void *s) { ls_ces_unlock(s); }
static void ces_unlock_to_wait(void *s) { ls_ces_unlock_to_wait(s); }
static int ces_lock_after_try(void *s) { return ls_ces_lock_slow(s, CLOCK_MONOTONIC, NULL); }
static bool ces_is_locked(void *s) { return ls_ces_is_locked(s); }
static bool ces_lock_plain(void *s) { return ls_ces_lock_plain(s); }
static bool ces_unlock_plain(void *s) { return ls_ces_unlock_plain(s); }
LS_SINGLE_TABLE(ces, "ces");

static bool ces_prepare(char *err, size_t errlen)
{
	const char *why = NULL;
	if (ls_ces_delegation_setup(&why))
		return true;
	snprintf(err, errlen, "backend 'ces' cannot run here: %s", why);
	return false;
}

const struct ls_lock_ops ls_backend_ces = {
	.name = "ces",
	.about = "combine-and-exchange delegation, experimental (x86-64, needs GLIBC_TUNABLES=glibc.pthread.rseq=0; what it cannot hide: docs/delegation.md): FIFO; the releaser runs up to " CES_STR(LS_CES_BATCH) " queued waiters' critical sections on its own thread, in their contexts (stack, TLS, FP control, signal mask), then hands the lock to the next waiter; spins for a time budget learnt per lock while a CPU is free, then parks",
	.state_size = sizeof(struct ls_ces),
	.lock = ces_lock,
	.trylock = ces_trylock,
	.timedlock = ces_timedlock,
	.unlock = ces_unlock,
	.unlock_to_wait = ces_unlock_to_wait,
	.lock_after_try = ces_lock_after_try,
	.is_locked = ces_is_locked,
	.lock_plain = ces_lock_plain,
	.unlock_plain = ces_unlock_plain,
	.single = &ces_single,
	.prepare = ces_prepare,
	/* A section that waits, by a means lockswap cannot see, for its
	 * releaser's own progress hangs (docs/delegation.md): the watchdog
	 * names the waiters and the section's logical owner. */
	.hang_ms_default = 1000,
};
