/* tts: test-and-test-and-set lock with parked-waiter count (core/mutex/tts.h). */
#include "backend.h"

#include "../core/mutex/tts.h"

/* After a failed try: the spin, then the park (backend.h lock_after_try). */
static int tts_lock_after_try(void *s)
{
	return ls_tts_lock_slow(s, CLOCK_MONOTONIC, NULL);
}

LS_BACKEND_FROM_CORE_WITH(tts, tts,
	"test-and-test-and-set; spins on a load for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks; unfair, no bypass bound",
	.lock_after_try = tts_lock_after_try);
