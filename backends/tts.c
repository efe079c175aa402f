/* tts: test-and-test-and-set lock with parked-waiter count (core/tts.h). */
#include "backend.h"

#include "../core/tts.h"

_Static_assert(sizeof(struct ls_tts) <= LS_LOCK_STATE_BYTES, "state fits");

static int tts_lock(void *s) { return ls_tts_lock(s); }
static int tts_trylock(void *s) { return ls_tts_trylock(s); }
static int tts_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_tts_timedlock(s, c, t);
}
static void tts_unlock(void *s) { ls_tts_unlock(s); }
static bool tts_is_locked(void *s) { return ls_tts_is_locked(s); }

const struct ls_lock_ops ls_backend_tts = {
	.name = "tts",
	.about = "test-and-test-and-set; spins LOCKSWAP_SPIN polls on a load then parks; unfair, no bypass bound",
	.state_size = sizeof(struct ls_tts),
	.lock = tts_lock,
	.trylock = tts_trylock,
	.timedlock = tts_timedlock,
	.unlock = tts_unlock,
	.is_locked = tts_is_locked,
};
