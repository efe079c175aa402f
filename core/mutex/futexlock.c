#include "futexlock.h"

#include "../runtime/timespec.h"
#include "../runtime/wait.h"

/* One poll of the spin phase: true to stop (taken, or someone is parked:
 * spinning on would only barge past them). */
static bool spin_step(struct ls_futexlock *l, bool *got)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (w == LS_FUTEX_UNLOCKED)
		return (*got = ls_futexlock_trylock(l) == 0);
	return w == LS_FUTEX_PARKED;
}

int ls_futexlock_lock_slow(struct ls_futexlock *l, clockid_t clock,
                           const struct timespec *abstime)
{
	/* Spin while the policy allows (core/runtime/wait.h): a waiter that arrives
	 * while the holder is running often gets the lock without a syscall. */
	bool got = false;
	LS_SPIN_UNTIL(l, spin_step(l, &got));
	if (got)
		return 0;
	if (abstime && ls_timespec_negative(abstime))
		return ls_futexlock_trylock(l) == 0 ? 0 : ETIMEDOUT;
	/* A parked waiter holds no position: a cancelled one leaves nothing
	 * behind but a PARKED mark, which costs one spurious wake.  So the
	 * scope needs no leave step. */
	struct ls_wait_scope sc;
	ls_wait_enter(&sc);
	/* From here on we mark the word PARKED whenever we take it, because we
	 * cannot know whether other waiters are still parked behind us. */
	int r = 0;
	while (atomic_exchange_explicit(&l->word, LS_FUTEX_PARKED,
	                                memory_order_acquire) != LS_FUTEX_UNLOCKED) {
		if (ls_park(&l->word, LS_FUTEX_PARKED, clock, abstime) == ETIMEDOUT) {
			r = ETIMEDOUT;
			break;
		}
	}
	ls_wait_exit(&sc);
	return r;
}
