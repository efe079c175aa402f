/* bcs: mutex whose contended lock/unlock requests are Batched Critical
 * Sections, lock-free submit (core/delegation/bcslock.h); the wait-free
 * flavour is bcs_wf.c. */
#include "backend.h"

#include "../core/delegation/bcslock.h"

_Static_assert(sizeof(struct ls_bcslock) <= LS_LOCK_STATE_BYTES, "state fits");

static int bcs_lock(void *s) { return ls_bcslock_lock(s); }
static int bcs_trylock(void *s) { return ls_bcslock_trylock(s); }
static int bcs_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_bcslock_timedlock(s, c, t);
}
static void bcs_unlock(void *s) { ls_bcslock_unlock(s); }
static bool bcs_is_locked(void *s) { return ls_bcslock_is_locked(s); }
static bool bcs_lock_plain(void *s) { return ls_bcslock_lock_plain(s); }
static bool bcs_unlock_plain(void *s) { return ls_bcslock_unlock_plain(s); }
LS_SINGLE_TABLE(bcs, "bcs");

const struct ls_lock_ops ls_backend_bcs = {
	.name = "bcs",
	.about = "batched critical sections (lock-free submit): FIFO hand-off once queued, barging only while no waiter is queued; spins for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks",
	.state_size = sizeof(struct ls_bcslock),
	.lock = bcs_lock,
	.trylock = bcs_trylock,
	.timedlock = bcs_timedlock,
	.unlock = bcs_unlock,
	.is_locked = bcs_is_locked,
	.lock_plain = bcs_lock_plain,
	.unlock_plain = bcs_unlock_plain,
	.single = &bcs_single,
};
