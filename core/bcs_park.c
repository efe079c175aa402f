#include "bcs_park.h"

#include "spin.h"

uint32_t ls_bcs_park_wait_slow(_Atomic uint32_t *word)
{
	uint32_t v, delay = 1;
	/* Bounded spin: LOCKSWAP_SPIN polls, exponential back-off between. */
	for (unsigned polls = ls_spin_bound(); polls; polls--) {
		for (uint32_t i = 0; i < delay; i++)
			ls_cpu_relax();
		if (delay < LS_BCS_PARK_BACKOFF_MAX)
			delay <<= 1;
		v = atomic_load_explicit(word, memory_order_acquire);
		if (v)
			return v;
	}
	v = 0;
	/* Park.  acquire on failure: a reply arrived and we return it. */
	while (!atomic_compare_exchange_weak_explicit(word, &v, LS_BCS_PARK_SLEEP,
	                                              memory_order_acquire,
	                                              memory_order_acquire)) {
		if (v & ~LS_BCS_PARK_SLEEP)
			return v & ~LS_BCS_PARK_SLEEP;
	}
	for (;;) {
		ls_futex_wait(word, LS_BCS_PARK_SLEEP, CLOCK_MONOTONIC, NULL);
		v = atomic_load_explicit(word, memory_order_acquire);
		if (v & ~LS_BCS_PARK_SLEEP)
			return v & ~LS_BCS_PARK_SLEEP;
	}
}
