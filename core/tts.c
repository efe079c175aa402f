#include "tts.h"

#include "spin.h"
#include "timespec.h"

void ls_tts_wake_slow(struct ls_tts *l)
{
	ls_futex_wake(&l->word, 1);
}

/* Bounded spin: LOCKSWAP_SPIN polls of a plain load; the test-and-set is
 * tried only when the load saw the lock free. */
static bool spin(struct ls_tts *l)
{
	for (unsigned i = ls_spin_bound(); i; i--) {
		if (!(atomic_load_explicit(&l->word, memory_order_relaxed) & LS_TTS_LOCKED) &&
		    ls_tts_tas(l))
			return true;
		ls_cpu_relax();
	}
	return false;
}

int ls_tts_lock_slow(struct ls_tts *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_tts_trylock(l) == 0 ? 0 : ETIMEDOUT;
	for (;;) {
		if (spin(l))
			return 0;
		/* Count ourselves in, then sleep while the word still says held
		 * (the count is part of the word, so any unlock after our
		 * fetch_add changes it and the futex wait cannot miss it). */
		uint32_t w = atomic_fetch_add_explicit(&l->word, LS_TTS_WAITER,
		                                       memory_order_relaxed) + LS_TTS_WAITER;
		int r = 0;
		while ((w & LS_TTS_LOCKED) && r != ETIMEDOUT) {
			r = ls_futex_wait(&l->word, w, clock, abstime);
			w = atomic_load_explicit(&l->word, memory_order_relaxed);
		}
		atomic_fetch_sub_explicit(&l->word, LS_TTS_WAITER, memory_order_relaxed);
		/* A timed-out waiter may have absorbed the wake meant for another:
		 * taking a lock that is free makes that harmless; if it is held,
		 * its holder's unlock wakes the next waiter. */
		if (ls_tts_trylock(l) == 0)
			return 0;
		if (r == ETIMEDOUT)
			return ETIMEDOUT;
	}
}
