/* futex: spin-then-park three-state futex lock (core/mutex/futexlock.h). */
#include "backend.h"

#include "../core/mutex/futexlock.h"

/* lock_after_try: the spin, then the park (backend.h). */
LS_BACKEND_FROM_CORE_SLOW(futex, futexlock,
	"3-state futex lock; spins for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks; unfair (barging), no bypass bound");
