/*
 * delegation_counts.h - what delegation did, for the statistics and the
 * tests: sections run by a delegate, batches by size, hand-overs to a
 * waiter's own thread, and contexts sent home early, by reason
 * (home.h's enum ls_home_reason).  Relaxed counters: a dump tolerates skew.
 */
#ifndef LS_CORE_DELEGATION_COUNTS_H
#define LS_CORE_DELEGATION_COUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "home.h"

#define LS_BATCH_BUCKETS 8 /* batch sizes 1, 2-3, 4-7, ..., 128+ */

struct ls_delegation_counts {
	uint64_t sections;           /* critical sections run by a delegate */
	uint64_t batches;            /* batches with at least one section */
	uint64_t batch_hist[LS_BATCH_BUCKETS];
	uint64_t handbacks[LS_BACK_REASONS];
	uint64_t granted;            /* hand-overs to a waiter's own thread */
	uint64_t interrupted;        /* waiters taken out of a queue by a signal */
	uint64_t signals_kept;       /* signals kept for a delegate while it hosted */
	uint32_t batch_bound;        /* the delegating lock's bound on sections per batch */
};

/* The delegating lock's bound on sections per batch (core/delegation/ces.c
 * sets it when it is chosen; 0 = no delegating lock). */
void ls_delegation_set_batch_bound(uint32_t bound);

/* Sums since start. */
void ls_delegation_counts(struct ls_delegation_counts *out);

/* Counted once per batch by the delegate. */
void ls_delegation_count_batch(uint32_t sections, bool back, enum ls_home_reason why,
                               bool granted);
/* Counted by signal routing (home_signal.c): async-signal-safe. */
void ls_delegation_count_interrupted(void);
void ls_delegation_count_signal_kept(void);

#endif
