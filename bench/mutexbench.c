/*
 * mutexbench - MutexBench (from the Capacitor paper), extended.
 *
 * T threads loop for a fixed interval: acquire, critical section, release,
 * non-critical section.  Reports throughput, per-thread fairness (min/max
 * share, Jain's index) and sampled acquire-wait percentiles, and checks that
 * the lock really excluded: a lost update or an overlap makes it exit 1.
 *
 * Plain pthreads only.  It is never linked to lockswap: run it under
 * LD_PRELOAD=liblockswap.so to measure a backend, or bare for glibc.
 * See docs/bench.md for every flag and output field.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mode { M_MUTEX, M_TRYLOCK, M_CONDVAR, M_MIXED, M_RWLOCK };
static const char *const mode_names[] = { "mutex", "trylock", "condvar", "mixed", "rwlock" };
#define NMODES 5

#define LINE 64
#define QCAP 64                  /* condvar mode: slots per bounded queue */
#define SAMPLE_MASK 63           /* time 1 acquisition in 64 */
#define SAMPLE_CAP (1u << 20)    /* per-thread samples kept (reservoir after) */
#define MAX_THREADS 1024
#define MAX_LINES_TOTAL (1L << 20)

/* Everything one lock protects.  128-byte aligned so two locks never share
 * a line (or an adjacent-line prefetch pair) and falsely contend. */
struct lock {
	_Alignas(128) pthread_mutex_t m;
	pthread_cond_t not_empty, not_full;
	volatile uint64_t count;     /* read, work, write+1: loses updates if shared */
	volatile unsigned owner;     /* thread id + 1 while inside */
	uint64_t rng;                /* the PRNG the critical section steps */
	unsigned head, len;          /* condvar queue (ring of QCAP) */
	uint64_t items[QCAP];
	int pending;                 /* mixed mode: tokens posted, not yet taken */
	pthread_rwlock_t rw;         /* rwlock mode: guards count, owner, rng, lines */
};

struct cline { _Alignas(LINE) uint64_t w[LINE / 8]; };

struct thread {
	_Alignas(128) int id;
	pthread_t tid;
	uint64_t rng;
	uint64_t ops, acq, overlaps, produced, consumed, reads;
	uint64_t *samples;
	uint64_t nsamples, seen;
};

static struct {
	enum mode mode;
	int threads, locks;
	double seconds;
	long cs_work, cs_lines, ncs_work;
	uint64_t seed;
	bool json, break_excl;
	long read_pct;
} opt = { M_MUTEX, 4, 1, 1.0, 10, 0, 10, 1, false, false, 90 };

static struct lock *locks;
static struct cline *lines;      /* locks * cs_lines, lock k owns its own slice */
static struct thread *thr;
static pthread_barrier_t start_barrier, end_barrier;
static atomic_bool stop;
static int nproducers;           /* condvar mode: threads [0, nproducers) produce */

static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("mutexbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static _Noreturn void die(const char *what, int err)
{
	fprintf(stderr, "mutexbench: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: cheap, good enough to pick locks and burn cycles. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline uint64_t rng_steps(uint64_t s, long n)
{
	for (long i = 0; i < n; i++)
		rng_next(&s);
	return s;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* ---- acquisition, with the wait sampled 1 in 64 ---- */

static void record_sample(struct thread *t, uint64_t ns)
{
	/* Keep the first SAMPLE_CAP samples, then reservoir-sample so long runs
	 * stay bounded in memory without biasing towards the start. */
	uint64_t n = t->seen++;
	if (n < SAMPLE_CAP) {
		t->samples[t->nsamples++] = ns;
	} else {
		uint64_t j = rng_next(&t->rng) % (n + 1);
		if (j < SAMPLE_CAP)
			t->samples[j] = ns;
	}
}

static void acquire_trylock(pthread_mutex_t *m)
{
	int e;
	while ((e = pthread_mutex_trylock(m)) == EBUSY)
		cpu_relax();
	if (e)
		die("pthread_mutex_trylock", e);
}

static void acquire_timedlock(pthread_mutex_t *m)
{
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000;               /* 1 ms, then retry */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		int e = pthread_mutex_timedlock(m, &ts);
		if (e == 0)
			return;
		if (e != ETIMEDOUT)
			die("pthread_mutex_timedlock", e);
	}
}

enum how { H_LOCK, H_TRY, H_TIMED };

static void acquire(struct thread *t, pthread_mutex_t *m, enum how how)
{
	bool sample = (t->acq & SAMPLE_MASK) == 0;
	uint64_t t0 = sample ? now_ns() : 0;
	int e = 0;
	switch (how) {
	case H_LOCK:  e = pthread_mutex_lock(m); break;
	case H_TRY:   acquire_trylock(m); break;
	case H_TIMED: acquire_timedlock(m); break;
	}
	if (e)
		die("pthread_mutex_lock", e);
	if (sample)
		record_sample(t, now_ns() - t0);
}

static void release(pthread_mutex_t *m)
{
	int e = pthread_mutex_unlock(m);
	if (e)
		die("pthread_mutex_unlock", e);
}

/* ---- the critical section and its exclusion check ---- */

static void critical_section(struct thread *t, struct lock *lk, int k)
{
	unsigned me = (unsigned)t->id + 1;
	lk->owner = me;
	uint64_t v = lk->count;
	lk->rng = rng_steps(lk->rng, opt.cs_work);
	struct cline *cl = lines + (size_t)k * (size_t)opt.cs_lines;
	for (long i = 0; i < opt.cs_lines; i++)
		cl[i].w[0] += v;
	lk->count = v + 1;
	if (lk->owner != me)         /* someone else got in while we were inside */
		t->overlaps++;
	t->acq++;
}

static void noncritical_section(struct thread *t)
{
	t->rng = rng_steps(t->rng, opt.ncs_work);
}

/* Thread 0 skips the lock under --break-exclusion, so the checker must fire. */
static bool skips_lock(const struct thread *t)
{
	return opt.break_excl && t->id == 0;
}

static int pick_lock(struct thread *t)
{
	return opt.locks == 1 ? 0 : (int)(rng_next(&t->rng) % (uint64_t)opt.locks);
}

/* ---- modes ---- */

static void op_plain(struct thread *t, enum how how)
{
	int k = pick_lock(t);
	struct lock *lk = &locks[k];
	if (skips_lock(t)) {
		critical_section(t, lk, k);
		return;
	}
	acquire(t, &lk->m, how);
	critical_section(t, lk, k);
	release(&lk->m);
}

/* Mixed mode's condvar op: alternately post a token (signal) or take one,
 * waiting with a 1 ms timeout so a taker can never be stranded. */
static void op_mixed_cond(struct thread *t)
{
	int k = pick_lock(t);
	struct lock *lk = &locks[k];
	acquire(t, &lk->m, H_LOCK);
	critical_section(t, lk, k);
	if (t->ops & 1) {
		lk->pending++;
		pthread_cond_signal(&lk->not_empty);
	} else {
		while (lk->pending == 0 && !atomic_load_explicit(&stop, memory_order_relaxed)) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			int e = pthread_cond_timedwait(&lk->not_empty, &lk->m, &ts);
			if (e == ETIMEDOUT)
				break;
			if (e)
				die("pthread_cond_timedwait", e);
		}
		if (lk->pending > 0)
			lk->pending--;
	}
	release(&lk->m);
}

static void op_mixed(struct thread *t)
{
	unsigned r = (unsigned)(rng_next(&t->rng) >> 61);    /* 0..7 */
	if (r < 3)
		op_plain(t, H_LOCK);
	else if (r < 5)
		op_plain(t, H_TRY);
	else if (r < 7)
		op_plain(t, H_TIMED);
	else if (skips_lock(t))
		op_plain(t, H_LOCK);       /* break mode: no lock, so no condvar */
	else
		op_mixed_cond(t);
}

/* Rwlock mode: --read-pct of the ops are readers.  A writer runs the
 * ordinary critical section (its owner check and counter catch another
 * writer) and clears owner before unlocking.  A reader only reads: owner
 * must be 0 and count unchanged from its entry to its exit, else a writer
 * overlapped it.  Readers write nothing shared, so the lock's own reader
 * bookkeeping is all the sharing they cause.  Under --break-exclusion
 * thread 0 writes without the lock. */
static void read_section(struct thread *t, struct lock *lk, int k)
{
	uint64_t v = lk->count, sum = 0;
	if (lk->owner != 0)
		t->overlaps++;
	uint64_t r = rng_steps(lk->rng, opt.cs_work);   /* the same work, on a copy */
	struct cline *cl = lines + (size_t)k * (size_t)opt.cs_lines;
	for (long i = 0; i < opt.cs_lines; i++)
		sum += cl[i].w[0];
	if (lk->owner != 0 || lk->count != v)
		t->overlaps++;
	t->rng ^= r ^ sum;                               /* keep the reads */
	t->reads++;
}

static void op_rw(struct thread *t)
{
	int k = pick_lock(t);
	struct lock *lk = &locks[k];
	bool read = (long)(rng_next(&t->rng) % 100) < opt.read_pct;
	if (skips_lock(t)) {
		critical_section(t, lk, k);
		lk->owner = 0;
		return;
	}
	bool sample = ((t->acq + t->reads) & SAMPLE_MASK) == 0;
	uint64_t t0 = sample ? now_ns() : 0;
	int e = read ? pthread_rwlock_rdlock(&lk->rw) : pthread_rwlock_wrlock(&lk->rw);
	if (e)
		die(read ? "pthread_rwlock_rdlock" : "pthread_rwlock_wrlock", e);
	if (sample)
		record_sample(t, now_ns() - t0);
	if (read) {
		read_section(t, lk, k);
	} else {
		critical_section(t, lk, k);
		lk->owner = 0;
	}
	if ((e = pthread_rwlock_unlock(&lk->rw)))
		die("pthread_rwlock_unlock", e);
}

/* Condvar mode.  Queue k is served by producers and consumers with index
 * i % locks == k, so every queue has both and the run cannot deadlock with
 * all producers on full queues and all consumers on empty ones. */
static int queue_of(const struct thread *t)
{
	int i = t->id < nproducers ? t->id : t->id - nproducers;
	return i % opt.locks;
}

static bool produce(struct thread *t, int k)
{
	struct lock *lk = &locks[k];
	acquire(t, &lk->m, H_LOCK);
	while (lk->len == QCAP && !atomic_load_explicit(&stop, memory_order_relaxed)) {
		int e = pthread_cond_wait(&lk->not_full, &lk->m);
		if (e)
			die("pthread_cond_wait", e);
	}
	bool done = lk->len < QCAP;
	if (done) {
		lk->items[(lk->head + lk->len) % QCAP] = t->produced;
		lk->len++;
		t->produced++;
		critical_section(t, lk, k);
		pthread_cond_signal(&lk->not_empty);
	}
	release(&lk->m);
	return done;
}

/* wait=false is the final drain: take what is there, never block. */
static bool consume(struct thread *t, int k, bool wait)
{
	struct lock *lk = &locks[k];
	acquire(t, &lk->m, H_LOCK);
	while (wait && lk->len == 0 && !atomic_load_explicit(&stop, memory_order_relaxed)) {
		int e = pthread_cond_wait(&lk->not_empty, &lk->m);
		if (e)
			die("pthread_cond_wait", e);
	}
	bool done = lk->len > 0;
	if (done) {
		lk->head = (lk->head + 1) % QCAP;
		lk->len--;
		t->consumed++;
		critical_section(t, lk, k);
		pthread_cond_signal(&lk->not_full);
	}
	release(&lk->m);
	return done;
}

static void *worker(void *arg)
{
	struct thread *t = arg;
	bool producer = t->id < nproducers;
	pthread_barrier_wait(&start_barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		switch (opt.mode) {
		case M_MUTEX:   op_plain(t, H_LOCK); break;
		case M_TRYLOCK: op_plain(t, H_TRY); break;
		case M_MIXED:   op_mixed(t); break;
		case M_RWLOCK:  op_rw(t); break;
		case M_CONDVAR:
			if (!(producer ? produce(t, queue_of(t)) : consume(t, queue_of(t), true)))
				continue;           /* woken by stop with nothing done */
			break;
		}
		t->ops++;
		noncritical_section(t);
	}
	if (opt.mode == M_CONDVAR) {
		/* Once every producer has passed this barrier nothing more is
		 * produced, so consumers can empty the queues for an exact count. */
		pthread_barrier_wait(&end_barrier);
		if (!producer)
			for (int k = 0; k < opt.locks; k++)
				while (consume(t, k, false))
					;
	}
	return NULL;
}

/* ---- arguments ---- */

static long parse_long(const char *name, const char *s, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		usage_error("--%s: not a whole number: '%s'", name, s);
	if (v < min || v > max)
		usage_error("--%s must be between %ld and %ld, got %ld", name, min, max, v);
	return v;
}

static void usage(void)
{
	printf("usage: mutexbench [options]   (run under LD_PRELOAD=liblockswap.so)\n"
	       "  --threads N     worker threads (default 4)\n"
	       "  --seconds S     measured interval, may be fractional (default 1.0)\n"
	       "  --cs-work N     shared PRNG steps inside the critical section (default 10)\n"
	       "  --cs-lines N    shared cache lines written inside it (default 0)\n"
	       "  --ncs-work N    private PRNG steps outside it (default 10)\n"
	       "  --locks K       locks; each op picks one at random (default 1)\n"
	       "  --mode M        mutex | trylock | condvar | mixed | rwlock (default mutex)\n"
	       "  --read-pct P    rwlock mode: percentage of ops that read-lock (default 90)\n"
	       "  --seed N        PRNG seed (default 1)\n"
	       "  --json          one JSON object instead of the human line\n"
	       "  --help          this text\n");
}

static void parse_args(int argc, char **argv)
{
	enum { O_THREADS = 256, O_SECONDS, O_CSWORK, O_CSLINES, O_NCSWORK, O_LOCKS,
	       O_MODE, O_JSON, O_SEED, O_BREAK, O_READPCT };
	static const struct option lo[] = {
		{ "threads",  required_argument, 0, O_THREADS },
		{ "seconds",  required_argument, 0, O_SECONDS },
		{ "cs-work",  required_argument, 0, O_CSWORK },
		{ "cs-lines", required_argument, 0, O_CSLINES },
		{ "ncs-work", required_argument, 0, O_NCSWORK },
		{ "locks",    required_argument, 0, O_LOCKS },
		{ "mode",     required_argument, 0, O_MODE },
		{ "json",     no_argument,       0, O_JSON },
		{ "seed",     required_argument, 0, O_SEED },
		{ "read-pct", required_argument, 0, O_READPCT },
		{ "help",     no_argument,       0, 'h' },
		{ "break-exclusion", no_argument, 0, O_BREAK },  /* test-only, hidden */
		{ 0, 0, 0, 0 }
	};
	opterr = 0;                  /* we print our own one-line messages */
	int c;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		char *end;
		switch (c) {
		case O_THREADS: opt.threads = (int)parse_long("threads", optarg, 1, MAX_THREADS); break;
		case O_CSWORK:  opt.cs_work = parse_long("cs-work", optarg, 0, 1L << 30); break;
		case O_CSLINES: opt.cs_lines = parse_long("cs-lines", optarg, 0, MAX_LINES_TOTAL); break;
		case O_NCSWORK: opt.ncs_work = parse_long("ncs-work", optarg, 0, 1L << 30); break;
		case O_LOCKS:   opt.locks = (int)parse_long("locks", optarg, 1, 1L << 20); break;
		case O_JSON:    opt.json = true; break;
		case O_BREAK:   opt.break_excl = true; break;
		case O_READPCT: opt.read_pct = parse_long("read-pct", optarg, 0, 100); break;
		case O_SECONDS:
			errno = 0;
			opt.seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(opt.seconds))
				usage_error("--seconds: not a number: '%s'", optarg);
			if (opt.seconds <= 0 || opt.seconds > 1e6)
				usage_error("--seconds must be > 0 and <= 1e6, got %s", optarg);
			break;
		case O_SEED:
			errno = 0;
			opt.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || optarg[0] == '-')
				usage_error("--seed: not a non-negative whole number: '%s'", optarg);
			break;
		case O_MODE: {
			int m;
			for (m = 0; m < NMODES && strcmp(optarg, mode_names[m]); m++)
				;
			if (m == NMODES)
				usage_error("unknown mode '%s' (mutex, trylock, condvar, mixed, rwlock)", optarg);
			opt.mode = (enum mode)m;
			break;
		}
		case 'h':
			usage();
			exit(0);
		case ':':
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			/* optopt holds the character of a bad short option; for a bad
			 * long option the whole word is the previous argv element. */
			if (optopt > 0 && optopt < 256)
				usage_error("unknown option '-%c' (try --help)", optopt);
			usage_error("unknown or malformed option '%s' (try --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if ((long)opt.locks * opt.cs_lines > MAX_LINES_TOTAL)
		usage_error("--locks x --cs-lines must be <= %ld", MAX_LINES_TOTAL);
	if (opt.mode == M_CONDVAR && opt.threads < 2)
		usage_error("condvar mode needs --threads >= 2 (half produce, half consume)");
	if (opt.mode == M_CONDVAR && opt.locks > opt.threads / 2)
		usage_error("condvar mode needs --locks <= threads/2 so each queue has a producer and a consumer");
	if (opt.break_excl && (opt.threads < 2 || opt.mode == M_CONDVAR))
		usage_error("--break-exclusion needs --threads >= 2 and a mode other than condvar");
}

/* ---- results ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array; 0 when there are no samples. */
static uint64_t percentile(const uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	double want = p * (double)n;
	size_t r = (size_t)want;
	if ((double)r < want)
		r++;                 /* ceil without libm */
	return v[r ? r - 1 : 0];
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("calloc", ENOMEM);
	return p;
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
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

	for (int i = 0; i < T; i++) {
		struct thread *t = &thr[i];
		t->id = i;
		t->rng = (opt.seed + 1) * 0xBF58476D1CE4E5B9ULL + (uint64_t)i * 0x94D049BB133111EBULL + 1;
		t->samples = xcalloc(SAMPLE_CAP, sizeof *t->samples);
		int e = pthread_create(&t->tid, NULL, worker, t);
		if (e)
			die("pthread_create", e);
	}

	pthread_barrier_wait(&start_barrier);
	uint64_t t0 = now_ns();
	struct timespec nap = { (time_t)opt.seconds,
	                        (long)((opt.seconds - (double)(time_t)opt.seconds) * 1e9) };
	while (nanosleep(&nap, &nap) == -1 && errno == EINTR)
		;
	atomic_store_explicit(&stop, true, memory_order_release);
	uint64_t elapsed = now_ns() - t0;
	if (opt.mode == M_CONDVAR || opt.mode == M_MIXED) {
		/* Wake every waiter so it sees stop.  Taking the mutex orders the
		 * broadcast after any waiter's check of the flag. */
		for (int k = 0; k < K; k++) {
			pthread_mutex_lock(&locks[k].m);
			pthread_cond_broadcast(&locks[k].not_empty);
			pthread_cond_broadcast(&locks[k].not_full);
			pthread_mutex_unlock(&locks[k].m);
		}
	}
	for (int i = 0; i < T; i++)
		pthread_join(thr[i].tid, NULL);

	/* Fairness over per-thread ops. */
	uint64_t ops = 0, acq = 0, overlaps = 0, produced = 0, consumed = 0, nsamp = 0;
	double sumsq = 0;
	for (int i = 0; i < T; i++) {
		ops += thr[i].ops;
		acq += thr[i].acq;
		overlaps += thr[i].overlaps;
		produced += thr[i].produced;
		consumed += thr[i].consumed;
		nsamp += thr[i].nsamples;
		sumsq += (double)thr[i].ops * (double)thr[i].ops;
	}
	double fair = (double)ops / T, min_share = 0, max_share = 0, jain = 0;
	if (ops > 0) {
		min_share = 1e300;
		for (int i = 0; i < T; i++) {
			double s = (double)thr[i].ops / fair;
			if (s < min_share) min_share = s;
			if (s > max_share) max_share = s;
		}
		jain = (double)ops * (double)ops / (T * sumsq);
	}

	uint64_t *all = xcalloc(nsamp, sizeof *all);
	size_t n = 0;
	for (int i = 0; i < T; i++) {
		memcpy(all + n, thr[i].samples, thr[i].nsamples * sizeof *all);
		n += thr[i].nsamples;
	}
	qsort(all, n, sizeof *all, cmp_u64);
	uint64_t p50 = percentile(all, n, 0.50), p99 = percentile(all, n, 0.99),
	         p999 = percentile(all, n, 0.999);

	/* Exclusion: every acquisition added exactly one to its lock's counter. */
	uint64_t counted = 0;
	for (int k = 0; k < K; k++)
		counted += locks[k].count;
	bool excl_ok = counted == acq && overlaps == 0;
	bool queue_ok = opt.mode != M_CONDVAR || produced == consumed;

	double secs = (double)elapsed / 1e9;
	double tput = (double)ops / secs;
	const char *mode = mode_names[opt.mode];
	if (opt.json) {
		printf("{\"bench\":\"mutexbench\",\"mode\":\"%s\",\"threads\":%d,\"locks\":%d,"
		       "\"seconds\":%.3f,\"ops\":%llu,\"throughput\":%.1f,\"min_share\":%.4f,"
		       "\"max_share\":%.4f,\"jain\":%.4f,\"wait_p50_ns\":%llu,\"wait_p99_ns\":%llu,"
		       "\"wait_p999_ns\":%llu,\"per_thread_ops\":[",
		       mode, T, K, secs, (unsigned long long)ops, tput, min_share, max_share, jain,
		       (unsigned long long)p50, (unsigned long long)p99, (unsigned long long)p999);
		for (int i = 0; i < T; i++)
			printf("%s%llu", i ? "," : "", (unsigned long long)thr[i].ops);
		printf("],\"exclusion_ok\":%s", excl_ok ? "true" : "false");
		if (opt.mode == M_CONDVAR)
			printf(",\"produced\":%llu,\"consumed\":%llu",
			       (unsigned long long)produced, (unsigned long long)consumed);
		if (opt.mode == M_RWLOCK)
			printf(",\"read_pct\":%ld", opt.read_pct);
		printf("}\n");
	} else {
		printf("mutexbench mode=%s threads=%d locks=%d secs=%.2f ops=%llu throughput=%.0f ops/s "
		       "min_share=%.2f max_share=%.2f jain=%.3f wait_p50_ns=%llu wait_p99_ns=%llu "
		       "wait_p999_ns=%llu",
		       mode, T, K, secs, (unsigned long long)ops, tput, min_share, max_share, jain,
		       (unsigned long long)p50, (unsigned long long)p99, (unsigned long long)p999);
		if (opt.mode == M_CONDVAR)
			printf(" produced=%llu consumed=%llu",
			       (unsigned long long)produced, (unsigned long long)consumed);
		if (opt.mode == M_RWLOCK)
			printf(" read_pct=%ld", opt.read_pct);
		printf("\n");
	}
	fflush(stdout);

	if (!excl_ok) {
		fprintf(stderr, "mutexbench: mutual exclusion violated: counters sum to %llu "
		        "but %llu acquisitions were made (%llu lost updates), %llu overlapping "
		        "critical sections seen\n", (unsigned long long)counted,
		        (unsigned long long)acq, (unsigned long long)(acq - counted),
		        (unsigned long long)overlaps);
		return 1;
	}
	if (!queue_ok) {
		fprintf(stderr, "mutexbench: condvar queue lost items: produced=%llu consumed=%llu\n",
		        (unsigned long long)produced, (unsigned long long)consumed);
		return 1;
	}
	return 0;
}
