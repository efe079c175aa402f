/* mcs: FIFO MCS queue lock with per-thread node pools (core/mcs.h). */
#include "backend.h"

#include "../core/mcs.h"

_Static_assert(sizeof(struct ls_mcs) <= LS_LOCK_STATE_BYTES, "state fits");

static int mcs_lock(void *s) { return ls_mcs_lock(s); }
static int mcs_trylock(void *s) { return ls_mcs_trylock(s); }
static int mcs_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_mcs_timedlock(s, c, t);
}
static void mcs_unlock(void *s) { ls_mcs_unlock(s); }
static bool mcs_is_locked(void *s) { return ls_mcs_is_locked(s); }

const struct ls_lock_ops ls_backend_mcs = {
	.name = "mcs",
	.about = "FIFO MCS queue in one word; waiters spin LOCKSWAP_SPIN polls on their node then park; one wake per release",
	.state_size = sizeof(struct ls_mcs),
	.lock = mcs_lock,
	.trylock = mcs_trylock,
	.timedlock = mcs_timedlock,
	.unlock = mcs_unlock,
	.is_locked = mcs_is_locked,
};
