/*
 * tts.h - test-and-test-and-set lock with a parked-waiter count.
 *
 * Source: L. Rudolph and Z. Segall, "Dynamic decentralized cache schemes for
 * MIMD parallel processors" (ISCA 1984) for test-and-test-and-set; the
 * "spin on a load, not a CAS" and spin-then-park advice of kprotty's
 * "Building a small, fast Mutex" (blog post).
 *
 * State word (32 bits, all-zero = unlocked, nobody parked):
 *   bit 0       LS_TTS_LOCKED   held
 *   bits 1..31  parked waiters, counted in units of LS_TTS_WAITER (2)
 * Transitions:
 *   lock     test-and-set: fetch_or(LOCKED); acquired iff LOCKED was clear
 *   park     fetch_add(WAITER), futex-wait while LOCKED, fetch_sub(WAITER)
 *   unlock   clear LOCKED (CAS; a free lock is left alone); if the old
 *            word had waiters, wake one
 * Unlike the 3-state futex lock, a woken waiter need not re-mark the word
 * "contended": the count says exactly whether a wake is needed.
 *
 * Waiting: spin on a plain load while the waiting policy allows
 * (core/runtime/wait.h), the set attempted only when the load saw the lock free;
 * then park on the word.  A waiter cancelled while parked takes its count
 * back out of the word.
 *
 * Fairness: none.  A newcomer or the releasing thread can take the lock
 * ahead of a woken waiter indefinitely (no bypass bound): this is the unfair
 * lock the capacitor is meant to wrap.  Progress: deadlock-free.
 *
 * Memory order: the acquiring fetch_or is acquire and pairs with the release
 * CAS of unlock.  Waiter count and LOCKED live in one word, so the
 * park/unlock race is settled by the modification order of that word: a
 * waiter counted before the unlock is woken, one counted after sees the
 * lock free in its own fetch_add result.
 *
 * fork: counts of dead parent threads stay in the word; they only make the
 * child's unlocks issue a futile wake.
 * Relaxed: the polls (the acquiring fetch_or re-checks) and the count
 * updates (ordered with unlock by the word's modification order).
 */
#ifndef LS_CORE_TTS_H
#define LS_CORE_TTS_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/wait.h"

enum {
	LS_TTS_LOCKED = 1u,
	LS_TTS_WAITER = 2u,
};

struct ls_tts {
	_Atomic uint32_t word;
};

int ls_tts_lock_slow(struct ls_tts *l, clockid_t clock, const struct timespec *abstime);
void ls_tts_unlock_slow(struct ls_tts *l, uint32_t w);

/* The test-and-set step; true if it took the lock. */
static inline bool ls_tts_tas(struct ls_tts *l)
{
	/* acquire: pairs with the release CAS in ls_tts_unlock(_slow). */
	return !(atomic_fetch_or_explicit(&l->word, LS_TTS_LOCKED, memory_order_acquire) &
	         LS_TTS_LOCKED);
}

static inline int ls_tts_trylock(struct ls_tts *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) & LS_TTS_LOCKED)
		return EBUSY;
	return ls_tts_tas(l) ? 0 : EBUSY;
}

static inline int ls_tts_lock(struct ls_tts *l)
{
	if (ls_tts_tas(l))
		return 0;
	return ls_tts_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

/* abstime validated by the caller; tv_sec < 0 means already expired. */
static inline int ls_tts_timedlock(struct ls_tts *l, clockid_t clock,
                                   const struct timespec *abstime)
{
	if (ls_tts_tas(l))
		return 0;
	return ls_tts_lock_slow(l, clock, abstime);
}

static inline void ls_tts_unlock(struct ls_tts *l)
{
	uint32_t w = LS_TTS_LOCKED;
	/* release: publishes the critical section to the next acquirer.  A
	 * CAS, not a subtraction: unlocking a free lock (a misuse glibc
	 * survives) must leave the word alone (ls_tts_unlock_slow). */
	if (!atomic_compare_exchange_strong_explicit(&l->word, &w, 0, memory_order_release,
	                                             memory_order_relaxed))
		ls_tts_unlock_slow(l, w);
}

static inline bool ls_tts_is_locked(struct ls_tts *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) & LS_TTS_LOCKED;
}

/* Single-threaded verbs (backends/backend.h, interpose/start/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_tts_lock_plain(struct ls_tts *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)LS_TTS_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_tts_unlock_plain(struct ls_tts *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_TTS_LOCKED)
		return false; /* waiters (or a fork's leftovers): the atomic verb wakes them */
	atomic_store_explicit(&l->word, (uint32_t)0, memory_order_relaxed);
	return true;
}

#endif
