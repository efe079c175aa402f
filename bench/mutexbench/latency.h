/*
 * latency.h - request latencies, every one of them, in a per-thread
 * log-linear histogram: values below 2^LAT_SUB_BITS ticks exactly, above
 * that 2^LAT_SUB_BITS bins per power of two, so a bin is at most 1/32 of
 * its values wide.  Recording is a count-leading-zeros, two shifts and an
 * increment: no allocation, no sampling, constant memory (15 KiB a
 * thread).  Percentiles are read back as the upper edge of their bin
 * (never below the true value, at most ~3% above), capped at the exact max.
 */
#ifndef MUTEXBENCH_LATENCY_H
#define MUTEXBENCH_LATENCY_H

#include <stdint.h>

#define LAT_SUB_BITS 5
#define LAT_SUB (1u << LAT_SUB_BITS)
#define LAT_BINS ((64 - LAT_SUB_BITS + 1) * LAT_SUB)

struct mb_latency {
	uint64_t *bins;              /* LAT_BINS counts, in ticks */
	uint64_t n, max;             /* requests, and the longest (ticks) */
};

static inline unsigned mb_latency_bin(uint64_t v)
{
	if (v < LAT_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);    /* e >= LAT_SUB_BITS */
	unsigned sub = (unsigned)(v >> (e - LAT_SUB_BITS)) & (LAT_SUB - 1);
	return (e - LAT_SUB_BITS + 1) * LAT_SUB + sub;
}

static inline void mb_latency_record(struct mb_latency *l, uint64_t ticks)
{
	l->bins[mb_latency_bin(ticks)]++;
	l->n++;
	if (ticks > l->max)
		l->max = ticks;
}

void mb_latency_alloc(struct mb_latency *l);

/* into += from (bins, count and max). */
void mb_latency_merge(struct mb_latency *into, const struct mb_latency *from);

/* The nearest-rank p-quantile (0 < p <= 1) in ticks; 0 with no requests. */
uint64_t mb_latency_quantile(const struct mb_latency *l, double p);

#endif
