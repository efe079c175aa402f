/*
 * shares.h - fairness figures of per-thread amounts (ops, hold time, CPU
 * time), per-class sums, and percentiles of sorted samples.
 */
#ifndef MUTEXBENCH_SHARES_H
#define MUTEXBENCH_SHARES_H

#include <stddef.h>
#include <stdint.h>

/* Fairness of per-thread amounts x[0..n): share = x / mean. */
struct mb_shares {
	uint64_t total;
	double min_share, max_share, min_max, jain;
};

struct mb_shares mb_shares_of(const uint64_t *x, int n);

/* Per class: its threads, ops and hold time in the window, and its shares
 * relative to equal: (class share) / (class threads / threads), 1.0 when
 * the class got exactly its headcount's part. */
struct mb_class_sum {
	int threads;
	uint64_t ops, hold;
	double ops_vs_equal, hold_vs_equal;
};

void mb_sum_classes(struct mb_class_sum *c, const uint64_t *ops, const uint64_t *hold,
                 uint64_t ops_total, uint64_t hold_total);

int mb_cmp_u64(const void *a, const void *b);

/* Nearest-rank percentile of a sorted array; 0 when there are no samples. */
uint64_t mb_percentile(const uint64_t *v, size_t n, double p);

#endif
