/* futex: spin-then-park three-state futex lock (core/futexlock.h). */
#include "backend.h"

#include "../core/futexlock.h"

_Static_assert(sizeof(struct ls_futexlock) <= LS_LOCK_STATE_BYTES, "state fits");

static int futex_lock(void *s) { return ls_futexlock_lock(s); }
static int futex_trylock(void *s) { return ls_futexlock_trylock(s); }
static int futex_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_futexlock_timedlock(s, c, t);
}
static void futex_unlock(void *s) { ls_futexlock_unlock(s); }
static bool futex_is_locked(void *s) { return ls_futexlock_is_locked(s); }

const struct ls_lock_ops ls_backend_futex = {
	.name = "futex",
	.about = "3-state futex lock; spins LOCKSWAP_SPIN polls then parks; unfair (barging), no bypass bound",
	.state_size = sizeof(struct ls_futexlock),
	.lock = futex_lock,
	.trylock = futex_trylock,
	.timedlock = futex_timedlock,
	.unlock = futex_unlock,
	.is_locked = futex_is_locked,
};
