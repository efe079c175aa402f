/* queued: word-sized queued mutex, oldest waiter woken first (core/mutex/queued.h). */
#include "backend.h"

#include "../core/mutex/queued.h"

LS_BACKEND_FROM_CORE(queued, queued,
	"word-sized queued mutex; spins while no queue is formed, for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls); parks per waiter, wakes the oldest; barging unless LOCKSWAP_FAIR_US hands off");
