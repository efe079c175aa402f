/* queued: word-sized queued mutex, oldest waiter woken first (core/queued.h). */
#include "backend.h"

#include "../core/queued.h"

_Static_assert(sizeof(struct ls_queued) <= LS_LOCK_STATE_BYTES, "state fits");

static int queued_lock(void *s) { return ls_queued_lock(s); }
static int queued_trylock(void *s) { return ls_queued_trylock(s); }
static int queued_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_queued_timedlock(s, c, t);
}
static void queued_unlock(void *s) { ls_queued_unlock(s); }
static bool queued_is_locked(void *s) { return ls_queued_is_locked(s); }

const struct ls_lock_ops ls_backend_queued = {
	.name = "queued",
	.about = "word-sized queued mutex; spins LOCKSWAP_SPIN polls while no queue, parks per waiter, wakes the oldest; barging unless LOCKSWAP_FAIR_US hands off",
	.state_size = sizeof(struct ls_queued),
	.lock = queued_lock,
	.trylock = queued_trylock,
	.timedlock = queued_timedlock,
	.unlock = queued_unlock,
	.is_locked = queued_is_locked,
};
