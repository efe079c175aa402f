#include "ticks.h"

#include <stdatomic.h>

static _Atomic uint64_t per_us; /* 0 = not measured yet */

uint64_t ls_ticks_per_us(void)
{
	uint64_t r = atomic_load_explicit(&per_us, memory_order_relaxed);
	if (r)
		return r;
#if defined(__x86_64__) || defined(__i386__)
	/* Two readings of both clocks ~200 us apart.  Racing threads each
	 * measure and store their own (equally good) result: relaxed. */
	uint64_t n0 = ls_now_ns(CLOCK_MONOTONIC), t0 = ls_ticks(), n1, t1;
	do {
		n1 = ls_now_ns(CLOCK_MONOTONIC);
		t1 = ls_ticks();
	} while (n1 - n0 < 200000);
	r = (t1 - t0) * 1000 / (n1 - n0);
#else
	r = 1000; /* ls_ticks() is in ns */
#endif
	if (r == 0)
		r = 1;
	atomic_store_explicit(&per_us, r, memory_order_relaxed);
	return r;
}
