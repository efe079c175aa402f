/* ticket: FIFO ticket lock parking on a waiting array (core/mutex/ticket.h). */
#include "backend.h"

#include "../core/mutex/ticket.h"

LS_BACKEND_FROM_CORE(ticket, ticket,
	"FIFO ticket lock; spins LOCKSWAP_SPIN polls then parks by ticket on a waiting array (one wake per release)");
