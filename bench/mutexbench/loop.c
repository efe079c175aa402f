/*
 * loop.c - the timed loop: what each worker thread does from the start
 * barrier to the stop flag, mode by mode, and the exclusion check inside
 * every critical section.  Everything here runs once per op, so it stays
 * cheap: per-op bookkeeping is the per-op clock (ticks.h), a few counters
 * and, in request mode, one histogram bump.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mutexbench.h"
#include "ticks.h"

/* The first thread (worker or main) out of the start barrier sets mb_start_at:
 * the release, as closely as any thread saw it.  Taken by the main thread
 * alone, a main thread scheduled late would put the start after some
 * workers' first ops, and times measured from it would come out short. */
void mb_mark_start(void)
{
	uint64_t none = 0;
	atomic_compare_exchange_strong_explicit(&mb_start_at, &none, mb_now_ns(),
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
	return mb_now_ns();
#endif
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

static void record_sample(struct mb_thread *t, uint64_t ns)
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
		mb_die("pthread_mutex_trylock", e);
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
			mb_die("pthread_mutex_timedlock", e);
	}
}

/* H_REQUEST locks as H_LOCK but never times the wait: request mode times
 * whole requests, and two clock reads in 1 request of 64 would lengthen
 * exactly the requests its tail is made of. */
enum mb_how { H_LOCK, H_TRY, H_TIMED, H_REQUEST };

static void acquire(struct mb_thread *t, pthread_mutex_t *m, enum mb_how how)
{
	bool sample = how != H_REQUEST && (t->acq & SAMPLE_MASK) == 0;
	uint64_t t0 = sample ? mb_now_ns() : 0;
	int e = 0;
	switch (how) {
	case H_LOCK:
	case H_REQUEST: e = pthread_mutex_lock(m); break;
	case H_TRY:   acquire_trylock(m); break;
	case H_TIMED: acquire_timedlock(m); break;
	}
	if (e)
		mb_die("pthread_mutex_lock", e);
	if (sample && atomic_load_explicit(&mb_measuring, memory_order_relaxed))
		record_sample(t, mb_now_ns() - t0);
}

static void release(pthread_mutex_t *m)
{
	int e = pthread_mutex_unlock(m);
	if (e)
		mb_die("pthread_mutex_unlock", e);
}

/* ---- the critical section and its exclusion check ---- */

/* Hold time of one section in work units: its PRNG steps, its cache lines,
 * and 1 for the fixed part (owner and counter), so a --cs-work 0 section
 * still counts.  Deterministic: a holder preempted inside is not seen
 * (--time-holds sees it). */
static inline uint64_t hold_units(const struct mb_thread *t)
{
	return 1 + (uint64_t)t->cs_work + (uint64_t)mb_opt.cs_lines;
}

static void critical_section(struct mb_thread *t, struct mb_lock *lk, int k)
{
	uint64_t h0 = mb_opt.time_holds ? hold_clock() : 0;
	unsigned me = (unsigned)t->id + 1;
	lk->owner = me;
	uint64_t v = lk->count;
	lk->rng = rng_steps(lk->rng, t->cs_work);
	struct mb_cline *cl = mb_lines + (size_t)k * (size_t)mb_opt.cs_lines;
	for (long i = 0; i < mb_opt.cs_lines; i++)
		cl[i].w[0] += v;
	lk->count = v + 1;
	if (lk->owner != me)         /* someone else got in while we were inside */
		t->overlaps++;
	t->acq++;
	bump(&t->hold, mb_opt.time_holds ? hold_clock() - h0 : hold_units(t));
}

static void noncritical_section(struct mb_thread *t)
{
	t->rng = rng_steps(t->rng, mb_opt.ncs_work);
}

/* Thread 0 skips the lock under --break-exclusion, so the checker must fire. */
static bool skips_lock(const struct mb_thread *t)
{
	return mb_opt.break_excl && t->id == 0;
}

static int pick_lock(struct mb_thread *t)
{
	return mb_opt.locks == 1 ? 0 : (int)(rng_next(&t->rng) % (uint64_t)mb_opt.locks);
}

/* ---- modes ---- */

static void op_plain(struct mb_thread *t, enum mb_how how)
{
	int k = pick_lock(t);
	struct mb_lock *lk = &mb_locks[k];
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
static void op_mixed_cond(struct mb_thread *t)
{
	int k = pick_lock(t);
	struct mb_lock *lk = &mb_locks[k];
	acquire(t, &lk->m, H_LOCK);
	critical_section(t, lk, k);
	if (atomic_load_explicit(&t->ops, memory_order_relaxed) & 1) {
		lk->pending++;
		pthread_cond_signal(&lk->not_empty);
	} else {
		while (lk->pending == 0 && !atomic_load_explicit(&mb_stop, memory_order_relaxed)) {
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
				mb_die("pthread_cond_timedwait", e);
		}
		if (lk->pending > 0)
			lk->pending--;
	}
	release(&lk->m);
}

static void op_mixed(struct mb_thread *t)
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
static void read_section(struct mb_thread *t, struct mb_lock *lk, int k)
{
	uint64_t h0 = mb_opt.time_holds ? hold_clock() : 0;
	uint64_t v = lk->count, sum = 0;
	if (lk->owner != 0)
		t->overlaps++;
	uint64_t r = rng_steps(lk->rng, t->cs_work);    /* the same work, on a copy */
	struct mb_cline *cl = mb_lines + (size_t)k * (size_t)mb_opt.cs_lines;
	for (long i = 0; i < mb_opt.cs_lines; i++)
		sum += cl[i].w[0];
	if (lk->owner != 0 || lk->count != v)
		t->overlaps++;
	t->rng ^= r ^ sum;                               /* keep the reads */
	t->reads++;
	bump(&t->hold, mb_opt.time_holds ? hold_clock() - h0 : hold_units(t));
}

static void op_rw(struct mb_thread *t)
{
	int k = pick_lock(t);
	struct mb_lock *lk = &mb_locks[k];
	bool read = (long)(rng_next(&t->rng) % 100) < mb_opt.read_pct;
	if (skips_lock(t)) {
		critical_section(t, lk, k);
		lk->owner = 0;
		return;
	}
	bool sample = ((t->acq + t->reads) & SAMPLE_MASK) == 0;
	uint64_t t0 = sample ? mb_now_ns() : 0;
	int e = read ? pthread_rwlock_rdlock(&lk->rw) : pthread_rwlock_wrlock(&lk->rw);
	if (e)
		mb_die(read ? "pthread_rwlock_rdlock" : "pthread_rwlock_wrlock", e);
	if (sample && atomic_load_explicit(&mb_measuring, memory_order_relaxed))
		record_sample(t, mb_now_ns() - t0);
	if (read) {
		read_section(t, lk, k);
	} else {
		critical_section(t, lk, k);
		lk->owner = 0;
	}
	if ((e = pthread_rwlock_unlock(&lk->rw)))
		mb_die("pthread_rwlock_unlock", e);
}

/* Condvar mode.  Queue k is served by producers and consumers with index
 * i % locks == k, so every queue has both and the run cannot deadlock with
 * all producers on full queues and all consumers on empty ones. */
static int queue_of(const struct mb_thread *t)
{
	int i = t->id < mb_nproducers ? t->id : t->id - mb_nproducers;
	return i % mb_opt.locks;
}

static bool produce(struct mb_thread *t, int k)
{
	struct mb_lock *lk = &mb_locks[k];
	acquire(t, &lk->m, H_LOCK);
	while (lk->len == QCAP && !atomic_load_explicit(&mb_stop, memory_order_relaxed)) {
		int e = pthread_cond_wait(&lk->not_full, &lk->m);
		if (e)
			mb_die("pthread_cond_wait", e);
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
static bool consume(struct mb_thread *t, int k, bool wait)
{
	struct mb_lock *lk = &mb_locks[k];
	acquire(t, &lk->m, H_LOCK);
	while (wait && lk->len == 0 && !atomic_load_explicit(&mb_stop, memory_order_relaxed)) {
		int e = pthread_cond_wait(&lk->not_empty, &lk->m);
		if (e)
			mb_die("pthread_cond_wait", e);
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

void *mb_worker(void *arg)
{
	struct mb_thread *t = arg;
	bool producer = t->id < mb_nproducers;
	if (mb_opt.nnice) {
		/* A new thread starts at its creator's nice value; Linux keeps one
		 * per thread, and PRIO_PROCESS takes a thread id. */
		id_t me = (id_t)syscall(SYS_gettid);
		errno = 0;
		int now = getpriority(PRIO_PROCESS, me);
		if ((now == -1 && errno) || setpriority(PRIO_PROCESS, me, now + t->nice) != 0)
			mb_die("setpriority", errno);
		t->nice = getpriority(PRIO_PROCESS, me);
	}
	pthread_barrier_wait(&mb_start_barrier);
	mb_mark_start();
	if (mb_opt.late_thread > 0 && t->id == mb_opt.threads - 1) {
		/* Test-only: a thread that reaches the lock late, so the window
		 * rules "all_acquired" and "timeout" can be exercised. */
		struct timespec nap = { (time_t)mb_opt.late_thread,
		                        (long)((mb_opt.late_thread - (double)(time_t)mb_opt.late_thread) * 1e9) };
		while (nanosleep(&nap, &nap) == -1 && errno == EINTR)
			;
	}
	uint64_t prev = mb_ticks_now();
	while (!atomic_load_explicit(&mb_stop, memory_order_relaxed)) {
		switch (mb_opt.mode) {
		case M_MUTEX:   op_plain(t, H_LOCK); break;
		case M_REQUEST: op_plain(t, H_REQUEST); break;
		case M_TRYLOCK: op_plain(t, H_TRY); break;
		case M_MIXED:   op_mixed(t); break;
		case M_RWLOCK:  op_rw(t); break;
		case M_CONDVAR:
			if (!(producer ? produce(t, queue_of(t)) : consume(t, queue_of(t), true)))
				continue;           /* woken by stop with nothing done */
			break;
		}
		/* One clock read per op, outside the lock: the op's place in the
		 * short windows, and in request mode the request's end and the
		 * next one's start (its non-critical work comes first). */
		uint64_t now = mb_ticks_now();
		if (atomic_load_explicit(&mb_measuring, memory_order_acquire)) {
			mb_short_windows_record(&t->sw, &mb_window_clock, now);
			if (mb_opt.mode == M_REQUEST)
				mb_latency_record(&t->lat, now - prev);
		}
		prev = now;
		bump(&t->ops, 1);
		if (atomic_load_explicit(&t->ops, memory_order_relaxed) == 1) {
			/* The clock first: the main thread opens the window only
			 * after it sees the count complete, so this time is never
			 * later than the window's start. */
			uint64_t when = mb_now_ns();
			if (atomic_fetch_add_explicit(&mb_first_ops, 1, memory_order_relaxed) + 1 ==
			    mb_opt.threads)
				atomic_store_explicit(&mb_all_acquired_ns, when, memory_order_relaxed);
		}
		noncritical_section(t);
	}
	if (mb_opt.mode == M_CONDVAR) {
		/* Once every producer has passed this barrier nothing more is
		 * produced, so consumers can empty the queues for an exact count. */
		pthread_barrier_wait(&mb_end_barrier);
		if (!producer)
			for (int k = 0; k < mb_opt.locks; k++)
				while (consume(t, k, false))
					;
	}
	return NULL;
}

