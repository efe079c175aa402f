/*
 * main.c - mutexbench's run: set-up, the threads, the window, then the
 * results gathered, printed, and the exit status (1 when the lock did not
 * exclude, or a condvar queue lost items).  See mutexbench.h for the parts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "mutexbench.h"
#include "limit.h"
#include "report.h"
#include "shares.h"
#include "short_windows.h"
#include "ticks.h"
#include "window.h"

const char *const mb_mode_names[] = { "mutex", "trylock", "condvar", "mixed", "rwlock", "request" };

struct mb_options mb_opt = {
	.mode = M_MUTEX, .threads = 4, .locks = 1, .seconds = 1.0, .cs_work = 10,
	.ncs_work = 10, .seed = 1, .read_pct = 90, .warmup = 0.2,
};

struct mb_lock *mb_locks;
struct mb_cline *mb_lines;
struct mb_thread *mb_thr;
pthread_barrier_t mb_start_barrier, mb_end_barrier;
atomic_bool mb_stop;
atomic_bool mb_measuring;
atomic_int mb_first_ops;
_Atomic uint64_t mb_all_acquired_ns;
_Atomic uint64_t mb_start_at;
uint64_t mb_start_ns;
int mb_nproducers;
struct mb_window_clock mb_window_clock;

_Noreturn void mb_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("mutexbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

_Noreturn void mb_die(const char *what, int err)
{
	fprintf(stderr, "mutexbench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Clock c in ns; 0 if it cannot be read (a thread's CPU-time clock after
 * the thread is gone; never CLOCK_MONOTONIC). */
uint64_t mb_clock_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *mb_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		mb_die("calloc", ENOMEM);
	return p;
}

static void setup(void)
{
	int T = mb_opt.threads, K = mb_opt.locks;
	mb_nproducers = mb_opt.mode == M_CONDVAR ? T / 2 : 0;
	if (posix_memalign((void **)&mb_locks, 128, sizeof *mb_locks * (size_t)K) ||
	    posix_memalign((void **)&mb_thr, 128, sizeof *mb_thr * (size_t)T))
		mb_die("posix_memalign", ENOMEM);
	memset(mb_locks, 0, sizeof *mb_locks * (size_t)K);
	memset(mb_thr, 0, sizeof *mb_thr * (size_t)T);
	mb_lines = mb_xcalloc((size_t)K * (size_t)mb_opt.cs_lines, sizeof *mb_lines);
	for (int k = 0; k < K; k++) {
		pthread_mutex_init(&mb_locks[k].m, NULL);
		pthread_cond_init(&mb_locks[k].not_empty, NULL);
		pthread_cond_init(&mb_locks[k].not_full, NULL);
		pthread_rwlock_init(&mb_locks[k].rw, NULL);
		mb_locks[k].rng = mb_opt.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)k + 1;
	}
	pthread_barrier_init(&mb_start_barrier, NULL, (unsigned)T + 1);
	pthread_barrier_init(&mb_end_barrier, NULL, (unsigned)T);
}

static void start_threads(void)
{
	int T = mb_opt.threads;
	for (int i = 0; i < T; i++) {
		struct mb_thread *t = &mb_thr[i];
		t->id = i;
		/* Classes interleave (thread i in class i % n), so creation order,
		 * which can favour the first threads at the start, spreads evenly. */
		t->cls = mb_opt.nclasses ? i % mb_opt.nclasses : 0;
		t->cs_work = mb_opt.nclasses ? mb_opt.class_cs[t->cls] : mb_opt.cs_work;
		t->nice = mb_opt.nnice ? (int)mb_opt.nice_inc[i % mb_opt.nnice] : 0;
		t->rng = (mb_opt.seed + 1) * 0xBF58476D1CE4E5B9ULL + (uint64_t)i * 0x94D049BB133111EBULL + 1;
		t->samples = mb_xcalloc(SAMPLE_CAP, sizeof *t->samples);
		mb_short_windows_alloc(&t->sw, mb_opt.seconds, T);
		if (mb_opt.mode == M_REQUEST)
			mb_latency_alloc(&t->lat);
		int e = pthread_create(&t->tid, NULL, mb_worker, t);
		if (e)
			mb_die("pthread_create", e);
	}
}

/* Stop the threads and wait for them. */
static void stop_threads(void)
{
	atomic_store_explicit(&mb_stop, true, memory_order_release);
	if (mb_opt.mode == M_CONDVAR || mb_opt.mode == M_MIXED) {
		/* Wake every waiter so it sees stop.  Taking the mutex orders the
		 * broadcast after any waiter's check of the flag. */
		for (int k = 0; k < mb_opt.locks; k++) {
			pthread_mutex_lock(&mb_locks[k].m);
			pthread_cond_broadcast(&mb_locks[k].not_empty);
			pthread_cond_broadcast(&mb_locks[k].not_full);
			pthread_mutex_unlock(&mb_locks[k].m);
		}
	}
	for (int i = 0; i < mb_opt.threads; i++)
		pthread_join(mb_thr[i].tid, NULL);
}

/* Sampled acquire waits, every thread's merged: p50, p99, p99.9. */
static void gather_waits(struct mb_results *r)
{
	uint64_t nsamp = 0;
	for (int i = 0; i < mb_opt.threads; i++)
		nsamp += mb_thr[i].nsamples;
	uint64_t *all = mb_xcalloc(nsamp, sizeof *all);
	size_t n = 0;
	for (int i = 0; i < mb_opt.threads; i++) {
		memcpy(all + n, mb_thr[i].samples, mb_thr[i].nsamples * sizeof *all);
		n += mb_thr[i].nsamples;
	}
	qsort(all, n, sizeof *all, mb_cmp_u64);
	r->p50 = mb_percentile(all, n, 0.50);
	r->p99 = mb_percentile(all, n, 0.99);
	r->p999 = mb_percentile(all, n, 0.999);
	free(all);
}

/* Short windows and longest stretches. */
static void gather_short_windows(struct mb_results *r)
{
	int T = mb_opt.threads;
	const struct mb_short_windows **sws = mb_xcalloc((size_t)T, sizeof *sws);
	for (int i = 0; i < T; i++)
		sws[i] = &mb_thr[i].sw;
	r->ms1 = mb_short_windows_shares(sws, T, &mb_window_clock, 1);
	r->ms10 = mb_short_windows_shares(sws, T, &mb_window_clock, 10);
	r->longest_ns = mb_xcalloc((size_t)T, sizeof *r->longest_ns);
	mb_short_windows_longest_ns(sws, T, &mb_window_clock, r->longest_ns);
	uint64_t *sorted = mb_xcalloc((size_t)T, sizeof *sorted);
	memcpy(sorted, r->longest_ns, sizeof *sorted * (size_t)T);
	qsort(sorted, (size_t)T, sizeof *sorted, mb_cmp_u64);
	r->longest_max_ns = sorted[T - 1];
	r->longest_median_ns = T % 2 ? sorted[T / 2] : (sorted[T / 2 - 1] + sorted[T / 2]) / 2;
	free(sorted);
	free(sws);
}

/* Request latencies in ns: all requests merged, and each thread's p99. */
static void gather_requests(struct mb_results *r)
{
	int T = mb_opt.threads;
	struct mb_latency all;
	mb_latency_alloc(&all);
	r->req_thread_p99 = mb_xcalloc((size_t)T, sizeof *r->req_thread_p99);
	for (int i = 0; i < T; i++) {
		mb_latency_merge(&all, &mb_thr[i].lat);
		uint64_t p99 = mb_ticks_to_ns(&mb_window_clock, mb_latency_quantile(&mb_thr[i].lat, 0.99));
		r->req_thread_p99[i] = p99;
		if (p99 > r->req_worst_p99)
			r->req_worst_p99 = p99;
	}
	r->requests = all.n;
	r->req_p50 = mb_ticks_to_ns(&mb_window_clock, mb_latency_quantile(&all, 0.50));
	r->req_p99 = mb_ticks_to_ns(&mb_window_clock, mb_latency_quantile(&all, 0.99));
	r->req_p999 = mb_ticks_to_ns(&mb_window_clock, mb_latency_quantile(&all, 0.999));
	r->req_max = mb_ticks_to_ns(&mb_window_clock, all.max);
}

static void gather_classes(struct mb_results *r)
{
	mb_sum_classes(r->cls, r->wops, r->whold, r->so.total, r->sh.total);
	r->cls_min = r->cls_max = r->cls[0].hold_vs_equal;
	for (int k = 1; k < mb_opt.nclasses; k++) {
		if (r->cls[k].hold_vs_equal < r->cls_min) r->cls_min = r->cls[k].hold_vs_equal;
		if (r->cls[k].hold_vs_equal > r->cls_max) r->cls_max = r->cls[k].hold_vs_equal;
	}
}

static void gather(struct mb_results *r, const struct mb_window *w)
{
	int T = mb_opt.threads;
	r->w = w;
	r->wops = mb_xcalloc((size_t)T, sizeof *r->wops);
	r->whold = mb_xcalloc((size_t)T, sizeof *r->whold);
	r->wcpu = mb_xcalloc((size_t)T, sizeof *r->wcpu);
	uint64_t acq = 0, overlaps = 0;
	for (int i = 0; i < T; i++) {
		r->wops[i] = w->ops1[i] - w->ops0[i];
		r->whold[i] = w->hold1[i] - w->hold0[i];
		r->wcpu[i] = w->cpu1[i] > w->cpu0[i] ? w->cpu1[i] - w->cpu0[i] : 0;
		r->total_ops += atomic_load_explicit(&mb_thr[i].ops, memory_order_relaxed);
		acq += mb_thr[i].acq;
		overlaps += mb_thr[i].overlaps;
		r->produced += mb_thr[i].produced;
		r->consumed += mb_thr[i].consumed;
	}
	r->so = mb_shares_of(r->wops, T);
	r->sh = mb_shares_of(r->whold, T);
	r->sc = mb_shares_of(r->wcpu, T);
	/* The whole process's, main thread included (it sleeps through the
	 * window: one or two switches). */
	r->vcsw = (uint64_t)(w->ru1.ru_nvcsw - w->ru0.ru_nvcsw);
	r->ivcsw = (uint64_t)(w->ru1.ru_nivcsw - w->ru0.ru_nivcsw);
	if (mb_opt.nclasses)
		gather_classes(r);
	gather_waits(r);
	gather_short_windows(r);
	if (mb_opt.mode == M_REQUEST)
		gather_requests(r);

	/* Exclusion, over the whole run: every acquisition added exactly one
	 * to its lock's counter. */
	uint64_t counted = 0;
	for (int k = 0; k < mb_opt.locks; k++)
		counted += mb_locks[k].count;
	r->excl_ok = counted == acq && overlaps == 0;
	r->counted = counted;
	r->acq = acq;
	r->overlaps = overlaps;

	r->secs = (double)(w->end - w->start) / 1e9;
	r->tput = (double)r->so.total / r->secs;
	r->all_acquired = atomic_load_explicit(&mb_all_acquired_ns, memory_order_relaxed);
}

/* One run as the options say: the threads, the window, the results. */
static void run(struct mb_results *r, struct mb_window *w)
{
	mb_ticks_init();
	setup();
	start_threads();

	pthread_barrier_wait(&mb_start_barrier);
	mb_mark_start();
	mb_start_ns = atomic_load_explicit(&mb_start_at, memory_order_relaxed);
	mb_measure_window(w);
	uint64_t run_end = mb_now_ns();
	stop_threads();

	*r = (struct mb_results){ .run_end = run_end };
	gather(r, w);
}

int main(int argc, char **argv)
{
	mb_parse_args(argc, argv);
	/* --limit: the same run with one thread first, in a child of its own
	 * (limit.c), before this process starts any thread. */
	double alone = mb_opt.limit ? mb_limit_alone(run) : 0;
	struct mb_window w;
	struct mb_results r;
	run(&r, &w);
	if (mb_opt.limit) {
		r.limit = alone;
		r.limit_ratio = alone > 0 ? r.tput / alone : 0;
	}
	if (mb_opt.json)
		mb_report_json(&r);
	else
		mb_report_human(&r);
	fflush(stdout);

	if (!r.excl_ok) {
		fprintf(stderr, "mutexbench: mutual exclusion violated: counters sum to %llu "
		        "but %llu acquisitions were made (%llu lost updates), %llu overlapping "
		        "critical sections seen\n", (unsigned long long)r.counted,
		        (unsigned long long)r.acq, (unsigned long long)(r.acq - r.counted),
		        (unsigned long long)r.overlaps);
		return 1;
	}
	if (mb_opt.mode == M_CONDVAR && r.produced != r.consumed) {
		fprintf(stderr, "mutexbench: condvar queue lost items: produced=%llu consumed=%llu\n",
		        (unsigned long long)r.produced, (unsigned long long)r.consumed);
		return 1;
	}
	return 0;
}
