/* queued: word-sized queued mutex, oldest waiter woken first (core/mutex/queued.h). */
#include "backend.h"

#include "../core/mutex/queued.h"

LS_BACKEND_FROM_CORE(queued, queued,
	"word-sized queued mutex; spins LOCKSWAP_SPIN polls while no queue, parks per waiter, wakes the oldest; barging unless LOCKSWAP_FAIR_US hands off");
