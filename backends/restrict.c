/* restrict: wraps any native backend (core/restrict.h).  State: the
 * restrict word in bytes 0..7, the inner lock's state from byte 8. */
#include "backend.h"

#include <stdatomic.h>

#include "../core/restrict.h"

#define INNER_OFFSET sizeof(struct ls_restrict)

_Static_assert(sizeof(struct ls_restrict) == 8, "restrict word");

/* The inner backend's verbs as core/ sees them; filled by compose(),
 * which runs once, before any lock operation. */
static struct ls_lockable inner_lock;

static void *inner_state(void *s) { return (char *)s + INNER_OFFSET; }

static int rs_lock(void *s) { return ls_restrict_lock(s, &inner_lock, inner_state(s)); }
static int rs_trylock(void *s) { return ls_restrict_trylock(s, &inner_lock, inner_state(s)); }
static int rs_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_restrict_timedlock(s, &inner_lock, inner_state(s), c, t);
}
static void rs_unlock(void *s) { ls_restrict_unlock(s, &inner_lock, inner_state(s)); }
static bool rs_is_locked(void *s) { return inner_lock.is_locked(inner_state(s)); }
static void rs_compose(const struct ls_lock_ops *inner)
{
	ls_lockable_from_ops(&inner_lock, inner);
}

const struct ls_lock_ops ls_backend_restrict = {
	.name = "restrict",
	.about = "concurrency restriction around INNER: LOCKSWAP_RESTRICT_ACTIVE threads circulate, the rest park FIFO; one is rotated in after at most LOCKSWAP_RESTRICT_ROTATE fast admissions",
	.state_size = sizeof(struct ls_restrict),
	.lock = rs_lock,
	.trylock = rs_trylock,
	.timedlock = rs_timedlock,
	.unlock = rs_unlock,
	.is_locked = rs_is_locked,
	.compose = rs_compose,
	.default_inner = "mcs",
};
