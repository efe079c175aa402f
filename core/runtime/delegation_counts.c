#include "delegation_counts.h"

#include <stdatomic.h>

static _Atomic uint64_t n_sections, n_batches, n_granted, n_interrupted, n_kept;
static _Atomic uint64_t n_hist[LS_BATCH_BUCKETS];
static _Atomic uint64_t n_back[LS_BACK_REASONS];
static _Atomic uint32_t batch_bound;

static unsigned bucket(uint32_t n)
{
	unsigned b = 0;
	while (n > 1 && b + 1 < LS_BATCH_BUCKETS) {
		n >>= 1;
		b++;
	}
	return b;
}

void ls_delegation_set_batch_bound(uint32_t bound)
{
	atomic_store_explicit(&batch_bound, bound, memory_order_relaxed);
}

/* relaxed throughout: counters, read at exit or by a dump that tolerates
 * skew. */
void ls_delegation_count_batch(uint32_t sections, bool back, enum ls_home_reason why,
                               bool granted)
{
	if (sections) {
		atomic_fetch_add_explicit(&n_sections, sections, memory_order_relaxed);
		atomic_fetch_add_explicit(&n_batches, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&n_hist[bucket(sections)], 1, memory_order_relaxed);
	}
	if (back)
		atomic_fetch_add_explicit(&n_back[why], 1, memory_order_relaxed);
	if (granted)
		atomic_fetch_add_explicit(&n_granted, 1, memory_order_relaxed);
}

void ls_delegation_count_interrupted(void)
{
	atomic_fetch_add_explicit(&n_interrupted, 1, memory_order_relaxed);
}

void ls_delegation_count_signal_kept(void)
{
	atomic_fetch_add_explicit(&n_kept, 1, memory_order_relaxed);
}

void ls_delegation_counts(struct ls_delegation_counts *out)
{
	out->batch_bound = atomic_load_explicit(&batch_bound, memory_order_relaxed);
	out->sections = atomic_load_explicit(&n_sections, memory_order_relaxed);
	out->batches = atomic_load_explicit(&n_batches, memory_order_relaxed);
	out->granted = atomic_load_explicit(&n_granted, memory_order_relaxed);
	out->interrupted = atomic_load_explicit(&n_interrupted, memory_order_relaxed);
	out->signals_kept = atomic_load_explicit(&n_kept, memory_order_relaxed);
	for (unsigned i = 0; i < LS_BATCH_BUCKETS; i++)
		out->batch_hist[i] = atomic_load_explicit(&n_hist[i], memory_order_relaxed);
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		out->handbacks[i] = atomic_load_explicit(&n_back[i], memory_order_relaxed);
}
