/*
 * state.h - the switches of the statistics that every file of stats/
 * reads and none owns alone: the mode and its knobs, the in-profiler flag
 * (ls_stats_q.busy, quick.h), the helper request, the clocks.  Defined in
 * state.c, the bottom of stats/: it calls nothing.
 */
#ifndef LS_STATS_STATE_H
#define LS_STATS_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../core/runtime/say.h"
#include "hooks.h"
#include "quick.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The mode (ls_stats_configure; LS_STATS_OFF again if the tables cannot
 * be mapped), and its knobs. */
extern _Atomic unsigned ls_stats_mode;
extern _Atomic unsigned ls_stats_top;
extern _Atomic unsigned ls_stats_sample;

/* Enter and leave the profiler (ls_stats_q.busy, nested).  Inside, the
 * inline step (quick.h) must not count: the countdown is held at 1 on
 * the way in and given back on the way out.  Nothing inside changes
 * hold_left but through `parked` (thread.c's attach and exit). */
static inline void ls_stats_enter(void)
{
	if (ls_stats_q.busy++ == 0) {
		ls_stats_q.parked = ls_stats_q.hold_left;
		ls_stats_q.hold_left = 1;
	}
}
static inline void ls_stats_leave(void)
{
	if (--ls_stats_q.busy == 0)
		ls_stats_q.hold_left = ls_stats_q.parked;
}
/* While statistics are off nothing sets them up. */
static inline bool ls_stats_on(void)
{
	return atomic_load_explicit(&ls_stats_mode, memory_order_relaxed) != LS_STATS_OFF;
}

/* time */
static inline uint64_t ls_stats_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A cheap clock for the waiting time of every contended acquisition, only
 * ever compared with itself (fairness weighs threads by their share of
 * it): the time-stamp counter where there is one (constant-rate and in
 * step across CPUs on current x86), else CLOCK_MONOTONIC. */
static inline uint64_t ls_stats_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return ls_stats_now();
#endif
}

extern _Atomic int ls_stats_helper_wanted;
/* Ask for the helper (the signal's, or a fork child's export writer): it
 * starts on a lock call from the main executable that takes the hooks'
 * path.  The calling thread's countdown is cut so that its next lock takes
 * that path; other threads take it within a hold period (their inline
 * step never looks at the flag). */
static inline void ls_stats_want_helper(void)
{
	atomic_store_explicit(&ls_stats_helper_wanted, 1, memory_order_release);
	uint32_t *left = ls_stats_q.busy ? &ls_stats_q.parked : &ls_stats_q.hold_left;
	if (*left > 1)
		*left = 1;
}

#endif
