/* capacitor: wraps any native backend (core/capacitor.h).  State: the
 * capacitor word in bytes 0..7, the inner lock's state from byte 8. */
#include "backend.h"

#include <stdatomic.h>

#include "../core/capacitor.h"

#define INNER_OFFSET sizeof(struct ls_capacitor)

_Static_assert(sizeof(struct ls_capacitor) == 8, "capacitor word");

/* Bound once by compose(), before any lock operation. */
static _Atomic(const struct ls_lock_ops *) inner_ops;

static const struct ls_lock_ops *in(void)
{
	return atomic_load_explicit(&inner_ops, memory_order_relaxed);
}

static void *inner_state(void *s) { return (char *)s + INNER_OFFSET; }

static int cap_lock(void *s) { return ls_capacitor_lock(s, in(), inner_state(s)); }
static int cap_trylock(void *s) { return ls_capacitor_trylock(s, in(), inner_state(s)); }
static int cap_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_capacitor_timedlock(s, in(), inner_state(s), c, t);
}
static void cap_unlock(void *s) { ls_capacitor_unlock(s, in(), inner_state(s)); }
static bool cap_is_locked(void *s) { return in()->is_locked(inner_state(s)); }
static void cap_compose(const struct ls_lock_ops *inner)
{
	atomic_store_explicit(&inner_ops, inner, memory_order_relaxed);
}

const struct ls_lock_ops ls_backend_capacitor = {
	.name = "capacitor",
	.about = "capacitor (platoons of LOCKSWAP_BYPASS) around INNER: at most B-1 later arrivals overtake a waiter; semaphore spins then parks",
	.state_size = sizeof(struct ls_capacitor),
	.lock = cap_lock,
	.trylock = cap_trylock,
	.timedlock = cap_timedlock,
	.unlock = cap_unlock,
	.is_locked = cap_is_locked,
	.compose = cap_compose,
	.default_inner = "tts",
};
