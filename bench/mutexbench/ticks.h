/*
 * ticks.h - the per-op clock of the timed loop.
 *
 * Every op reads a clock once (short windows, request latencies), so the
 * clock must cost next to nothing: the TSC on x86 where the kernel keeps
 * its own time with it (then it is invariant and in step across CPUs; a
 * read is about 25 cycles, where clock_gettime through the vDSO is about
 * twice that), CLOCK_MONOTONIC in ns anywhere else.  Ticks become ns by a
 * ratio calibrated against CLOCK_MONOTONIC from the program's start to the
 * window's opening (at least TICKS_CALIBRATION_NS).
 */
#ifndef MUTEXBENCH_TICKS_H
#define MUTEXBENCH_TICKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TICKS_CALIBRATION_NS 2000000ull

extern bool mb_ticks_are_tsc;

uint64_t mb_ticks_ns_clock(void);

static inline uint64_t mb_ticks_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (mb_ticks_are_tsc)
		return __builtin_ia32_rdtsc();
#endif
	return mb_ticks_ns_clock();
}

/* The window on the ticks clock, and how to cut it into milliseconds:
 * ms = (ticks since start * ms_mul) >> 64, a multiply instead of a
 * division in the timed loop.  Written by the main thread before it sets
 * `mb_measuring`, read-only afterwards, except `end`: 0 until the window
 * closes, then its end, set before `mb_measuring` is cleared, so that a
 * thread still recording then can cut its stretch there. */
struct mb_window_clock {
	uint64_t start;              /* ticks */
	_Atomic uint64_t end;        /* ticks; 0 while the window is open */
	uint64_t ms_mul;             /* 2^64 / ticks per ms */
	double ns_per_tick;
};

/* Chooses the clock and takes the calibration's first reading: call once,
 * before any thread is started. */
void mb_ticks_init(void);

/* The calibration's second reading (waiting until TICKS_CALIBRATION_NS
 * have passed since ticks_init, if they have not) and the window's start:
 * fills *wc but its end. */
void mb_ticks_open_window(struct mb_window_clock *wc);

static inline uint64_t mb_ticks_to_ns(const struct mb_window_clock *wc, uint64_t ticks)
{
	return (uint64_t)((double)ticks * wc->ns_per_tick + 0.5);
}

#endif
