/*
 * collect.c - a snapshot of the totals: per-thread counters summed
 * per slot (live blocks read racily, exited records, folded threads),
 * fairness sums, and the slots ranked for the summary.
 *
 * Fairness of a mutex, and of each mode of an rwlock (its read and its
 * write record), is over the threads that competed for it: those that
 * spent at least 1/16 of the mean waiting time of the threads that waited
 * for it (the time of their contended acquisitions, every one measured:
 * ls_stats_ticks, record.c).  A thread that only took the lock when nobody
 * else wanted it (a setup thread's few acquisitions before the workers
 * start), or that found it held once in a run (LevelDB's compaction
 * thread), got all it asked for; counting it as a competitor would make
 * its small demand look like starvation.  A starved thread waits more than
 * the others, so it always counts.  When no thread waited, the threads
 * whose trylock failed; when none did either, there was no competition,
 * and the fairness is over every thread that acquired it.
 * Over those threads: min and max share of their acquisitions, and Jain's
 * index J = (sum x)^2 / (n * sum x^2), 1 when every thread got the same
 * number, 1/n when one thread got them all.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "report.h"

uint64_t ls_snap_thread_count(const struct ls_stats_thread *t, uint32_t slot, int k)
{
	if (!t->count || slot >= atomic_load_explicit(&t->hi, memory_order_relaxed))
		return 0;
	return atomic_load_explicit(&t->count[slot].c[k], memory_order_relaxed);
}

const struct ls_stats_exited_entry *ls_snap_exited_entry(const struct ls_stats_exited *x,
                                                         uint32_t slot)
{
	uint32_t lo = 0, hi = x->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (x->e[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->e[lo].slot == slot ? &x->e[lo] : NULL;
}

static void share_add(struct ls_snap_share *f, uint64_t a)
{
	if (!f->n || a < f->min)
		f->min = a;
	if (a > f->max)
		f->max = a;
	f->sum += a;
	f->sumsq += (double)a * (double)a;
	f->n++;
}

#define LS_WANT_FRACTION 16 /* competing: waited >= 1/16 of the mean wait */

bool ls_snap_competing(const struct ls_snap_lock *l, const uint64_t *c, uint64_t want)
{
	if (!c[LS_C_ACQ] || l->type == LS_REC_COND)
		return false;
	if (l->want_n)
		return want * LS_WANT_FRACTION * l->want_n >= l->want_sum;
	return c[LS_C_TRYFAIL] != 0;
}

uint64_t ls_snap_thread_want(const struct ls_stats_thread *t, uint32_t slot)
{
	if (!t->count || slot >= atomic_load_explicit(&t->hi, memory_order_relaxed))
		return 0;
	return atomic_load_explicit(&t->count[slot].want, memory_order_relaxed);
}

/* First pass: the waiting times, which decide who competed. */
static void add_want(struct ls_snap_lock *l, uint64_t want)
{
	if (want) {
		l->want_sum += want;
		l->want_n++;
	}
}

static void add_thread(struct ls_snap_lock *l, const uint64_t *c, uint64_t want)
{
	for (int k = 0; k < LS_C_N; k++)
		l->c[k] += c[k];
	uint64_t a = c[LS_C_ACQ];
	if (l->type == LS_REC_COND || !a)
		return;
	share_add(&l->all, a);
	if (ls_snap_competing(l, c, want))
		share_add(&l->competing, a);
}

const struct ls_snap_share *ls_snap_fairness(const struct ls_snap_lock *l)
{
	return l->competing.n ? &l->competing : &l->all;
}

double ls_snap_share(const struct ls_snap_share *f, uint64_t a)
{
	return f->n && f->sum ? (double)a / (double)f->sum : 0;
}

uint64_t ls_snap_waits(const struct ls_snap *s, uint32_t slot)
{
	const struct ls_snap_lock *l = &s->lock[slot];
	if (l->type == LS_REC_COND)
		return l->c[LS_C_WAIT];
	return l->c[LS_C_CONTENDED] +
	       atomic_load_explicit(&ls_stats_rec(slot)->timeouts, memory_order_relaxed);
}

double ls_stats_jain(const struct ls_snap_lock *l)
{
	const struct ls_snap_share *f = ls_snap_fairness(l);
	if (!f->n || f->sumsq <= 0)
		return 0;
	double sum = (double)f->sum;
	return sum * sum / ((double)f->n * f->sumsq);
}

/* The q-quantile of the timed samples, interpolated inside its log2
 * bucket; the nearest-rank sample is the largest one (one sample, or q
 * close enough to 1) is max_ns itself, exactly, so that a lock waited on
 * once shows one time as p50, p99 and max (interpolated, its p50 was the
 * middle of the bucket). */
double ls_stats_percentile(const struct ls_stats_timing *t, double q)
{
	uint64_t h[LS_STATS_BUCKETS], total = 0;
	for (int b = 0; b < LS_STATS_BUCKETS; b++)
		total += h[b] = atomic_load_explicit(&t->hist[b], memory_order_relaxed);
	if (!total)
		return 0;
	double want = q * (double)total, seen = 0;
	double max = (double)atomic_load_explicit(&t->max_ns, memory_order_relaxed);
	if (max > 0 && want > (double)(total - 1))
		return max;
	for (int b = 0; b < LS_STATS_BUCKETS; b++) {
		if (!h[b] || seen + (double)h[b] < want) {
			seen += (double)h[b];
			continue;
		}
		double lo = b ? (double)(1ull << b) : 0, hi = (double)(2ull << b);
		double v = lo + (hi - lo) * (want - seen) / (double)h[b];
		return v > max && max > 0 ? max : v;
	}
	return max;
}

/* Rank by estimated wait, then waits, then the first counter. */
static int rank(const struct ls_snap_lock *x, const struct ls_snap_lock *y)
{
	if (x->est_wait_ns != y->est_wait_ns)
		return x->est_wait_ns < y->est_wait_ns ? 1 : -1;
	int k = x->type == LS_REC_COND ? LS_C_WAIT : LS_C_CONTENDED;
	if (x->c[k] != y->c[k])
		return x->c[k] < y->c[k] ? 1 : -1;
	if (x->c[0] != y->c[0])
		return x->c[0] < y->c[0] ? 1 : -1;
	return 0;
}

static int by_wait(const void *a, const void *b, void *arg)
{
	const struct ls_snap *s = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int r = rank(&s->lock[i], &s->lock[j]);
	return r ? r : i < j ? -1 : 1;
}

/* An rwlock's two records together: both modes' waits and counts. */
static struct ls_snap_lock rw_total(const struct ls_snap *s, uint32_t slot)
{
	struct ls_snap_lock t = s->lock[slot];
	const struct ls_snap_lock *w = &s->lock[slot + 1];
	t.est_wait_ns += w->est_wait_ns;
	for (int k = 0; k < LS_C_N; k++)
		t.c[k] += w->c[k];
	return t;
}

static int by_rw_wait(const void *a, const void *b, void *arg)
{
	const struct ls_snap *s = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	struct ls_snap_lock x = rw_total(s, i), y = rw_total(s, j);
	int r = rank(&x, &y);
	return r ? r : i < j ? -1 : 1;
}

bool ls_snap_take(struct ls_snap *s)
{
	memset(s, 0, sizeof *s);
	s->now_ns = ls_stats_now();
	uint32_t n = atomic_load_explicit(&ls_stats_next_slot, memory_order_relaxed);
	if (n > LS_STATS_MAX_SLOTS)
		n = LS_STATS_MAX_SLOTS;
	s->nslots = n;
	s->map_bytes = (size_t)n * (sizeof(struct ls_snap_lock) + 3 * sizeof(uint32_t)) + 4096;
	void *p = mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	s->map = p;
	s->lock = p;
	s->mutexes = (uint32_t *)(s->lock + n);
	s->rwlocks = s->mutexes + n;
	s->conds = s->rwlocks + n;
	for (uint32_t i = 1; i < n; i++)
		s->lock[i].type = (uint8_t)(atomic_load_explicit(&ls_stats_rec(i)->key,
		                                                 memory_order_acquire) & 3);
	uint64_t c[LS_C_N];
	/* Two passes: the waiting times first (who competed is decided
	 * against their mean), then the counters and shares.  A thread that
	 * moves from live to exited in between may be seen twice or not at
	 * all, as in any racy snapshot. */
	for (int pass = 0; pass < 2; pass++) {
		for (struct ls_stats_thread *t = ls_stats_threads(); t; t = t->next) {
			if (atomic_load_explicit(&t->state, memory_order_acquire) != LS_ST_LIVE)
				continue;
			s->threads_live += pass;
			uint32_t hi = atomic_load_explicit(&t->hi, memory_order_relaxed);
			for (uint32_t i = 1; i < hi && i < n; i++) {
				uint64_t want = atomic_load_explicit(&t->count[i].want, memory_order_relaxed);
				if (!pass) {
					add_want(&s->lock[i], want);
					continue;
				}
				for (int k = 0; k < LS_C_N; k++)
					c[k] = atomic_load_explicit(&t->count[i].c[k], memory_order_relaxed);
				add_thread(&s->lock[i], c, want);
			}
		}
		for (struct ls_stats_exited *x = ls_stats_exited_list(); x; x = x->next) {
			s->threads_exited += pass;
			for (uint32_t j = 0; j < x->n; j++) {
				if (x->e[j].slot >= n)
					continue;
				if (!pass)
					add_want(&s->lock[x->e[j].slot], x->e[j].want);
				else
					add_thread(&s->lock[x->e[j].slot], x->e[j].c, x->e[j].want);
			}
		}
	}
	for (uint32_t i = 1; i < n; i++) {
		struct ls_snap_lock *l = &s->lock[i];
		struct ls_stats_lock *r = ls_stats_rec(i);
		for (int k = 0; k < LS_C_N; k++)
			l->c[k] += atomic_load_explicit(&r->retired[k], memory_order_relaxed);
		uint64_t samples = atomic_load_explicit(&r->wait.samples, memory_order_relaxed);
		uint64_t waits = ls_snap_waits(s, i);
		double total = (double)atomic_load_explicit(&r->wait.total_ns, memory_order_relaxed);
		l->est_wait_ns = samples ? total * (double)(waits > samples ? waits : samples) / (double)samples
		                         : 0;
		l->active = l->type && (l->c[0] | l->c[1] | l->c[2] | l->c[3] | samples |
		                        atomic_load_explicit(&r->hold.samples, memory_order_relaxed) |
		                        atomic_load_explicit(&r->timeouts, memory_order_relaxed)) != 0;
		if (!l->active)
			continue;
		if (l->type == LS_REC_MUTEX)
			s->mutexes[s->nmutex++] = i;
		else if (l->type == LS_REC_COND)
			s->conds[s->ncond++] = i;
	}
	/* An rwlock is listed once, by its read slot, if either mode was used
	 * (both records exist once the key of the first is seen). */
	for (uint32_t i = 1; i + 1 < n; i++)
		if (s->lock[i].type == LS_REC_RWLOCK && !ls_stats_rec(i)->rw_write &&
		    (s->lock[i].active || s->lock[i + 1].active))
			s->rwlocks[s->nrwlock++] = i;
	qsort_r(s->mutexes, s->nmutex, sizeof *s->mutexes, by_wait, s);
	qsort_r(s->rwlocks, s->nrwlock, sizeof *s->rwlocks, by_rw_wait, s);
	qsort_r(s->conds, s->ncond, sizeof *s->conds, by_wait, s);
	return true;
}

void ls_snap_free(struct ls_snap *s)
{
	if (s->map)
		munmap(s->map, s->map_bytes);
	s->map = NULL;
}
