/* bcs-wf: the Batched Critical Sections mutex with the wait-free submit
 * and sentinel hand-off (core/delegation/bcslock.h); its try, test and
 * plain verbs are bcs's. */
#include "backend.h"

#include "../core/delegation/bcslock.h"

_Static_assert(sizeof(struct ls_bcslock) <= LS_LOCK_STATE_BYTES, "state fits");

static int bcs_wf_lock(void *s) { return ls_bcslock_wf_lock(s); }
static int bcs_wf_trylock(void *s) { return ls_bcslock_trylock(s); }
static int bcs_wf_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_bcslock_wf_timedlock(s, c, t);
}
static void bcs_wf_unlock(void *s) { ls_bcslock_wf_unlock(s); }
static bool bcs_wf_is_locked(void *s) { return ls_bcslock_is_locked(s); }
static bool bcs_wf_lock_plain(void *s) { return ls_bcslock_lock_plain(s); }
static bool bcs_wf_unlock_plain(void *s) { return ls_bcslock_unlock_plain(s); }
LS_SINGLE_TABLE(bcs_wf, "bcs-wf");

const struct ls_lock_ops ls_backend_bcs_wf = {
	.name = "bcs-wf",
	.about = "batched critical sections (wait-free submit, sentinel hand-off): FIFO hand-off once queued, barging only while no waiter is queued; spins for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks",
	.state_size = sizeof(struct ls_bcslock),
	.lock = bcs_wf_lock,
	.trylock = bcs_wf_trylock,
	.timedlock = bcs_wf_timedlock,
	.unlock = bcs_wf_unlock,
	.is_locked = bcs_wf_is_locked,
	.lock_plain = bcs_wf_lock_plain,
	.unlock_plain = bcs_wf_unlock_plain,
	.single = &bcs_wf_single,
};
