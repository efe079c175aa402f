/* capacitor: wraps any native backend (core/capacitor.h).  State: the
 * capacitor word in bytes 0..7, the inner lock's state from byte 8. */
#include "backend.h"

#include <stdatomic.h>

#include "../core/capacitor.h"

#define INNER_OFFSET sizeof(struct ls_capacitor)

_Static_assert(sizeof(struct ls_capacitor) == 8, "capacitor word");

/* The inner backend's verbs as core/ sees them; filled by compose(),
 * which runs once, before any lock operation. */
static struct ls_lockable inner_lock;

static void *inner_state(void *s) { return (char *)s + INNER_OFFSET; }

static int cap_lock(void *s) { return ls_capacitor_lock(s, &inner_lock, inner_state(s)); }
static int cap_trylock(void *s) { return ls_capacitor_trylock(s, &inner_lock, inner_state(s)); }
static int cap_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_capacitor_timedlock(s, &inner_lock, inner_state(s), c, t);
}
static void cap_unlock(void *s) { ls_capacitor_unlock(s, &inner_lock, inner_state(s)); }
static bool cap_is_locked(void *s) { return inner_lock.is_locked(inner_state(s)); }
static void cap_compose(const struct ls_lock_ops *inner)
{
	ls_lockable_from_ops(&inner_lock, inner);
}

const struct ls_lock_ops ls_backend_capacitor = {
	.name = "capacitor",
	.about = "capacitor (platoons of LOCKSWAP_BYPASS) around INNER: at most B-1 later arrivals overtake a waiter; the next platoon is woken ahead and spins",
	.state_size = sizeof(struct ls_capacitor),
	.lock = cap_lock,
	.trylock = cap_trylock,
	.timedlock = cap_timedlock,
	.unlock = cap_unlock,
	.is_locked = cap_is_locked,
	.compose = cap_compose,
	.default_inner = "tts",
};
