/*
 * mutexbench - MutexBench (from the Capacitor paper), extended.
 *
 * T threads loop for a fixed interval: acquire, critical section, release,
 * non-critical section.  Reports throughput, per-thread fairness (min/max
 * share, Jain's index) of acquisitions and of hold time, and sampled
 * acquire-wait percentiles, and checks that the lock really excluded: a
 * lost update or an overlap makes it exit 1.
 *
 * Everything but the exclusion check is measured over a steady window, not
 * from the start barrier: under a slow lock on a loaded machine the first
 * milliseconds after the barrier can hand one thread 100x the others' count
 * before the rest have even reached the lock, and that burst does not shrink
 * with a longer run.  The window opens once the warm-up has passed and every
 * thread has finished an op (the exact rule is in docs/bench.md).
 *
 * Thread classes (--classes, --mixed) give threads critical sections of
 * different lengths: the "scheduler subversion" case of Patel et al.,
 * "Avoiding Scheduler Subversion using Scheduler-Cooperative Locks"
 * (EuroSys 2020), where a lock fair in acquisitions hands most of its hold
 * time (lock opportunity) to the long holders.
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
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
#define MAX_CLASSES 16
/* If some thread still has no op this long after the warm-up, the window
 * opens anyway (and says so): a starving lock must not hang the run. */
#define ALL_ACQUIRED_CAP_NS 2000000000ull

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
	int cls;                     /* its class: index into opt.class_cs */
	int nice;                    /* --nice: its increment, then its nice value */
	long cs_work;                /* its critical section's PRNG steps */
	pthread_t tid;
	uint64_t rng;
	/* ops and hold are read by the main thread at the window's edges while
	 * this thread runs: atomics, written only by their thread (a load
	 * and a release store, a plain mov on x86, no locked instruction). */
	_Atomic uint64_t ops, hold;
	uint64_t acq, overlaps, produced, consumed, reads;
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
	double warmup, late_thread;
	bool time_holds;
	int nclasses;                /* 0: no classes given, every thread uses cs_work */
	long class_cs[MAX_CLASSES];
	const char *classes_text;
	int nnice;                   /* 0: no --nice */
	long nice_inc[MAX_CLASSES];
} opt = { M_MUTEX, 4, 1, 1.0, 10, 0, 10, 1, false, false, 90, 0.2, 0, false, 0, {0}, NULL };

static struct lock *locks;
static struct cline *lines;      /* locks * cs_lines, lock k owns its own slice */
static struct thread *thr;
static pthread_barrier_t start_barrier, end_barrier;
static atomic_bool stop;
static atomic_bool measuring;    /* inside the window: wait samples are kept */
static atomic_int first_ops;     /* threads that have finished an op */
static _Atomic uint64_t all_acquired_ns;   /* when the last one did (0: not yet) */
static _Atomic uint64_t start_at;   /* the start barrier's release: see mark_start */
static uint64_t start_ns;        /* start_at, as the main thread read it */
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

/* Clock c in ns; 0 if it cannot be read (a thread's CPU-time clock after
 * the thread is gone; never CLOCK_MONOTONIC). */
static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The first thread (worker or main) out of the start barrier sets start_at:
 * the release, as closely as any thread saw it.  Taken by the main thread
 * alone, a main thread scheduled late would put the start after some
 * workers' first ops, and times measured from it would come out short. */
static void mark_start(void)
{
	uint64_t none = 0;
	atomic_compare_exchange_strong_explicit(&start_at, &none, now_ns(),
	                                        memory_order_relaxed, memory_order_relaxed);
}

/* Add to a counter only its own thread writes (see struct thread).  The
 * store is a release so that a reader who sees it also sees the thread's
 * earlier bumps (snapshot() relies on it to pair ops with hold); on x86
 * a release store is the same plain mov. */
static inline void bump(_Atomic uint64_t *c, uint64_t d)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + d,
	                      memory_order_release);
}

/* The hold clock of --time-holds: the TSC on x86 (about 20 cycles, and
 * shares need no conversion to ns), CLOCK_MONOTONIC elsewhere. */
static inline uint64_t hold_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return now_ns();
#endif
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
	if (sample && atomic_load_explicit(&measuring, memory_order_relaxed))
		record_sample(t, now_ns() - t0);
}

static void release(pthread_mutex_t *m)
{
	int e = pthread_mutex_unlock(m);
	if (e)
		die("pthread_mutex_unlock", e);
}

/* ---- the critical section and its exclusion check ---- */

/* Hold time of one section in work units: its PRNG steps, its cache lines,
 * and 1 for the fixed part (owner and counter), so a --cs-work 0 section
 * still counts.  Deterministic: a holder preempted inside is not seen
 * (--time-holds sees it). */
static inline uint64_t hold_units(const struct thread *t)
{
	return 1 + (uint64_t)t->cs_work + (uint64_t)opt.cs_lines;
}

static void critical_section(struct thread *t, struct lock *lk, int k)
{
	uint64_t h0 = opt.time_holds ? hold_clock() : 0;
	unsigned me = (unsigned)t->id + 1;
	lk->owner = me;
	uint64_t v = lk->count;
	lk->rng = rng_steps(lk->rng, t->cs_work);
	struct cline *cl = lines + (size_t)k * (size_t)opt.cs_lines;
	for (long i = 0; i < opt.cs_lines; i++)
		cl[i].w[0] += v;
	lk->count = v + 1;
	if (lk->owner != me)         /* someone else got in while we were inside */
		t->overlaps++;
	t->acq++;
	bump(&t->hold, opt.time_holds ? hold_clock() - h0 : hold_units(t));
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
	if (atomic_load_explicit(&t->ops, memory_order_relaxed) & 1) {
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
	uint64_t h0 = opt.time_holds ? hold_clock() : 0;
	uint64_t v = lk->count, sum = 0;
	if (lk->owner != 0)
		t->overlaps++;
	uint64_t r = rng_steps(lk->rng, t->cs_work);    /* the same work, on a copy */
	struct cline *cl = lines + (size_t)k * (size_t)opt.cs_lines;
	for (long i = 0; i < opt.cs_lines; i++)
		sum += cl[i].w[0];
	if (lk->owner != 0 || lk->count != v)
		t->overlaps++;
	t->rng ^= r ^ sum;                               /* keep the reads */
	t->reads++;
	bump(&t->hold, opt.time_holds ? hold_clock() - h0 : hold_units(t));
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
	if (sample && atomic_load_explicit(&measuring, memory_order_relaxed))
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
	if (opt.nnice) {
		/* A new thread starts at its creator's nice value; Linux keeps one
		 * per thread, and PRIO_PROCESS takes a thread id. */
		id_t me = (id_t)syscall(SYS_gettid);
		errno = 0;
		int now = getpriority(PRIO_PROCESS, me);
		if ((now == -1 && errno) || setpriority(PRIO_PROCESS, me, now + t->nice) != 0)
			die("setpriority", errno);
		t->nice = getpriority(PRIO_PROCESS, me);
	}
	pthread_barrier_wait(&start_barrier);
	mark_start();
	if (opt.late_thread > 0 && t->id == opt.threads - 1) {
		/* Test-only: a thread that reaches the lock late, so the window
		 * rules "all_acquired" and "timeout" can be exercised. */
		struct timespec nap = { (time_t)opt.late_thread,
		                        (long)((opt.late_thread - (double)(time_t)opt.late_thread) * 1e9) };
		while (nanosleep(&nap, &nap) == -1 && errno == EINTR)
			;
	}
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
		bump(&t->ops, 1);
		if (atomic_load_explicit(&t->ops, memory_order_relaxed) == 1) {
			/* The clock first: the main thread opens the window only
			 * after it sees the count complete, so this time is never
			 * later than the window's start. */
			uint64_t when = now_ns();
			if (atomic_fetch_add_explicit(&first_ops, 1, memory_order_relaxed) + 1 ==
			    opt.threads)
				atomic_store_explicit(&all_acquired_ns, when, memory_order_relaxed);
		}
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

static double parse_seconds(const char *name, const char *s, bool zero_ok)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		usage_error("--%s: not a number: '%s'", name, s);
	if ((zero_ok ? v < 0 : v <= 0) || v > 1e6)
		usage_error("--%s must be %s and <= 1e6, got %s", name, zero_ok ? ">= 0" : "> 0", s);
	return v;
}

/* --FLAG 10,100,...: a comma list of at most MAX_CLASSES whole numbers in
 * 0..max into out; returns how many.  `items` and `example` word the
 * error, `unit` follows the bound in it. */
static int parse_list(const char *flag, const char *text, long max, const char *items,
                      const char *example, const char *unit, long *out)
{
	int n = 0;
	const char *p = text;
	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || *p == '-' || *p == '+' || *p == ' ')
			usage_error("--%s: expected %s like %s, got '%s'", flag, items, example, text);
		if (v > max)
			usage_error("--%s: %ld is over %ld%s", flag, v, max, unit);
		if (n == MAX_CLASSES)
			usage_error("--%s: at most %d %s", flag, MAX_CLASSES, items);
		out[n++] = v;
		if (!*end)
			return n;
		p = end + 1;
	}
}

/* --classes 10,100,...: one critical-section work per class. */
static void parse_classes(const char *text)
{
	opt.classes_text = text;
	opt.nclasses = parse_list("classes", text, 1L << 30, "critical-section works", "10,100",
	                          " steps", opt.class_cs);
}

/* --nice 0,3,...: nice increments, thread i takes the (i % n)th. */
static void parse_nice(const char *text)
{
	opt.nnice = parse_list("nice", text, 19, "nice increments", "0,3",
	                       ", the largest nice value", opt.nice_inc);
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
	       "  --warmup S      seconds before the measured window may open (default 0.2);\n"
	       "                  it also waits for every thread's first op\n"
	       "  --classes LIST  thread classes by critical-section work, e.g. 10,100:\n"
	       "                  thread i is in class i %% (number of classes)\n"
	       "  --mixed F       two classes: --cs-work and F times it (half the threads each)\n"
	       "  --nice LIST     nice increments, e.g. 0,3: thread i raises its nice value by\n"
	       "                  LIST[i %% n] (raising needs no privilege)\n"
	       "  --time-holds    hold shares from a clock read around each critical section\n"
	       "                  (TSC on x86) instead of counted work units\n"
	       "  --json          one JSON object instead of the human line\n"
	       "  --help          this text\n");
}

static void parse_args(int argc, char **argv)
{
	enum { O_THREADS = 256, O_SECONDS, O_CSWORK, O_CSLINES, O_NCSWORK, O_LOCKS,
	       O_MODE, O_JSON, O_SEED, O_BREAK, O_READPCT, O_WARMUP, O_CLASSES, O_MIXED,
	       O_TIMEHOLDS, O_LATE, O_NICE };
	long mixed = 0;
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
		{ "warmup",   required_argument, 0, O_WARMUP },
		{ "classes",  required_argument, 0, O_CLASSES },
		{ "mixed",    required_argument, 0, O_MIXED },
		{ "time-holds", no_argument,     0, O_TIMEHOLDS },
		{ "nice",     required_argument, 0, O_NICE },
		{ "help",     no_argument,       0, 'h' },
		{ "break-exclusion", no_argument, 0, O_BREAK },  /* test-only, hidden */
		{ "late-thread", required_argument, 0, O_LATE }, /* test-only, hidden */
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
		case O_MIXED:   mixed = parse_long("mixed", optarg, 1, 1L << 20); break;
		case O_TIMEHOLDS: opt.time_holds = true; break;
		case O_CLASSES: parse_classes(optarg); break;
		case O_NICE:    parse_nice(optarg); break;
		case O_SECONDS: opt.seconds = parse_seconds("seconds", optarg, false); break;
		case O_WARMUP:  opt.warmup = parse_seconds("warmup", optarg, true); break;
		case O_LATE:    opt.late_thread = parse_seconds("late-thread", optarg, true); break;
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
	if (mixed && opt.classes_text)
		usage_error("give --mixed or --classes, not both");
	if (mixed) {
		if (opt.cs_work * mixed > 1L << 30)
			usage_error("--mixed %ld x --cs-work %ld is over %ld steps", mixed, opt.cs_work, 1L << 30);
		opt.nclasses = 2;
		opt.class_cs[0] = opt.cs_work;
		opt.class_cs[1] = opt.cs_work * mixed;
	}
	if (opt.nclasses > opt.threads)
		usage_error("%d classes need at least as many threads, got --threads %d",
		            opt.nclasses, opt.threads);
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

/* Fairness of per-thread amounts x[0..n): share = x / mean. */
struct shares {
	uint64_t total;
	double min_share, max_share, min_max, jain;
};

static struct shares shares_of(const uint64_t *x, int n)
{
	struct shares s = { 0 };
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

/* ---- the measured window ---- */

enum rule { W_WARMUP, W_ALL_ACQUIRED, W_TIMEOUT };
static const char *const rule_names[] = { "warmup", "all_acquired", "timeout" };

struct window {
	uint64_t start, end;         /* ns, CLOCK_MONOTONIC */
	enum rule rule;
	uint64_t *ops0, *ops1, *hold0, *hold1;   /* per-thread counters at start, end */
	uint64_t *cpu0, *cpu1;       /* per-thread CPU time (ns) at start, end */
	struct rusage ru0, ru1;      /* the process's context switches at start, end */
};

static void sleep_until(uint64_t deadline)
{
	for (uint64_t now; (now = now_ns()) < deadline;) {
		uint64_t left = deadline - now;
		struct timespec nap = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		nanosleep(&nap, NULL);   /* EINTR or early wake: the loop re-checks */
	}
}

/* A thread's CPU time so far, from its CPU-time clock (readable from any
 * thread of the process); 0 if the clock cannot be read. */
static uint64_t thread_cpu_ns(pthread_t t)
{
	clockid_t c;
	return pthread_getcpuclockid(t, &c) == 0 ? clock_ns(c) : 0;
}

/* One thread's ops and hold as a pair: its hold at most one section ahead
 * of its ops (a section bumps hold, then its op bumps ops).  Read apart, a
 * main thread preempted between the two loads saw hundreds of sections
 * more in hold than in ops.  So: ops, hold, ops again, until ops stayed.
 * The loads are acquires against bump()'s release stores: a hold from
 * section n+2 is written after ops reached n+1, so seeing it means the
 * second read of ops sees n+1 too and the pair is read again.  Bounded:
 * a thread that keeps running ends up read apart, as before. */
static void read_ops_hold(const struct thread *t, uint64_t *ops, uint64_t *hold)
{
	for (int tries = 0;; tries++) {
		uint64_t o = atomic_load_explicit(&t->ops, memory_order_acquire);
		*hold = atomic_load_explicit(&t->hold, memory_order_acquire);
		*ops = atomic_load_explicit(&t->ops, memory_order_acquire);
		if (*ops == o || tries == 1000)
			return;
	}
}

static void snapshot(uint64_t *ops, uint64_t *hold, uint64_t *cpu, struct rusage *ru)
{
	for (int i = 0; i < opt.threads; i++) {
		read_ops_hold(&thr[i], &ops[i], &hold[i]);
		cpu[i] = thread_cpu_ns(thr[i].tid);
	}
	if (getrusage(RUSAGE_SELF, ru) != 0)
		memset(ru, 0, sizeof *ru);
}

/* Called right after the start barrier.  Waits out the warm-up and every
 * thread's first op (up to ALL_ACQUIRED_CAP_NS more), then measures
 * --seconds; the counters are read one thread after another, a skew of
 * microseconds against a window of a fraction of a second. */
static void measure_window(struct window *w)
{
	int T = opt.threads;
	uint64_t warm_end = start_ns + (uint64_t)(opt.warmup * 1e9);
	sleep_until(warm_end);
	bool late = atomic_load_explicit(&first_ops, memory_order_relaxed) < T;
	uint64_t cap = warm_end + ALL_ACQUIRED_CAP_NS;
	while (atomic_load_explicit(&first_ops, memory_order_relaxed) < T && now_ns() < cap)
		sleep_until(now_ns() + 200000);  /* 0.2 ms polls: the window opens that close */
	w->rule = atomic_load_explicit(&first_ops, memory_order_relaxed) < T ? W_TIMEOUT :
	          late ? W_ALL_ACQUIRED : W_WARMUP;
	w->ops0 = xcalloc((size_t)T, sizeof(uint64_t));
	w->ops1 = xcalloc((size_t)T, sizeof(uint64_t));
	w->hold0 = xcalloc((size_t)T, sizeof(uint64_t));
	w->hold1 = xcalloc((size_t)T, sizeof(uint64_t));
	w->cpu0 = xcalloc((size_t)T, sizeof(uint64_t));
	w->cpu1 = xcalloc((size_t)T, sizeof(uint64_t));
	atomic_store_explicit(&measuring, true, memory_order_relaxed);
	w->start = now_ns();
	snapshot(w->ops0, w->hold0, w->cpu0, &w->ru0);
	sleep_until(w->start + (uint64_t)(opt.seconds * 1e9));
	snapshot(w->ops1, w->hold1, w->cpu1, &w->ru1);
	w->end = now_ns();
	atomic_store_explicit(&measuring, false, memory_order_relaxed);
}

static double since_start(uint64_t t)
{
	return t > start_ns ? (double)(t - start_ns) / 1e9 : 0.0;
}

/* ---- output ---- */

static void print_u64_array(const char *key, const uint64_t *v, int n)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

static void print_share_array(const char *key, const uint64_t *v, int n, uint64_t total)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s%.6f", i ? "," : "", total ? (double)v[i] / (double)total : 0.0);
	printf("]");
}

/* Per class: its threads, ops and hold time in the window, and its shares
 * relative to equal: (class share) / (class threads / threads), 1.0 when
 * the class got exactly its headcount's part. */
struct class_sum {
	int threads;
	uint64_t ops, hold;
	double ops_vs_equal, hold_vs_equal;
};

static void sum_classes(struct class_sum *c, const uint64_t *ops, const uint64_t *hold,
                        uint64_t ops_total, uint64_t hold_total)
{
	int T = opt.threads;
	memset(c, 0, sizeof *c * (size_t)opt.nclasses);
	for (int i = 0; i < T; i++) {
		c[thr[i].cls].threads++;
		c[thr[i].cls].ops += ops[i];
		c[thr[i].cls].hold += hold[i];
	}
	for (int k = 0; k < opt.nclasses; k++) {
		double equal = (double)c[k].threads / T;
		c[k].ops_vs_equal = ops_total ? (double)c[k].ops / (double)ops_total / equal : 0;
		c[k].hold_vs_equal = hold_total ? (double)c[k].hold / (double)hold_total / equal : 0;
	}
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
		/* Classes interleave (thread i in class i % n), so creation order,
		 * which can favour the first threads at the start, spreads evenly. */
		t->cls = opt.nclasses ? i % opt.nclasses : 0;
		t->cs_work = opt.nclasses ? opt.class_cs[t->cls] : opt.cs_work;
		t->nice = opt.nnice ? (int)opt.nice_inc[i % opt.nnice] : 0;
		t->rng = (opt.seed + 1) * 0xBF58476D1CE4E5B9ULL + (uint64_t)i * 0x94D049BB133111EBULL + 1;
		t->samples = xcalloc(SAMPLE_CAP, sizeof *t->samples);
		int e = pthread_create(&t->tid, NULL, worker, t);
		if (e)
			die("pthread_create", e);
	}

	pthread_barrier_wait(&start_barrier);
	mark_start();
	start_ns = atomic_load_explicit(&start_at, memory_order_relaxed);
	struct window w;
	measure_window(&w);
	atomic_store_explicit(&stop, true, memory_order_release);
	uint64_t run_end = now_ns();
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

	/* Fairness over the window's per-thread ops and hold. */
	uint64_t *wops = xcalloc((size_t)T, sizeof *wops), *whold = xcalloc((size_t)T, sizeof *whold);
	uint64_t *wcpu = xcalloc((size_t)T, sizeof *wcpu);
	uint64_t total_ops = 0, acq = 0, overlaps = 0, produced = 0, consumed = 0, nsamp = 0;
	for (int i = 0; i < T; i++) {
		wops[i] = w.ops1[i] - w.ops0[i];
		whold[i] = w.hold1[i] - w.hold0[i];
		wcpu[i] = w.cpu1[i] > w.cpu0[i] ? w.cpu1[i] - w.cpu0[i] : 0;
		total_ops += atomic_load_explicit(&thr[i].ops, memory_order_relaxed);
		acq += thr[i].acq;
		overlaps += thr[i].overlaps;
		produced += thr[i].produced;
		consumed += thr[i].consumed;
		nsamp += thr[i].nsamples;
	}
	struct shares so = shares_of(wops, T), sh = shares_of(whold, T), sc = shares_of(wcpu, T);
	/* The whole process's, main thread included (it sleeps through the
	 * window: one or two switches). */
	uint64_t vcsw = (uint64_t)(w.ru1.ru_nvcsw - w.ru0.ru_nvcsw),
	         ivcsw = (uint64_t)(w.ru1.ru_nivcsw - w.ru0.ru_nivcsw);
	struct class_sum cls[MAX_CLASSES];
	double cls_min = 0, cls_max = 0;
	if (opt.nclasses) {
		sum_classes(cls, wops, whold, so.total, sh.total);
		cls_min = cls_max = cls[0].hold_vs_equal;
		for (int k = 1; k < opt.nclasses; k++) {
			if (cls[k].hold_vs_equal < cls_min) cls_min = cls[k].hold_vs_equal;
			if (cls[k].hold_vs_equal > cls_max) cls_max = cls[k].hold_vs_equal;
		}
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

	/* Exclusion, over the whole run: every acquisition added exactly one
	 * to its lock's counter. */
	uint64_t counted = 0;
	for (int k = 0; k < K; k++)
		counted += locks[k].count;
	bool excl_ok = counted == acq && overlaps == 0;
	bool queue_ok = opt.mode != M_CONDVAR || produced == consumed;

	double secs = (double)(w.end - w.start) / 1e9;
	double tput = (double)so.total / secs;
	uint64_t all_acq = atomic_load_explicit(&all_acquired_ns, memory_order_relaxed);
	const char *mode = mode_names[opt.mode];
	const char *hold_measure = !opt.time_holds ? "work_units" :
#if defined(__x86_64__) || defined(__i386__)
	                           "tsc_ticks";
#else
	                           "ns";
#endif
	if (opt.json) {
		printf("{\"bench\":\"mutexbench\",\"mode\":\"%s\",\"threads\":%d,\"locks\":%d,"
		       "\"seconds\":%.3f,\"ops\":%llu,\"throughput\":%.1f,\"min_share\":%.4f,"
		       "\"max_share\":%.4f,\"jain\":%.4f,\"wait_p50_ns\":%llu,\"wait_p99_ns\":%llu,"
		       "\"wait_p999_ns\":%llu",
		       mode, T, K, secs, (unsigned long long)so.total, tput, so.min_share,
		       so.max_share, so.jain, (unsigned long long)p50, (unsigned long long)p99,
		       (unsigned long long)p999);
		print_u64_array("per_thread_ops", wops, T);
		printf(",\"exclusion_ok\":%s", excl_ok ? "true" : "false");
		if (opt.mode == M_CONDVAR)
			printf(",\"produced\":%llu,\"consumed\":%llu",
			       (unsigned long long)produced, (unsigned long long)consumed);
		if (opt.mode == M_RWLOCK)
			printf(",\"read_pct\":%ld", opt.read_pct);
		printf(",\"warmup_s\":%.3f,\"window_start_s\":%.4f,\"window_end_s\":%.4f,"
		       "\"window_rule\":\"%s\",\"all_acquired_s\":",
		       opt.warmup, since_start(w.start), since_start(w.end), rule_names[w.rule]);
		if (all_acq)
			printf("%.4f", since_start(all_acq));
		else
			printf("null");
		printf(",\"run_seconds\":%.3f,\"total_ops\":%llu,\"min_max\":%.4f",
		       (double)(run_end - start_ns) / 1e9, (unsigned long long)total_ops, so.min_max);
		print_share_array("per_thread_ops_share", wops, T, so.total);
		printf(",\"hold_measure\":\"%s\"", hold_measure);
		print_u64_array("per_thread_hold", whold, T);
		print_share_array("per_thread_hold_share", whold, T, sh.total);
		printf(",\"hold_min_share\":%.4f,\"hold_max_share\":%.4f,\"hold_min_max\":%.4f,"
		       "\"hold_jain\":%.4f", sh.min_share, sh.max_share, sh.min_max, sh.jain);
		if (opt.nnice) {
			printf(",\"per_thread_nice\":[");
			for (int i = 0; i < T; i++)
				printf("%s%d", i ? "," : "", thr[i].nice);
			printf("]");
		}
		print_u64_array("per_thread_cpu_ns", wcpu, T);
		print_share_array("per_thread_cpu_share", wcpu, T, sc.total);
		printf(",\"cpu_min_share\":%.4f,\"cpu_max_share\":%.4f,\"voluntary_switches\":%llu,"
		       "\"involuntary_switches\":%llu", sc.min_share, sc.max_share,
		       (unsigned long long)vcsw, (unsigned long long)ivcsw);
		if (opt.nclasses) {
			printf(",\"classes\":[");
			for (int k = 0; k < opt.nclasses; k++)
				printf("%s{\"cs_work\":%ld,\"threads\":%d,\"ops\":%llu,\"hold\":%llu,"
				       "\"ops_vs_equal\":%.4f,\"hold_vs_equal\":%.4f}", k ? "," : "",
				       opt.class_cs[k], cls[k].threads, (unsigned long long)cls[k].ops,
				       (unsigned long long)cls[k].hold, cls[k].ops_vs_equal,
				       cls[k].hold_vs_equal);
			printf("],\"class_hold_min_vs_equal\":%.4f,\"class_hold_max_vs_equal\":%.4f",
			       cls_min, cls_max);
		}
		printf("}\n");
	} else {
		printf("mutexbench mode=%s threads=%d locks=%d secs=%.2f ops=%llu throughput=%.0f ops/s "
		       "min_share=%.2f max_share=%.2f jain=%.3f wait_p50_ns=%llu wait_p99_ns=%llu "
		       "wait_p999_ns=%llu",
		       mode, T, K, secs, (unsigned long long)so.total, tput, so.min_share, so.max_share,
		       so.jain, (unsigned long long)p50, (unsigned long long)p99, (unsigned long long)p999);
		if (opt.mode == M_CONDVAR)
			printf(" produced=%llu consumed=%llu",
			       (unsigned long long)produced, (unsigned long long)consumed);
		if (opt.mode == M_RWLOCK)
			printf(" read_pct=%ld", opt.read_pct);
		printf(" hold_min_share=%.2f hold_jain=%.3f cpu_min_share=%.2f switches=%llu+%llu"
		       " window=%.2f-%.2fs(%s)", sh.min_share, sh.jain, sc.min_share,
		       (unsigned long long)vcsw, (unsigned long long)ivcsw, since_start(w.start),
		       since_start(w.end), rule_names[w.rule]);
		if (opt.nclasses) {
			printf(" class_hold_vs_equal=");
			for (int k = 0; k < opt.nclasses; k++)
				printf("%s%.2f", k ? "/" : "", cls[k].hold_vs_equal);
		}
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
