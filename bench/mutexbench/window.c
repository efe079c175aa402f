/*
 * window.c - opening and closing the steady window (see window.h), and
 * reading the per-thread counters at its edges.
 */
#include <string.h>

#include "mutexbench.h"
#include "ticks.h"
#include "window.h"

/* If some thread still has no op this long after the warm-up, the window
 * opens anyway (and says so): a starving lock must not hang the run. */
#define ALL_ACQUIRED_CAP_NS 2000000000ull

const char *const mb_rule_names[] = { "warmup", "all_acquired", "timeout" };

static void sleep_until(uint64_t deadline)
{
	for (uint64_t now; (now = mb_now_ns()) < deadline;) {
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
	return pthread_getcpuclockid(t, &c) == 0 ? mb_clock_ns(c) : 0;
}

/* One thread's ops and hold as a pair: its hold at most one section ahead
 * of its ops (a section bumps hold, then its op bumps ops).  Read apart, a
 * main thread preempted between the two loads saw hundreds of sections
 * more in hold than in ops.  So: ops, hold, ops again, until ops stayed.
 * The loads are acquires against bump()'s release stores: a hold from
 * section n+2 is written after ops reached n+1, so seeing it means the
 * second read of ops sees n+1 too and the pair is read again.  Bounded:
 * a thread that keeps running ends up read apart, as before. */
static void read_ops_hold(const struct mb_thread *t, uint64_t *ops, uint64_t *hold)
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
	for (int i = 0; i < mb_opt.threads; i++) {
		read_ops_hold(&mb_thr[i], &ops[i], &hold[i]);
		cpu[i] = thread_cpu_ns(mb_thr[i].tid);
	}
	if (getrusage(RUSAGE_SELF, ru) != 0)
		memset(ru, 0, sizeof *ru);
}

/* Called right after the start barrier.  Waits out the warm-up and every
 * thread's first op (up to ALL_ACQUIRED_CAP_NS more), then measures
 * --seconds; the counters are read one thread after another, a skew of
 * microseconds against a window of a fraction of a second. */
void mb_measure_window(struct mb_window *w)
{
	int T = mb_opt.threads;
	uint64_t warm_end = mb_start_ns + (uint64_t)(mb_opt.warmup * 1e9);
	sleep_until(warm_end);
	bool late = atomic_load_explicit(&mb_first_ops, memory_order_relaxed) < T;
	uint64_t cap = warm_end + ALL_ACQUIRED_CAP_NS;
	while (atomic_load_explicit(&mb_first_ops, memory_order_relaxed) < T && mb_now_ns() < cap)
		sleep_until(mb_now_ns() + 200000);  /* 0.2 ms polls: the window opens that close */
	w->rule = atomic_load_explicit(&mb_first_ops, memory_order_relaxed) < T ? W_TIMEOUT :
	          late ? W_ALL_ACQUIRED : W_WARMUP;
	w->ops0 = mb_xcalloc((size_t)T, sizeof(uint64_t));
	w->ops1 = mb_xcalloc((size_t)T, sizeof(uint64_t));
	w->hold0 = mb_xcalloc((size_t)T, sizeof(uint64_t));
	w->hold1 = mb_xcalloc((size_t)T, sizeof(uint64_t));
	w->cpu0 = mb_xcalloc((size_t)T, sizeof(uint64_t));
	w->cpu1 = mb_xcalloc((size_t)T, sizeof(uint64_t));
	/* The per-op clock's window first, then the flag that publishes it
	 * (a release: a thread that sees the flag sees the clock). */
	mb_ticks_open_window(&mb_window_clock);
	atomic_store_explicit(&mb_measuring, true, memory_order_release);
	w->start = mb_now_ns();
	snapshot(w->ops0, w->hold0, w->cpu0, &w->ru0);
	sleep_until(w->start + (uint64_t)(mb_opt.seconds * 1e9));
	snapshot(w->ops1, w->hold1, w->cpu1, &w->ru1);
	w->end = mb_now_ns();
	/* The short windows last as long as this window, to the tick: read
	 * from the clock, a main thread preempted between the two reads would
	 * make them longer or shorter. */
	uint64_t len = (uint64_t)((double)(w->end - w->start) / mb_window_clock.ns_per_tick);
	atomic_store_explicit(&mb_window_clock.end, mb_window_clock.start + len, memory_order_relaxed);
	atomic_store_explicit(&mb_measuring, false, memory_order_relaxed);
}

double mb_since_start(uint64_t t)
{
	return t > mb_start_ns ? (double)(t - mb_start_ns) / 1e9 : 0.0;
}

