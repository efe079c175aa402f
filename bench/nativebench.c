/*
 * nativebench.c - MutexBench's short-CS mode for the native API: T threads
 * loop for a fixed interval doing critical section, then non-critical
 * section, where the section is either inside a pthread mutex's
 * lock/unlock (--lock pthread: run it under LD_PRELOAD=liblockswap.so to
 * measure a backend, or bare for glibc) or a closure handed to
 * lockswap_with (--lock bcs | bcs-wf | combining), which may run on the
 * thread that is combining rather than on the caller's.  --lock none runs
 * the section unprotected, so the tests can see the exclusion check fail.
 *
 * It reports throughput and per-thread shares of calls over a window that
 * opens after a warm-up, and checks exclusion afterwards: the section does a
 * non-atomic read-work-write on a shared counter, so a lost update makes the
 * counter differ from the calls that returned, and an entry that finds
 * another section inside counts an overlap; either makes it exit 1.
 * "delegated" counts the sections (over the whole run) that ran on a thread
 * other than their caller's: the closures a combiner ran for others.
 * --spin N|adaptive sets the native locks' spin limit (lockswap_set_spin:
 * N polls, 0 = park at once); it does not reach --lock pthread, whose
 * backend reads LOCKSWAP_SPIN.
 *
 * Linked to liblockswap-native.a, which defines no pthread function, so
 * --lock pthread measures exactly what LD_PRELOAD put in place.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lockswap.h"
#include "rng.h"

#define MAX_THREADS 1024

enum kind { K_PTHREAD, K_NATIVE, K_NONE };

static const struct {
	const char *name;
	enum kind kind;
	int flavour;
} lock_names[] = {
	{ "pthread", K_PTHREAD, 0 },
	{ "bcs", K_NATIVE, LOCKSWAP_BCS },
	{ "bcs-wf", K_NATIVE, LOCKSWAP_BCS_WF },
	{ "combining", K_NATIVE, LOCKSWAP_COMBINING },
	{ "none", K_NONE, 0 },       /* no lock: the exclusion check's own test */
};
#define NLOCKS (sizeof lock_names / sizeof lock_names[0])

static struct {
	int threads, lock;
	double seconds, warmup;
	long cs_work, ncs_work;
	long spin;                   /* lockswap_set_spin's argument */
	bool json;
} opt = { 2, 0, 1.0, 0.2, 10, 10, LOCKSWAP_SPIN_ADAPTIVE, false };

/* What the section protects, on its own lines so the per-thread counters
 * never share a line with it. */
static struct {
	_Alignas(128) pthread_mutex_t mutex;
	lockswap_lock_t native;
	volatile uint64_t count;     /* read, work, write+1: loses updates if shared */
	volatile unsigned inside;    /* caller id + 1 while a section runs */
	uint64_t rng;                /* stepped cs_work times per section */
	uint64_t overlaps;
	uint64_t delegated;          /* sections that ran on a thread other than their caller's */
} shared = { .mutex = PTHREAD_MUTEX_INITIALIZER, .rng = 0x9E3779B97F4A7C15ULL };

struct thread {
	_Alignas(128) unsigned id;
	pthread_t tid, self;         /* self: set by the thread itself before it starts */
	uint64_t rng;
	_Atomic uint64_t ops;        /* written by its thread only, read at the window's edges */
};

static struct thread *thr;
static atomic_bool stop;
static pthread_barrier_t start_barrier;

/* The critical section; arg is the caller's record (it may run elsewhere). */
static void section(void *arg)
{
	const struct thread *t = arg;
	if (shared.inside != 0)
		shared.overlaps++;
	shared.inside = t->id + 1;
	uint64_t c = shared.count;
	for (long i = 0; i < opt.cs_work; i++)
		rng_next(&shared.rng);
	shared.count = c + 1;
	if (!pthread_equal(pthread_self(), t->self))
		shared.delegated++;
	shared.inside = 0;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	enum kind kind = lock_names[opt.lock].kind;
	t->self = pthread_self();
	pthread_barrier_wait(&start_barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (kind == K_NATIVE) {
			lockswap_with(&shared.native, section, t);
		} else if (kind == K_NONE) {
			section(t);
		} else {
			pthread_mutex_lock(&shared.mutex);
			section(t);
			pthread_mutex_unlock(&shared.mutex);
		}
		atomic_store_explicit(&t->ops,
			atomic_load_explicit(&t->ops, memory_order_relaxed) + 1,
			memory_order_release);
		for (long i = 0; i < opt.ncs_work; i++)
			rng_next(&t->rng);
	}
	return NULL;
}

static _Noreturn void usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "nativebench: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (usage: nativebench [--lock pthread|bcs|bcs-wf|combining|none] "
		"[--threads N] [--seconds S] [--warmup S] [--cs-work N] [--ncs-work N] "
		"[--spin N|adaptive] [--json])\n");
	exit(2);
}

static long parse_long(const char *flag, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "nativebench: %s wants an integer in [%ld, %ld], got '%s'\n",
			flag, lo, hi, s);
		exit(2);
	}
	return v;
}

static double parse_seconds(const char *flag, const char *s, double lo)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo) || v > 3600) {
		fprintf(stderr, "nativebench: %s wants seconds in [%g, 3600], got '%s'\n",
			flag, lo, s);
		exit(2);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			opt.json = true;
			continue;
		}
		if (i + 1 >= argc)
			usage("%s needs a value (or is unknown)", a);
		const char *v = argv[++i];
		if (!strcmp(a, "--threads"))
			opt.threads = (int)parse_long(a, v, 1, MAX_THREADS);
		else if (!strcmp(a, "--seconds"))
			opt.seconds = parse_seconds(a, v, 0.001);
		else if (!strcmp(a, "--warmup"))
			opt.warmup = parse_seconds(a, v, 0);
		else if (!strcmp(a, "--cs-work"))
			opt.cs_work = parse_long(a, v, 0, 1000000000);
		else if (!strcmp(a, "--ncs-work"))
			opt.ncs_work = parse_long(a, v, 0, 1000000000);
		else if (!strcmp(a, "--spin"))
			opt.spin = !strcmp(v, "adaptive") ? LOCKSWAP_SPIN_ADAPTIVE :
				parse_long(a, v, 0, LOCKSWAP_SPIN_MAX);
		else if (!strcmp(a, "--lock")) {
			size_t k = 0;
			while (k < NLOCKS && strcmp(v, lock_names[k].name))
				k++;
			if (k == NLOCKS)
				usage("unknown --lock '%s'", v);
			opt.lock = (int)k;
		} else
			usage("unknown option '%s'", a);
	}
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void snapshot(uint64_t *into)
{
	for (int i = 0; i < opt.threads; i++)
		into[i] = atomic_load_explicit(&thr[i].ops, memory_order_acquire);
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	int n = opt.threads;
	if (lockswap_set_spin(opt.spin) != 0) {
		fprintf(stderr, "nativebench: lockswap_set_spin(%ld) refused\n", opt.spin);
		return 2;
	}
	if (lock_names[opt.lock].kind == K_NATIVE &&
	    lockswap_lock_init(&shared.native, lock_names[opt.lock].flavour) != 0) {
		fprintf(stderr, "nativebench: lockswap_lock_init(%s) failed\n",
			lock_names[opt.lock].name);
		return 1;
	}
	thr = aligned_alloc(128, sizeof *thr * (size_t)n);
	uint64_t *at_open = calloc((size_t)n, sizeof *at_open);
	uint64_t *at_close = calloc((size_t)n, sizeof *at_close);
	if (!thr || !at_open || !at_close) {
		fprintf(stderr, "nativebench: out of memory\n");
		return 1;
	}
	memset(thr, 0, sizeof *thr * (size_t)n);
	pthread_barrier_init(&start_barrier, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		thr[i].id = (unsigned)i;
		thr[i].rng = 0x2545F4914F6CDD1DULL * (uint64_t)(i + 1);
		int e = pthread_create(&thr[i].tid, NULL, worker, &thr[i]);
		if (e) {
			fprintf(stderr, "nativebench: pthread_create: %s\n", strerror(e));
			return 1;
		}
	}
	pthread_barrier_wait(&start_barrier);
	sleep_s(opt.warmup);
	snapshot(at_open);
	double t0 = now_s();
	sleep_s(opt.seconds);
	snapshot(at_close);
	double t1 = now_s();
	atomic_store(&stop, true);
	for (int i = 0; i < n; i++)
		pthread_join(thr[i].tid, NULL);

	uint64_t window_ops = 0, all_ops = 0, lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < n; i++) {
		uint64_t d = at_close[i] - at_open[i];
		window_ops += d;
		all_ops += atomic_load(&thr[i].ops);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	double mean = (double)window_ops / n;
	double min_share = mean > 0 ? (double)lo / mean : 0;
	double max_share = mean > 0 ? (double)hi / mean : 0;
	double throughput = (double)window_ops / (t1 - t0);
	bool exclusive = shared.count == all_ops && shared.overlaps == 0;
	int destroyed = lock_names[opt.lock].kind == K_NATIVE ?
		lockswap_lock_destroy(&shared.native) : 0;

	if (opt.json) {
		printf("{\"lock\": \"%s\", \"threads\": %d, \"seconds\": %.6f, \"warmup\": %.6f, "
		       "\"cs_work\": %ld, \"ncs_work\": %ld, \"spin\": %ld, \"throughput\": %.1f, "
		       "\"window_ops\": %llu, \"total_ops\": %llu, \"counter\": %llu, "
		       "\"overlaps\": %llu, \"delegated\": %llu, \"exclusive\": %s, \"min_share\": %.4f, "
		       "\"max_share\": %.4f, \"per_thread_ops\": [",
		       lock_names[opt.lock].name, n, t1 - t0, opt.warmup, opt.cs_work,
		       opt.ncs_work, opt.spin, throughput, (unsigned long long)window_ops,
		       (unsigned long long)all_ops, (unsigned long long)shared.count,
		       (unsigned long long)shared.overlaps,
		       (unsigned long long)shared.delegated, exclusive ? "true" : "false",
		       min_share, max_share);
		for (int i = 0; i < n; i++)
			printf("%s%llu", i ? ", " : "",
			       (unsigned long long)(at_close[i] - at_open[i]));
		printf("]}\n");
	} else {
		printf("%s %d threads: %.0f ops/s, min share %.4f, max share %.4f, %s\n",
		       lock_names[opt.lock].name, n, throughput, min_share, max_share,
		       exclusive ? "exclusive" : "NOT EXCLUSIVE");
	}
	if (!exclusive) {
		fprintf(stderr, "nativebench: exclusion failed: counter %llu, calls %llu, "
			"overlaps %llu\n", (unsigned long long)shared.count,
			(unsigned long long)all_ops, (unsigned long long)shared.overlaps);
		return 1;
	}
	if (destroyed != 0) {
		fprintf(stderr, "nativebench: lockswap_lock_destroy: %s after every call returned\n",
			strerror(destroyed));
		return 1;
	}
	return 0;
}
