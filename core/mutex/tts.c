#include "tts.h"

#include "../runtime/timespec.h"
#include "../runtime/wait.h"

void ls_tts_unlock_slow(struct ls_tts *l, uint32_t w)
{
	for (;;) {
		/* Unlocking a free lock is a tolerated misuse (glibc survives
		 * it): the word stays as it is. */
		if (!(w & LS_TTS_LOCKED))
			return;
		/* release: publishes the critical section to the next acquirer. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, w & ~LS_TTS_LOCKED,
		                                          memory_order_release,
		                                          memory_order_relaxed))
			break;
	}
	if (w & ~LS_TTS_LOCKED)
		ls_unpark(&l->word, 1);
}

/* One poll: the test-and-set is tried only when the load saw the lock free. */
static bool spin_step(struct ls_tts *l)
{
	return !(atomic_load_explicit(&l->word, memory_order_relaxed) & LS_TTS_LOCKED) &&
	       ls_tts_tas(l);
}

/* Cancelled while counted in: take our count back out of the word. */
static void leave_counted(void *arg)
{
	struct ls_tts *l = arg;
	atomic_fetch_sub_explicit(&l->word, LS_TTS_WAITER, memory_order_relaxed);
	/* We may have absorbed a wake meant for another waiter: pass it on. */
	if (!(atomic_load_explicit(&l->word, memory_order_relaxed) & LS_TTS_LOCKED))
		ls_unpark(&l->word, 1);
}

int ls_tts_lock_slow(struct ls_tts *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_tts_trylock(l) == 0 ? 0 : ETIMEDOUT;
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	ls_wait_enter(&sc);
	int r = 0;
	for (;;) {
		if (LS_SPIN_UNTIL(l, spin_step(l))) {
			r = 0;
			break;
		}
		/* Count ourselves in, then sleep while the word still says held
		 * (the count is part of the word, so any unlock after our
		 * fetch_add changes it and the futex wait cannot miss it). */
		ls_wait_push(&f, leave_counted, l);
		uint32_t w = atomic_fetch_add_explicit(&l->word, LS_TTS_WAITER,
		                                       memory_order_relaxed) + LS_TTS_WAITER;
		while ((w & LS_TTS_LOCKED) && r != ETIMEDOUT) {
			r = ls_park(&l->word, w, clock, abstime);
			w = atomic_load_explicit(&l->word, memory_order_relaxed);
		}
		atomic_fetch_sub_explicit(&l->word, LS_TTS_WAITER, memory_order_relaxed);
		ls_wait_pop(&f);
		/* A timed-out waiter may have absorbed the wake meant for another:
		 * taking a lock that is free makes that harmless; if it is held,
		 * its holder's unlock wakes the next waiter. */
		if (ls_tts_trylock(l) == 0) {
			r = 0;
			break;
		}
		if (r == ETIMEDOUT)
			break;
	}
	ls_wait_exit(&sc);
	return r;
}
