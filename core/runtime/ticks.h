/*
 * ticks.h - a cheap, monotonic-enough clock for accounting how long a
 * lock is held: the CPU's time-stamp counter where there is one.
 *
 * Accounting a lock slice (core/wrap/slice.h) times the owner's holds
 * (every one of a slice's first 32, then about one in 16), so
 * clock_gettime's 20-30 ns would cost more than a short critical
 * section.  rdtsc costs a few ns (~10 on the project's VM).  The
 * counter is constant-rate and synchronised across CPUs on every x86-64
 * Linux has run on since Nehalem (the kernel's `constant_tsc
 * nonstop_tsc`); where it is not, the worst a backwards step can do is
 * make one hold look empty, which callers clamp (ls_ticks_since).
 * Elsewhere the monotonic clock in ns.
 *
 * Units: ls_ticks_per_us() converts, measured once against
 * CLOCK_MONOTONIC over about 200 us (a 1% error is irrelevant to budgets
 * of hundreds of microseconds).
 */
#ifndef LS_CORE_TICKS_H
#define LS_CORE_TICKS_H

#include <stdint.h>

#include "timespec.h"

static inline uint64_t ls_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return ls_now_ns(CLOCK_MONOTONIC);
#endif
}

/* The same counter, read once every earlier instruction has completed
 * (lfence then rdtsc): what it times is the work before it, not however
 * much of that the CPU has got through out of order.  A few ns more than
 * ls_ticks. */
static inline uint64_t ls_ticks_ordered(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
#else
	return ls_now_ns(CLOCK_MONOTONIC);
#endif
}

/* Ticks from `then` to now, 0 if the counter appears to have gone back
 * (a thread moved to a CPU whose counter lags). */
static inline uint64_t ls_ticks_since(uint64_t then, uint64_t now)
{
	return now > then ? now - then : 0;
}

/* Ticks per microsecond (>= 1), measured on first use. */
uint64_t ls_ticks_per_us(void);

#endif
