/* ticket: FIFO ticket lock parking on a waiting array (core/mutex/ticket.h). */
#include "backend.h"

#include "../core/mutex/ticket.h"

LS_BACKEND_FROM_CORE(ticket, ticket,
	"FIFO ticket lock; spins for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls), then parks by ticket on a waiting array (one wake per release)");
