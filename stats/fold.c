/*
 * fold.c - which destroyed condvars the JSON writes as one record.
 *
 * A program that keeps a condvar in a short-lived object (LevelDB puts one
 * in every queued writer, on the stack) leaves a record per object that
 * waited or was signalled: thousands per second, each a few hundred bytes
 * of JSON about an address that no longer means anything.  Destroyed
 * condvars first used at the same site and served alike are written as
 * one record (json.c): counts summed, wait histograms merged, "objects"
 * saying how many.  Only condvars: a mutex's fairness is over the threads
 * of one object and does not add up across objects, so destroyed mutexes
 * keep their records.
 *
 * Groups are found by sorting the destroyed condvars by (site, served by
 * glibc, rank in s->conds); the member ranked first (the most waited-on)
 * leads, and the record is written where it stands.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "report.h"

struct by_site {
	const uint32_t *rank;
};

static int cmp_site(const void *a, const void *b, void *arg)
{
	const struct by_site *k = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct ls_stats_lock *ri = ls_stats_rec(i), *rj = ls_stats_rec(j);
	if (ri->site != rj->site)
		return ri->site < rj->site ? -1 : 1;
	if (ri->glibc != rj->glibc)
		return ri->glibc < rj->glibc ? -1 : 1;
	return k->rank[i] < k->rank[j] ? -1 : k->rank[i] > k->rank[j];
}

bool ls_fold_condvars(const struct ls_snap *s, struct ls_fold *f)
{
	memset(f, 0, sizeof *f);
	size_t n = s->nslots;
	/* next[], rank[] and the sorted slots, then role[] */
	f->bytes = n * (3 * sizeof(uint32_t) + 1) + 64;
	void *p = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		f->map = NULL;
		return false;
	}
	f->map = p;
	f->next = p;
	uint32_t *rank = f->next + n, *sorted = rank + n;
	f->role = (uint8_t *)(sorted + n);
	uint32_t m = 0;
	for (uint32_t i = 0; i < s->ncond; i++) {
		uint32_t slot = s->conds[i];
		rank[slot] = i;
		if (atomic_load_explicit(&ls_stats_rec(slot)->destroyed, memory_order_relaxed))
			sorted[m++] = slot;
	}
	struct by_site key = { rank };
	qsort_r(sorted, m, sizeof *sorted, cmp_site, &key);
	for (uint32_t a = 0, b; a < m; a = b) {
		const struct ls_stats_lock *lead = ls_stats_rec(sorted[a]);
		for (b = a + 1; b < m && ls_stats_rec(sorted[b])->site == lead->site &&
		                ls_stats_rec(sorted[b])->glibc == lead->glibc; b++)
			;
		if (b - a < 2)
			continue;
		f->role[sorted[a]] = LS_FOLD_LEADS;
		for (uint32_t k = a; k < b; k++) {
			if (k > a)
				f->role[sorted[k]] = LS_FOLD_MEMBER;
			f->next[sorted[k]] = k + 1 < b ? sorted[k + 1] : 0;
		}
	}
	return true;
}

void ls_fold_free(struct ls_fold *f)
{
	if (f->map)
		munmap(f->map, f->bytes);
	f->map = NULL;
}
