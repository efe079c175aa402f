/*
 * short_windows.h - fairness over short windows, recorded per op.
 *
 * The steady window's shares say who got the lock over the whole window;
 * they cannot tell a lock that serves every thread every millisecond from
 * one that gives each thread the lock for a few milliseconds in turn.  So
 * each thread counts its acquisitions per millisecond of the window (one
 * multiply, one increment), and remembers its longest stretch without an
 * acquisition.  Windows of 1 ms and 10 ms are cut from the counts after
 * the run, aligned on the window's start; only whole windows count, so
 * nothing from before the window opened (start-up) or after it closed
 * (wind-down) enters them.
 */
#ifndef MUTEXBENCH_SHORT_WINDOWS_H
#define MUTEXBENCH_SHORT_WINDOWS_H

#include <stdint.h>

#include "ticks.h"

/* Per-thread counters of all threads together, at most: past this the
 * window's later milliseconds are not counted (figures say how many were).
 * 256 MiB of address space, touched only as far as the window goes. */
#define SHORT_WINDOWS_TOTAL_MS (1u << 26)
/* Each thread's counters cover at least this many ms (65 s): a short
 * window that closes late is still counted whole. */
#define SHORT_WINDOWS_MIN_MS 65536u

struct mb_short_windows {
	uint32_t *per_ms;            /* acquisitions in each ms of the window */
	uint32_t nms;                /* ms counted */
	uint64_t last;               /* ticks: the last acquisition recorded (0: none) */
	uint64_t longest;            /* ticks: longest stretch without one, so far */
};

/* One acquisition at `now`, inside the window.  A stretch starts at the
 * thread's previous acquisition or at the window's start, whichever is
 * later, and ends here or at the window's end, whichever is earlier: `now`
 * may precede the start by the time it took this thread to see
 * `mb_measuring` set, and follow the end by the time it takes to see it
 * cleared.  (Counts past the end fall in milliseconds never read.) */
static inline void mb_short_windows_record(struct mb_short_windows *sw, const struct mb_window_clock *wc,
                                        uint64_t now)
{
	uint64_t since = now > wc->start ? now - wc->start : 0;
	uint64_t ms = (uint64_t)(((unsigned __int128)since * wc->ms_mul) >> 64);
	if (ms < sw->nms)
		sw->per_ms[ms]++;
	uint64_t end = atomic_load_explicit(&wc->end, memory_order_relaxed);
	uint64_t to = end && now > end ? end : now;
	uint64_t from = sw->last > wc->start ? sw->last : wc->start;
	if (to > from && to - from > sw->longest)
		sw->longest = to - from;
	sw->last = now;
}

/* Fairness over windows of one length. */
struct mb_window_shares {
	uint32_t windows;            /* whole windows of this length in the steady window */
	uint32_t idle;               /* those in which no thread acquired the lock */
	double min_share;            /* least (thread's acquisitions / mean) over the others, -1: none */
	double median_min_share;     /* the median over them of each window's least share */
};

/* Storage for a window of `seconds`, for each of `threads` threads. */
void mb_short_windows_alloc(struct mb_short_windows *sw, double seconds, int threads);

/* Shares over windows of `ms` milliseconds, the window having lasted
 * wc->start..wc->end; sws[i] is thread i's record. */
struct mb_window_shares mb_short_windows_shares(const struct mb_short_windows *const *sws, int n,
                                          const struct mb_window_clock *wc, uint32_t ms);

/* Each thread's longest stretch without an acquisition inside the window,
 * in ns, the stretch from its last acquisition to the window's end included. */
void mb_short_windows_longest_ns(const struct mb_short_windows *const *sws, int n,
                              const struct mb_window_clock *wc, uint64_t *out);

#endif
