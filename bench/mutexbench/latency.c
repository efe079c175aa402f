/*
 * latency.c - reading the request histograms back (see latency.h).
 */
#include "latency.h"
#include "mutexbench.h"

void mb_latency_alloc(struct mb_latency *l)
{
	l->bins = mb_xcalloc(LAT_BINS, sizeof *l->bins);
	l->n = l->max = 0;
}

void mb_latency_merge(struct mb_latency *into, const struct mb_latency *from)
{
	for (unsigned b = 0; b < LAT_BINS; b++)
		into->bins[b] += from->bins[b];
	into->n += from->n;
	if (from->max > into->max)
		into->max = from->max;
}

/* The largest value that falls in bin b. */
static uint64_t bin_upper(unsigned b)
{
	if (b < LAT_SUB)
		return b;
	unsigned e = b / LAT_SUB + LAT_SUB_BITS - 1, sub = b % LAT_SUB;
	uint64_t width = 1ull << (e - LAT_SUB_BITS);
	return ((uint64_t)(LAT_SUB + sub) << (e - LAT_SUB_BITS)) + (width - 1);
}

uint64_t mb_latency_quantile(const struct mb_latency *l, double p)
{
	if (l->n == 0)
		return 0;
	double want = p * (double)l->n;
	uint64_t rank = (uint64_t)want;
	if ((double)rank < want)
		rank++;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned b = 0; b < LAT_BINS; b++) {
		seen += l->bins[b];
		if (seen >= rank) {
			uint64_t up = bin_upper(b);
			return up < l->max ? up : l->max;
		}
	}
	return l->max;
}
