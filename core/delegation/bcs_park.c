#include "bcs_park.h"

#include "../runtime/wait.h"

uint32_t ls_bcs_park_wait_slow(_Atomic uint32_t *word)
{
	uint32_t v;
	/* Spin while the waiting policy allows (core/runtime/wait.h).  acquire:
	 * pairs with the release exchange in ls_bcs_park_reply(). */
	if (LS_SPIN_UNTIL(word, (v = atomic_load_explicit(word, memory_order_acquire)) != 0))
		return v;
	v = 0;
	/* Park.  acquire on failure: a reply arrived and we return it. */
	while (!atomic_compare_exchange_weak_explicit(word, &v, LS_BCS_PARK_SLEEP,
	                                              memory_order_acquire,
	                                              memory_order_acquire)) {
		if (v & ~LS_BCS_PARK_SLEEP)
			return v & ~LS_BCS_PARK_SLEEP;
	}
	for (;;) {
		ls_park_uncancellable(word, LS_BCS_PARK_SLEEP, CLOCK_MONOTONIC, NULL);
		v = atomic_load_explicit(word, memory_order_acquire);
		if (v & ~LS_BCS_PARK_SLEEP)
			return v & ~LS_BCS_PARK_SLEEP;
	}
}
