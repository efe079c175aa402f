/*
 * slice_share.h - proportional slices: a thread's slice scaled by its
 * nice value (LOCKSWAP_SLICE_SHARES=nice).
 *
 * u-SCL (Patel et al., EuroSys 2020) gives each thread lock usage in
 * proportion to its scheduling weight, not the same usage: a lock that
 * hands out equal slices to a thread the administrator niced down undoes
 * the nice value, as an unfair lock undoes equal ones.  Here a thread's
 * slice budget (hold time, and the wall limits derived from it; the
 * waiters' watch period is not scaled) is
 * LOCKSWAP_SLICE_US x 1.25^(main - own), where own is the thread's nice
 * value and main the main thread's: the ratio of the CFS weights of the
 * two nice values (each step about 1.25x), so that a thread's share of
 * the lock's hold time over a rotation follows its share of the CPU.
 * Relative to the main thread so that a program started under `nice`
 * as a whole keeps the slices it would have had.  The difference is
 * clamped to LS_SLICE_SHARE_MAX_STEPS either way (1.25^15 ~ 28x), so no
 * slice grows past the watch and wait bounds by more than that.
 *
 * The nice values come from getpriority (a thread's own on Linux, by
 * tid); each thread caches its factor for LS_SLICE_SHARE_REFRESH_NS, so a
 * re-nice takes effect within that.  Off (equal, the default), nothing
 * here runs.
 */
#ifndef LS_CORE_SLICE_SHARE_H
#define LS_CORE_SLICE_SHARE_H

#include <stdatomic.h>
#include <stdint.h>

#define LS_SLICE_SHARES_EQUAL 0u
#define LS_SLICE_SHARES_NICE 1u
#define LS_SLICE_SHARE_MAX_STEPS 15
#define LS_SLICE_SHARE_REFRESH_NS 10000000u /* 10 ms */

/* Option target (backends/slice.c settings): LS_SLICE_SHARES_*. */
extern _Atomic unsigned ls_slice_shares;

/* 1.25^steps in 16.16 fixed point, steps clamped to
 * [-LS_SLICE_SHARE_MAX_STEPS, LS_SLICE_SHARE_MAX_STEPS]. */
uint64_t ls_slice_share_factor(int steps);

/* The calling thread's slice budget for a base budget of `ticks`:
 * `ticks` itself unless LOCKSWAP_SLICE_SHARES=nice. */
uint64_t ls_slice_share_budget(uint64_t ticks);

#endif
