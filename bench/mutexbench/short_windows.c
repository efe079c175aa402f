/*
 * short_windows.c - the short windows' figures, after the run (see
 * short_windows.h).
 */
#include <math.h>
#include <stdlib.h>

#include "mutexbench.h"
#include "shares.h"
#include "short_windows.h"

void mb_short_windows_alloc(struct mb_short_windows *sw, double seconds, int threads)
{
	/* Twice the window's ms, and at least SHORT_WINDOWS_MIN_MS: on a
	 * loaded machine the main thread that closes the window can wake late
	 * (a 0.3 s window once lasted 0.96 s here), and the window, and its
	 * `seconds`, with it.  calloc maps counters this large from the
	 * kernel's zero pages: those never touched cost nothing. */
	double want = ceil(seconds * 1000.0) * 2 + 100;
	if (want < SHORT_WINDOWS_MIN_MS)
		want = SHORT_WINDOWS_MIN_MS;
	double cap = (double)(SHORT_WINDOWS_TOTAL_MS / (unsigned)threads);
	sw->nms = (uint32_t)(want < cap ? want : cap);
	sw->per_ms = mb_xcalloc(sw->nms, sizeof *sw->per_ms);
}

/* Whole ms in the window that every thread counted. */
static uint32_t counted_ms(const struct mb_short_windows *const *sws, int n,
                           const struct mb_window_clock *wc)
{
	uint64_t end = atomic_load_explicit(&wc->end, memory_order_relaxed);
	uint64_t len = end > wc->start ? end - wc->start : 0;
	uint64_t ms = (uint64_t)(((unsigned __int128)len * wc->ms_mul) >> 64);
	for (int i = 0; i < n; i++)
		if (ms > sws[i]->nms)
			ms = sws[i]->nms;
	return (uint32_t)ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct mb_window_shares mb_short_windows_shares(const struct mb_short_windows *const *sws, int n,
                                          const struct mb_window_clock *wc, uint32_t ms)
{
	struct mb_window_shares ws = { 0, 0, -1, -1 };
	ws.windows = counted_ms(sws, n, wc) / ms;
	double *least = mb_xcalloc(ws.windows, sizeof *least);
	uint32_t busy = 0;
	for (uint32_t w = 0; w < ws.windows; w++) {
		uint64_t total = 0, lo = UINT64_MAX;
		for (int i = 0; i < n; i++) {
			uint64_t c = 0;
			for (uint32_t k = w * ms; k < (w + 1) * ms; k++)
				c += sws[i]->per_ms[k];
			total += c;
			if (c < lo)
				lo = c;
		}
		if (total == 0) {
			ws.idle++;           /* no share to speak of: nobody got the lock */
			continue;
		}
		least[busy++] = (double)lo * n / (double)total;
	}
	if (busy) {
		qsort(least, busy, sizeof *least, cmp_double);
		ws.min_share = least[0];
		ws.median_min_share = busy % 2 ? least[busy / 2] :
		                      (least[busy / 2 - 1] + least[busy / 2]) / 2;
	}
	free(least);
	return ws;
}

void mb_short_windows_longest_ns(const struct mb_short_windows *const *sws, int n,
                              const struct mb_window_clock *wc, uint64_t *out)
{
	for (int i = 0; i < n; i++) {
		const struct mb_short_windows *sw = sws[i];
		uint64_t longest = sw->longest;
		uint64_t end = atomic_load_explicit(&wc->end, memory_order_relaxed);
		uint64_t from = sw->last > wc->start ? sw->last : wc->start;
		if (end > from && end - from > longest)
			longest = end - from;
		out[i] = mb_ticks_to_ns(wc, longest);
	}
}
