/* tts: test-and-test-and-set lock with parked-waiter count (core/mutex/tts.h). */
#include "backend.h"

#include "../core/mutex/tts.h"

/* lock_after_try: the spin, then the park (backend.h). */
LS_BACKEND_FROM_CORE_SLOW(tts, tts,
	"test-and-test-and-set; spins on a load for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks; unfair, no bypass bound");
