/* ticket: FIFO ticket lock parking on a waiting array (core/ticket.h). */
#include "backend.h"

#include "../core/ticket.h"

_Static_assert(sizeof(struct ls_ticket) <= LS_LOCK_STATE_BYTES, "state fits");

static int ticket_lock(void *s) { return ls_ticket_lock(s); }
static int ticket_trylock(void *s) { return ls_ticket_trylock(s); }
static int ticket_timedlock(void *s, clockid_t c, const struct timespec *t)
{
	return ls_ticket_timedlock(s, c, t);
}
static void ticket_unlock(void *s) { ls_ticket_unlock(s); }
static bool ticket_is_locked(void *s) { return ls_ticket_is_locked(s); }

const struct ls_lock_ops ls_backend_ticket = {
	.name = "ticket",
	.about = "FIFO ticket lock; spins LOCKSWAP_SPIN polls then parks by ticket on a waiting array (one wake per release)",
	.state_size = sizeof(struct ls_ticket),
	.lock = ticket_lock,
	.trylock = ticket_trylock,
	.timedlock = ticket_timedlock,
	.unlock = ticket_unlock,
	.is_locked = ticket_is_locked,
};
