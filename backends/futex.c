/* futex: spin-then-park three-state futex lock (core/mutex/futexlock.h). */
#include "backend.h"

#include "../core/mutex/futexlock.h"

/* After a failed try: the spin, then the park (backend.h lock_after_try). */
static int futex_lock_after_try(void *s)
{
	return ls_futexlock_lock_slow(s, CLOCK_MONOTONIC, NULL);
}

LS_BACKEND_FROM_CORE_WITH(futex, futexlock,
	"3-state futex lock; spins for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks; unfair (barging), no bypass bound",
	.lock_after_try = futex_lock_after_try);
