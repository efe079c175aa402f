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

const char *const mode_names[] = { "mutex", "trylock", "condvar", "mixed", "rwlock", "request" };

struct options opt = {
	.mode = M_MUTEX, .threads = 4, .locks = 1, .seconds = 1.0, .cs_work = 10,
	.ncs_work = 10, .seed = 1, .read_pct = 90, .warmup = 0.2,
};

struct lock *locks;
struct cline *lines;
struct thread *thr;
pthread_barrier_t start_barrier, end_barrier;
atomic_bool stop;
atomic_bool measuring;
atomic_int first_ops;
_Atomic uint64_t all_acquired_ns;
_Atomic uint64_t start_at;
uint64_t start_ns;
int nproducers;
struct window_clock window_clock;

_Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("mutexbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

_Noreturn void die(const char *what, int err)
{
	fprintf(stderr, "mutexbench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Clock c in ns; 0 if it cannot be read (a thread's CPU-time clock after
 * the thread is gone; never CLOCK_MONOTONIC). */
uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("calloc", ENOMEM);
	return p;
}

static void setup(void)
{
	int T = opt.threads, K = opt.locks;
	nproducers = opt.mode == M_CONDVAR ? T / 2 : 0;
	if (posix_memalign((void **)&locks, 128, sizeof *locks * (size_t)K) ||
	    posix_memalign((void **)&thr, 128, sizeof *thr * (size_t)T))
		die("posix_memalign", ENOMEM);
	memset(locks, 0, sizeof *locks * (size_t)K);
	memset(thr, 0, sizeof *thr * (size_t)T);
	lines = xcalloc((size_t)K * (size_t)opt.cs_lines, sizeof *lines);
	for (int k = 0; k < K; k++) {
		pthread_mutex_init(&locks[k].m, NULL);
		pthread_cond_init(&locks[k].not_empty, NULL);
		pthread_cond_init(&locks[k].not_full, NULL);
		pthread_rwlock_init(&locks[k].rw, NULL);
		locks[k].rng = opt.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)k + 1;
	}
	pthread_barrier_init(&start_barrier, NULL, (unsigned)T + 1);
	pthread_barrier_init(&end_barrier, NULL, (unsigned)T);
}

static void start_threads(void)
{
	int T = opt.threads;
	for (int i = 0; i < T; i++) {
		struct thread *t = &thr[i];
		t->id = i;
		/* Classes interleave (thread i in class i % n), so creation order,
		 * which can favour the first threads at the start, spreads evenly. */
		t->cls = opt.nclasses ? i % opt.nclasses : 0;
		t->cs_work = opt.nclasses ? opt.class_cs[t->cls] : opt.cs_work;
		t->nice = opt.nnice ? (int)opt.nice_inc[i % opt.nnice] : 0;
		t->rng = (opt.seed + 1) * 0xBF58476D1CE4E5B9ULL + (uint64_t)i * 0x94D049BB133111EBULL + 1;
		t->samples = xcalloc(SAMPLE_CAP, sizeof *t->samples);
		short_windows_alloc(&t->sw, opt.seconds, T);
		if (opt.mode == M_REQUEST)
			latency_alloc(&t->lat);
		int e = pthread_create(&t->tid, NULL, worker, t);
		if (e)
			die("pthread_create", e);
	}
}

/* Stop the threads and wait for them. */
static void stop_threads(void)
{
	atomic_store_explicit(&stop, true, memory_order_release);
	if (opt.mode == M_CONDVAR || opt.mode == M_MIXED) {
		/* Wake every waiter so it sees stop.  Taking the mutex orders the
		 * broadcast after any waiter's check of the flag. */
		for (int k = 0; k < opt.locks; k++) {
			pthread_mutex_lock(&locks[k].m);
			pthread_cond_broadcast(&locks[k].not_empty);
			pthread_cond_broadcast(&locks[k].not_full);
			pthread_mutex_unlock(&locks[k].m);
		}
	}
	for (int i = 0; i < opt.threads; i++)
		pthread_join(thr[i].tid, NULL);
}

/* Sampled acquire waits, every thread's merged: p50, p99, p99.9. */
static void gather_waits(struct results *r)
{
	uint64_t nsamp = 0;
	for (int i = 0; i < opt.threads; i++)
		nsamp += thr[i].nsamples;
	uint64_t *all = xcalloc(nsamp, sizeof *all);
	size_t n = 0;
	for (int i = 0; i < opt.threads; i++) {
		memcpy(all + n, thr[i].samples, thr[i].nsamples * sizeof *all);
		n += thr[i].nsamples;
	}
	qsort(all, n, sizeof *all, cmp_u64);
	r->p50 = percentile(all, n, 0.50);
	r->p99 = percentile(all, n, 0.99);
	r->p999 = percentile(all, n, 0.999);
	free(all);
}

/* Short windows and longest stretches. */
static void gather_short_windows(struct results *r)
{
	int T = opt.threads;
	const struct short_windows **sws = xcalloc((size_t)T, sizeof *sws);
	for (int i = 0; i < T; i++)
		sws[i] = &thr[i].sw;
	r->ms1 = short_windows_shares(sws, T, &window_clock, 1);
	r->ms10 = short_windows_shares(sws, T, &window_clock, 10);
	r->longest_ns = xcalloc((size_t)T, sizeof *r->longest_ns);
	short_windows_longest_ns(sws, T, &window_clock, r->longest_ns);
	uint64_t *sorted = xcalloc((size_t)T, sizeof *sorted);
	memcpy(sorted, r->longest_ns, sizeof *sorted * (size_t)T);
	qsort(sorted, (size_t)T, sizeof *sorted, cmp_u64);
	r->longest_max_ns = sorted[T - 1];
	r->longest_median_ns = T % 2 ? sorted[T / 2] : (sorted[T / 2 - 1] + sorted[T / 2]) / 2;
	free(sorted);
	free(sws);
}

/* Request latencies in ns: all requests merged, and each thread's p99. */
static void gather_requests(struct results *r)
{
	int T = opt.threads;
	struct latency all;
	latency_alloc(&all);
	r->req_thread_p99 = xcalloc((size_t)T, sizeof *r->req_thread_p99);
	for (int i = 0; i < T; i++) {
		latency_merge(&all, &thr[i].lat);
		uint64_t p99 = ticks_to_ns(&window_clock, latency_quantile(&thr[i].lat, 0.99));
		r->req_thread_p99[i] = p99;
		if (p99 > r->req_worst_p99)
			r->req_worst_p99 = p99;
	}
	r->requests = all.n;
	r->req_p50 = ticks_to_ns(&window_clock, latency_quantile(&all, 0.50));
	r->req_p99 = ticks_to_ns(&window_clock, latency_quantile(&all, 0.99));
	r->req_p999 = ticks_to_ns(&window_clock, latency_quantile(&all, 0.999));
	r->req_max = ticks_to_ns(&window_clock, all.max);
}

static void gather_classes(struct results *r)
{
	sum_classes(r->cls, r->wops, r->whold, r->so.total, r->sh.total);
	r->cls_min = r->cls_max = r->cls[0].hold_vs_equal;
	for (int k = 1; k < opt.nclasses; k++) {
		if (r->cls[k].hold_vs_equal < r->cls_min) r->cls_min = r->cls[k].hold_vs_equal;
		if (r->cls[k].hold_vs_equal > r->cls_max) r->cls_max = r->cls[k].hold_vs_equal;
	}
}

static void gather(struct results *r, const struct window *w)
{
	int T = opt.threads;
	r->w = w;
	r->wops = xcalloc((size_t)T, sizeof *r->wops);
	r->whold = xcalloc((size_t)T, sizeof *r->whold);
	r->wcpu = xcalloc((size_t)T, sizeof *r->wcpu);
	uint64_t acq = 0, overlaps = 0;
	for (int i = 0; i < T; i++) {
		r->wops[i] = w->ops1[i] - w->ops0[i];
		r->whold[i] = w->hold1[i] - w->hold0[i];
		r->wcpu[i] = w->cpu1[i] > w->cpu0[i] ? w->cpu1[i] - w->cpu0[i] : 0;
		r->total_ops += atomic_load_explicit(&thr[i].ops, memory_order_relaxed);
		acq += thr[i].acq;
		overlaps += thr[i].overlaps;
		r->produced += thr[i].produced;
		r->consumed += thr[i].consumed;
	}
	r->so = shares_of(r->wops, T);
	r->sh = shares_of(r->whold, T);
	r->sc = shares_of(r->wcpu, T);
	/* The whole process's, main thread included (it sleeps through the
	 * window: one or two switches). */
	r->vcsw = (uint64_t)(w->ru1.ru_nvcsw - w->ru0.ru_nvcsw);
	r->ivcsw = (uint64_t)(w->ru1.ru_nivcsw - w->ru0.ru_nivcsw);
	if (opt.nclasses)
		gather_classes(r);
	gather_waits(r);
	gather_short_windows(r);
	if (opt.mode == M_REQUEST)
		gather_requests(r);

	/* Exclusion, over the whole run: every acquisition added exactly one
	 * to its lock's counter. */
	uint64_t counted = 0;
	for (int k = 0; k < opt.locks; k++)
		counted += locks[k].count;
	r->excl_ok = counted == acq && overlaps == 0;
	r->counted = counted;
	r->acq = acq;
	r->overlaps = overlaps;

	r->secs = (double)(w->end - w->start) / 1e9;
	r->tput = (double)r->so.total / r->secs;
	r->all_acquired = atomic_load_explicit(&all_acquired_ns, memory_order_relaxed);
}

/* One run as the options say: the threads, the window, the results. */
static void run(struct results *r, struct window *w)
{
	ticks_init();
	setup();
	start_threads();

	pthread_barrier_wait(&start_barrier);
	mark_start();
	start_ns = atomic_load_explicit(&start_at, memory_order_relaxed);
	measure_window(w);
	uint64_t run_end = now_ns();
	stop_threads();

	*r = (struct results){ .run_end = run_end };
	gather(r, w);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	/* --limit: the same run with one thread first, in a child of its own
	 * (limit.c), before this process starts any thread. */
	double alone = opt.limit ? limit_alone(run) : 0;
	struct window w;
	struct results r;
	run(&r, &w);
	if (opt.limit) {
		r.limit = alone;
		r.limit_ratio = alone > 0 ? r.tput / alone : 0;
	}
	if (opt.json)
		report_json(&r);
	else
		report_human(&r);
	fflush(stdout);

	if (!r.excl_ok) {
		fprintf(stderr, "mutexbench: mutual exclusion violated: counters sum to %llu "
		        "but %llu acquisitions were made (%llu lost updates), %llu overlapping "
		        "critical sections seen\n", (unsigned long long)r.counted,
		        (unsigned long long)r.acq, (unsigned long long)(r.acq - r.counted),
		        (unsigned long long)r.overlaps);
		return 1;
	}
	if (opt.mode == M_CONDVAR && r.produced != r.consumed) {
		fprintf(stderr, "mutexbench: condvar queue lost items: produced=%llu consumed=%llu\n",
		        (unsigned long long)r.produced, (unsigned long long)r.consumed);
		return 1;
	}
	return 0;
}
