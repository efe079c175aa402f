/* mcs: FIFO MCS queue lock with per-thread node pools (core/mutex/mcs.h). */
#include "backend.h"

#include "../core/mutex/mcs.h"

LS_BACKEND_FROM_CORE(mcs, mcs,
	"FIFO MCS queue in one word; waiters spin LOCKSWAP_SPIN polls on their node then park; one wake per release");
