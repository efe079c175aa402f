/* bcs: mutex whose contended lock/unlock requests are Batched Critical
 * Sections, lock-free submit (core/delegation/bcslock.h); the wait-free
 * flavour is bcs_wf.c.  Both read LOCKSWAP_BCS_COUNTS, declared here. */
#include "backend.h"

#include <inttypes.h>
#include <stdio.h>

#include "../core/delegation/bcslock.h"
#include "../core/runtime/say.h"

_Static_assert(sizeof(struct ls_bcslock) <= LS_LOCK_STATE_BYTES, "state fits");

/* LOCKSWAP_* settings that bcs and bcs-wf read (setting.h). */
static const struct ls_option bcs_settings[] = {
	LS_SETTING(BCS_COUNTS, BOOL, "off", 0, 1, "", &ls_bcslock_counts_on,
		"bcs, bcs-wf: print the hand-over counters (hand-offs and wake-ups of parked waiters) to stderr at exit")
	LS_SETTING(BCS_OWN_CPU, BOOL, "on", 0, 1, "", &ls_bcslock_own_cpu_on,
		"bcs, bcs-wf: while threads <= CPUs, queued waiters spin without the spinner bound and a parked FIFO head is woken to compete, not handed the lock; off = the policy before (for A/B runs)")
	LS_SETTINGS_END
};

/* One line, so a script can take it apart: `key=value` pairs. */
__attribute__((destructor)) static void bcs_print_counts(void)
{
	if (!atomic_load_explicit(&ls_bcslock_counts_on, memory_order_relaxed))
		return;
	struct ls_bcslock_counts c;
	ls_bcslock_counts_sum(&c);
#define V(f) atomic_load_explicit(&c.f, memory_order_relaxed)
	char line[512];
	snprintf(line, sizeof line,
	         "lockswap: bcs counts: slow_locks=%" PRIu64 " parks=%" PRIu64
	         " lost_races=%" PRIu64 " grants=%" PRIu64 " grants_parked=%" PRIu64
	         " retries=%" PRIu64 " retries_parked=%" PRIu64 " parked_skips=%" PRIu64
	         " own_cpu_waits=%" PRIu64 "\n",
	         V(slow_locks), V(parks), V(lost_races), V(grants), V(grants_parked),
	         V(retries), V(retries_parked), V(parked_skips), V(own_cpu_waits));
#undef V
	ls_say(line);
}

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
	.settings = bcs_settings,
};
