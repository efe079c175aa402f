#include "futexlock.h"

#include "spin.h"
#include "timespec.h"

int ls_futexlock_lock_slow(struct ls_futexlock *l, clockid_t clock,
                           const struct timespec *abstime)
{
	/* Bounded spin (LOCKSWAP_SPIN polls) on a plain load: a waiter that
	 * arrives while the holder is running often gets the lock without a
	 * syscall.  Stop early if someone is already parked: we would only
	 * barge past them. */
	for (unsigned i = ls_spin_bound(); i; i--) {
		uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
		if (w == LS_FUTEX_UNLOCKED) {
			if (ls_futexlock_trylock(l) == 0)
				return 0;
		} else if (w == LS_FUTEX_PARKED) {
			break;
		}
		ls_cpu_relax();
	}
	if (abstime && ls_timespec_negative(abstime))
		return ls_futexlock_trylock(l) == 0 ? 0 : ETIMEDOUT;
	/* From here on we mark the word PARKED whenever we take it, because we
	 * cannot know whether other waiters are still parked behind us. */
	while (atomic_exchange_explicit(&l->word, LS_FUTEX_PARKED,
	                                memory_order_acquire) != LS_FUTEX_UNLOCKED) {
		int r = ls_futex_wait(&l->word, LS_FUTEX_PARKED, clock, abstime);
		if (r == ETIMEDOUT)
			return ETIMEDOUT;
	}
	return 0;
}
