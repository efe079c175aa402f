/*
 * shares.c - fairness figures and percentiles (see shares.h).
 */
#include <string.h>

#include "mutexbench.h"
#include "shares.h"

int mb_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t mb_percentile(const uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	double want = p * (double)n;
	size_t r = (size_t)want;
	if ((double)r < want)
		r++;                 /* ceil without libm */
	return v[r ? r - 1 : 0];
}

struct mb_shares mb_shares_of(const uint64_t *x, int n)
{
	struct mb_shares s = { 0 };
	uint64_t lo = UINT64_MAX, hi = 0;
	double sumsq = 0;
	for (int i = 0; i < n; i++) {
		s.total += x[i];
		sumsq += (double)x[i] * (double)x[i];
		if (x[i] < lo) lo = x[i];
		if (x[i] > hi) hi = x[i];
	}
	if (s.total == 0)
		return s;            /* nothing done: every figure 0 */
	double mean = (double)s.total / n;
	s.min_share = (double)lo / mean;
	s.max_share = (double)hi / mean;
	s.min_max = (double)lo / (double)hi;
	s.jain = (double)s.total * (double)s.total / (n * sumsq);
	return s;
}

void mb_sum_classes(struct mb_class_sum *c, const uint64_t *ops, const uint64_t *hold,
                 uint64_t ops_total, uint64_t hold_total)
{
	int T = mb_opt.threads;
	memset(c, 0, sizeof *c * (size_t)mb_opt.nclasses);
	for (int i = 0; i < T; i++) {
		c[mb_thr[i].cls].threads++;
		c[mb_thr[i].cls].ops += ops[i];
		c[mb_thr[i].cls].hold += hold[i];
	}
	for (int k = 0; k < mb_opt.nclasses; k++) {
		double equal = (double)c[k].threads / T;
		c[k].ops_vs_equal = ops_total ? (double)c[k].ops / (double)ops_total / equal : 0;
		c[k].hold_vs_equal = hold_total ? (double)c[k].hold / (double)hold_total / equal : 0;
	}
}

