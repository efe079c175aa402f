/* mcs: FIFO MCS queue lock with per-thread node pools (core/mutex/mcs.h). */
#include "backend.h"

#include "../core/mutex/mcs.h"

LS_BACKEND_FROM_CORE(mcs, mcs,
	"FIFO MCS queue in one word; waiters spin on their node for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then park; one wake per release");
