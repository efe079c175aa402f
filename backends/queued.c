/* queued: word-sized queued mutex, oldest waiter woken first (core/mutex/queued.h). */
#include "backend.h"

#include "../core/mutex/queued.h"

/* LOCKSWAP_* settings that queued reads (setting.h). */
static const struct ls_option queued_settings[] = {
	LS_SETTING(FAIR_US, UINT, "0", 0, 100000000, "", &ls_queued_fair_us,
		"queued backend: hand the lock directly to a waiter queued this many microseconds (0 = never)")
	LS_SETTINGS_END
};

LS_BACKEND_FROM_CORE_WITH(queued, queued,
	"word-sized queued mutex; spins while no queue is formed, for a time budget learnt per lock while a CPU is free (LOCKSWAP_SPIN=N: N polls); parks per waiter, wakes the oldest; barging unless LOCKSWAP_FAIR_US hands off",
	.lock_after_try = NULL, .settings = queued_settings);
