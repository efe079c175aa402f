/*
 * test_slice.c - lock slices around every inner lock (core/wrap/slice.h,
 * backends/slice.c): selection, mutual exclusion, trylock and timedlock
 * results, slices handed over in arrival order, the wait bound under
 * stress (a ticket with q ahead is served within q+1 slice ends),
 * timeouts and abandoned tickets that leave nothing behind, an owner that
 * stops calling (the head takes over), the gap probe (slices given up
 * where they do not pay, kept where no CPU is free), a holder that blocks
 * in a condvar wait (its slice ends with the unlock), group slices
 * (where the lock is not the bottleneck: a group forms, seats rotate,
 * exclusion holds, timed waiters leave nothing behind, a member that
 * blocks passes its seat), proportional slices (a niced thread's slice
 * scaled by its CFS weight), fork, and unlock misuse.  Behaviour only, never
 * timing: budgets are tiny so that slices end quickly, and every wait has
 * a deadline.
 */
#include "lock_checks.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../core/wrap/slice.h"
#include "../../core/wrap/slice_share.h"
#include "../../core/wrap/slice_futex.h"

static uint64_t word_of(void *s)
{
	return atomic_load(&((struct ls_slice *)s)->word);
}

/* Changes with every ticket taken and every slice opened. */
static uint64_t sl_sig(void *s)
{
	uint64_t w = word_of(s);
	return ls_slice_next_of(w) | (uint64_t)ls_slice_gen_of(w) << 16 | (w & LS_SL_OWNED);
}

static void use(const char *name, unsigned us, unsigned gap_ns)
{
	char err[256];
	ops = ls_backend_select(name, err, sizeof err);
	assert_non_null(ops);
	sig = sl_sig;
	atomic_store(&ls_slice_us, us);
	atomic_store(&ls_slice_gap_ns, gap_ns);
}

static int restore(void **state)
{
	use("slice", 250, 300);
	atomic_store(&ls_slice_busy_pays, 1);
	atomic_store(&ls_slice_seats, 0); /* the default */
	atomic_store(&ls_slice_shares, LS_SLICE_SHARES_EQUAL);
	atomic_store(&ls_slice_wake_us, 0); /* the default */
	atomic_store(&ls_slice_trace, NULL);
	ls_slice_self.lock = NULL;
	return 0;
}

/* slice:futex's lock word (core/wrap/slice_futex.h), or 0 under another
 * inner lock. */
extern const struct ls_lock_ops ls_backend_slice_futex; /* backends/slice.c */

static uint32_t sf_word(void)
{
	if (ops != &ls_backend_slice_futex)
		return 0;
	return atomic_load(&((struct ls_slice_futex *)(void *)st)->word);
}

/* Nobody queued, nothing abandoned, the inner lock free, and (slice:futex)
 * no reservation left where no slice runs. */
static void assert_idle(void)
{
	uint64_t w = word_of(st);
	assert_int_equal(ls_slice_queue_of(w), 0);
	assert_false(w & LS_SL_GHOST);
	assert_false(ops->is_locked(st));
	if (!(w & LS_SL_OWNED))
		assert_false(sf_word() & LS_SF_RESERVED);
}

#define WRAPPER "slice"
#include "inner_names.h"

static void test_select(void **state)
{
	char err[256];
	const struct ls_lock_ops *r = ls_backend_select("slice", err, sizeof err);
	assert_non_null(r);
	assert_string_equal(r->name, "slice");
	assert_null(ls_backend_select("slice:slice", err, sizeof err));
	assert_null(ls_backend_select("slice:capacitor", err, sizeof err));
	assert_null(ls_backend_select("slice:glibc", err, sizeof err));
	assert_null(ls_backend_select("slice:bcs", err, sizeof err)); /* 16 bytes: no room */
}

static void test_mutex_all(void **state)
{
	/* A budget that ends slices every few acquisitions, the default, and
	 * a probe that never lets slices pay (the lock stays open). */
	static const unsigned shapes[][2] = { { 10, 100000000 }, { 250, 300 }, { 250, 0 } };
	mx_iters = 3000;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (size_t i = 0; i < NINNERS; i++) {
			use(inners[i], shapes[s][0], shapes[s][1]);
			check_mutex();
			assert_idle();
		}
}

static void test_try_timed_all(void **state)
{
	for (size_t i = 0; i < NINNERS; i++) {
		use(inners[i], 10, 100000000);
		check_try_timed();
		assert_idle();
	}
}

/* -- hand-over order.  The main thread holds the lock; thread 0 arrives
 * first, finds it held and opens a slice (it owns it, waiting on the inner
 * lock); threads 1..n-1 queue one at a time.  Each thread, once it has the
 * lock, records itself and keeps re-acquiring, holding ~30 us each time,
 * until its slice has ended (its budget of 1 ms is spent, after a few dozen
 * holds): the slice then goes to the oldest waiter.  The records must be in
 * arrival order.  A budget of 10 us made the waiters' watch period 40 us,
 * and a new owner that a loaded machine kept from running for twice that
 * was taken over by the next head, out of order (seen with two sanitized
 * test binaries at once on 2 vCPUs). */
#define ORDER_N 6
static int sl_order[ORDER_N];
static _Atomic int sl_norder;

static void *slice_user(void *arg)
{
	bool first = true;
	do {
		assert_int_equal(ops->lock(st), 0);
		if (first)
			sl_order[atomic_fetch_add(&sl_norder, 1)] = (int)(long)arg;
		first = false;
		usleep(30);
		ops->unlock(st);
	} while (ls_slice_self.lock == (const void *)st);
	return NULL;
}

static void test_handover_order(void **state)
{
	for (size_t k = 0; k < NINNERS; k++) {
		pthread_t t[ORDER_N];
		use(inners[k], 1000, 100000000);
		reset();
		atomic_store(&sl_norder, 0);
		assert_int_equal(ops->lock(st), 0);
		for (int i = 0; i < ORDER_N; i++) {
			t[i] = spawn_queued(slice_user, i);
		}
		assert_true(word_of(st) & LS_SL_OWNED);
		assert_int_equal(ls_slice_queue_of(word_of(st)), ORDER_N - 1);
		ops->unlock(st);
		for (int i = 0; i < ORDER_N; i++)
			join(t[i]);
		assert_int_equal(atomic_load(&sl_norder), ORDER_N);
		for (int i = 0; i < ORDER_N; i++)
			assert_int_equal(sl_order[i], i);
		assert_idle();
	}
}

/* -- the wait bound under stress.  The trace hook counts slice ends
 * (hand-overs, take-overs, flushes, closes).  A thread that takes ticket t
 * with q tickets ahead remembers the count; when it sees t served, at most
 * q+1 slice ends may have happened since, plus slack for the ends whose
 * hook trailed their CAS (one per other thread: a thread reports its own
 * event after its CAS, and may be preempted in between). */
#define WB_THREADS 8
#define WB_ITERS 6000
static _Atomic long slice_ends, served_count, worst_excess, handovers;
static __thread long queued_at;
static __thread uint32_t queued_ahead;

static void on_trace(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_QUEUED) {
		queued_at = atomic_load(&slice_ends);
		queued_ahead = ahead;
	} else if (ev == LS_SL_TRACE_SERVED) {
		long excess = atomic_load(&slice_ends) - queued_at - (long)(queued_ahead + 1);
		long w = atomic_load(&worst_excess);
		while (excess > w && !atomic_compare_exchange_weak(&worst_excess, &w, excess))
			;
		atomic_fetch_add(&served_count, 1);
	} else if (ev != LS_SL_TRACE_OPENED) {
		if (ev == LS_SL_TRACE_HANDOVER)
			atomic_fetch_add(&handovers, 1);
		atomic_fetch_add(&slice_ends, 1);
	}
}

static long wb_counter;
static void *wb_worker(void *arg)
{
	while (!atomic_load(&go))
		sched_yield();
	for (int i = 0; i < WB_ITERS; i++) {
		assert_int_equal(ops->lock(st), 0);
		wb_counter++;
		if (i % 64 == 0) /* let the others pile up behind the holder */
			sched_yield();
		ops->unlock(st);
		for (int k = 0; k < 20; k++)
			ls_cpu_relax();
		if (i % 8 == 0)
			sched_yield();
	}
	return NULL;
}

static void wait_bound(const char *name)
{
	pthread_t t[WB_THREADS];
	use(name, 10, 100000000);
	reset();
	wb_counter = 0;
	atomic_store(&slice_ends, 0);
	atomic_store(&served_count, 0);
	atomic_store(&handovers, 0);
	atomic_store(&worst_excess, -1000000);
	atomic_store(&go, 0);
	atomic_store(&ls_slice_trace, on_trace);
	for (long i = 0; i < WB_THREADS; i++)
		t[i] = spawn(wb_worker, i);
	atomic_store(&go, 1);
	for (int i = 0; i < WB_THREADS; i++)
		join(t[i]);
	atomic_store(&ls_slice_trace, NULL);
	assert_int_equal(wb_counter, WB_THREADS * WB_ITERS);
	print_message("%s: %ld served tickets, %ld hand-overs, %ld slice ends, worst excess %ld\n",
	              name, atomic_load(&served_count), atomic_load(&handovers),
	              atomic_load(&slice_ends), atomic_load(&worst_excess));
	assert_true(atomic_load(&handovers) > 0);
	assert_true(atomic_load(&worst_excess) <= WB_THREADS - 1);
	assert_idle();
}

static void test_wait_bound(void **state)
{
	wait_bound("slice:futex");
	wait_bound("slice:tts");
	wait_bound("slice:mcs");
}

/* -- timeouts.  Thread 0 opens a slice behind the main thread's hold;
 * the others queue, some with a short timedlock.  Those time out (a tail
 * ticket is taken back, a head one passes the watch on, a middle one marks
 * GHOST); the plain ones all get the lock once the main thread lets go,
 * and nothing is left behind. */
static _Atomic int got;
static void *timed_waiter(void *arg)
{
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 60);
	int r = ops->timedlock(st, CLOCK_MONOTONIC, &t);
	if (r == 0)
		ops->unlock(st);
	return (void *)(long)r;
}
static void *plain_waiter(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	atomic_fetch_add(&got, 1);
	ops->unlock(st);
	return NULL;
}

static void abandon(const char *name, const bool *timed, int n)
{
	pthread_t t[8];
	use(name, 10, 100000000);
	reset();
	atomic_store(&got, 0);
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < n; i++) {
		t[i] = spawn_queued(timed[i] ? timed_waiter : plain_waiter, i);
	}
	int plain = 0;
	for (int i = 0; i < n; i++)
		if (timed[i])
			assert_int_equal(join(t[i]), ETIMEDOUT);
		else
			plain++;
	ops->unlock(st);
	for (int i = 0; i < n; i++)
		if (!timed[i])
			join(t[i]);
	assert_int_equal(atomic_load(&got), plain);
	/* The last one out may have left a slice open with nobody queued;
	 * a fresh arrival must still get the lock at once. */
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
	assert_idle();
}

static void test_timeout_abandon(void **state)
{
	/* index 0 opens the slice (it owns it), the rest queue */
	static const bool owner[] = { true, false, false };
	static const bool head[] = { false, true, false, false };
	static const bool middle[] = { false, false, true, true, false };
	static const bool tail[] = { false, false, false, true };
	static const bool all[] = { true, true, true };
	for (size_t i = 0; i < NINNERS; i++) {
		abandon(inners[i], owner, 3);
		abandon(inners[i], head, 4);
		abandon(inners[i], middle, 5);
		abandon(inners[i], tail, 4);
		abandon(inners[i], all, 3);
	}
}

/* -- an owner that stops calling while others wait: the head takes the
 * slice over after one watch period, and everyone gets the lock; an owner
 * that stops before it passed its probe (an unproven slice) loses it
 * sooner, and everyone is let go to the inner lock: the lock is not hot
 * enough for slices (the watch). */
static _Atomic int stop_go;
static _Atomic int stop_after; /* acquisitions before it stops */
static void *stopping_owner(void *arg)
{
	for (int i = 0; i < atomic_load(&stop_after); i++) {
		assert_int_equal(ops->lock(st), 0); /* the first opens a slice behind main's hold */
		ops->unlock(st);                    /* keeps it: someone is queued */
		if (i == 0)
			while (atomic_load(&stop_go) == 0) /* main lets go once all are queued */
				sched_yield(); /* not a sleep: its slice's clock runs */
	}
	while (atomic_load(&stop_go) != 2) /* ...and never calls again */
		usleep(1000);
	return NULL;
}

static _Atomic long takeovers, stall_flushes;
/* The slice's events, in order, printed when a check on them fails: under
 * load an owner can stall where the test means it to run. */
static _Atomic int events[64];
static _Atomic unsigned nevents;
static void print_events(void)
{
	static const char *const names[] = { "opened",   "handover", "flush_gap", "takeover",
	                                     "flush_ghost", "closed", "queued",   "served",
	                                     "group",    "seat",     "flush_shared", "called" };
	unsigned n = atomic_load(&nevents);
	fprintf(stderr, "# slice events:");
	for (unsigned i = 0; i < n && i < 64; i++) {
		int ev = atomic_load(&events[i]);
		fprintf(stderr, " %s", ev >= 0 && ev < (int)(sizeof names / sizeof names[0]) ? names[ev] : "?");
	}
	fprintf(stderr, "\n");
}
static void count_takeovers(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	unsigned i = atomic_fetch_add(&nevents, 1);
	if (i < 64)
		atomic_store(&events[i], ev);
	if (ev == LS_SL_TRACE_TAKEOVER)
		atomic_fetch_add(&takeovers, 1);
	if (ev == LS_SL_TRACE_FLUSH_GAP)
		atomic_fetch_add(&stall_flushes, 1);
}

/* A watch case begins: the lock reset, the counts zeroed, the events traced,
 * and the main thread holding the lock (the first arrival then opens a
 * slice behind it). */
static void begin_watch_case(int go_at, int after)
{
	reset();
	atomic_store(&got, 0);
	atomic_store(&stop_go, go_at);
	atomic_store(&stop_after, after);
	atomic_store(&takeovers, 0);
	atomic_store(&stall_flushes, 0);
	atomic_store(&nevents, 0);
	atomic_store(&ls_slice_trace, count_takeovers);
	assert_int_equal(ops->lock(st), 0);
}

/* One watch case with one owner and one waiter: the owner arrives
 * behind main's hold (opening a slice), the waiter queues behind it, main
 * lets go and then, once the waiter is through, lets the owner return;
 * the trace stops, the waiter got the lock, nothing is left behind. */
static void owner_then_one_waiter(void *(*owner)(void *), int after)
{
	begin_watch_case(0, after);
	pthread_t o = spawn_queued(owner, 0);
	pthread_t w = spawn_queued(plain_waiter, 1);
	ops->unlock(st);
	atomic_store(&stop_go, 1);
	join(w);
	atomic_store(&stop_go, 2);
	join(o);
	atomic_store(&ls_slice_trace, NULL);
	assert_int_equal(atomic_load(&got), 1);
	assert_idle();
}

static void test_owner_stops(void **state)
{
	/* Slices of 20 ms (wall limit 80 ms): with 50 us ones the owner's
	 * slice, which starts when it queues behind main's hold, could be
	 * spent by the time main has queued the waiters and let go (three
	 * thread starts under a sanitizer), and each waiter's by the time it
	 * ran after its wake-up: every slice then ended in a hand-over and no
	 * take-over was left to see (seen once in CI under TSan).  5 ms ones
	 * did the same under TSan on a loaded 2-vCPU VM (the events: opened,
	 * three queued, a hand-over before the owner's 40th acquisition). */
	use("slice:futex", 20000, 100000000);
	/* 1: stops after its first acquisition (unproven); LS_SLICE_PROBE_N
	 * + 8: after its probe passed (every gap is within the bar here). */
	static const int stops[] = { 1, LS_SLICE_PROBE_N + 8 };
	for (int k = 0; k < 2; k++) {
		begin_watch_case(0, stops[k]);
		pthread_t o = spawn_queued(stopping_owner, 0);
		pthread_t w[3];
		for (int i = 0; i < 3; i++) {
			w[i] = spawn_queued(plain_waiter, i);
		}
		ops->unlock(st);
		atomic_store(&stop_go, 1);
		for (int i = 0; i < 3; i++)
			join(w[i]);
		atomic_store(&stop_go, 2);
		join(o);
		atomic_store(&ls_slice_trace, NULL);
		assert_int_equal(atomic_load(&got), 3);
		if (atomic_load(&takeovers) != (k == 1) || atomic_load(&stall_flushes) != (k == 0))
			print_events();
		if (k == 0) {
			assert_int_equal(atomic_load(&stall_flushes), 1);
			assert_int_equal(atomic_load(&takeovers), 0);
		} else {
			assert_true(atomic_load(&takeovers) >= 1);
		}
		assert_idle();
	}
}

/* The same with a budget of 200 ms: the watch period (4 budgets) is past
 * what the watch's 7-bit coarse mark can measure, so it is capped (~34 ms):
 * a proven owner that stops is still taken over, where the queue used to
 * wait for good. */
static void test_owner_stops_long_slices(void **state)
{
	use("slice:futex", 200000, 100000000);
	for (int attempt = 0;; attempt++) {
		assert_true(attempt < 5); /* the owner never passed its probe */
		owner_then_one_waiter(stopping_owner, LS_SLICE_PROBE_N + 8);
		if (atomic_load(&stall_flushes) != 0) {
			/* Under heavy load the owner stalled a (capped) period
			 * before its probe: let go as unproven, not the case here. */
			print_events();
			continue;
		}
		if (atomic_load(&takeovers) != 1)
			print_events();
		assert_int_equal(atomic_load(&takeovers), 1);
		break;
	}
}

/* -- a slice handed over after its owner spent its budget coming back
 * within the bar (the lock is the bottleneck) starts proven, even though
 * its owner made fewer than LS_SLICE_PROBE_N acquisitions: a new owner that
 * takes the lock once and goes away is then taken over by the head, not
 * flushed (sysbench threads' owners leave mid-slice for another lock).
 * Slices of 20 ms and holds of 3 ms: the first owner spends its budget in
 * about 7 acquisitions, and a preemption of under 20 ms between them does
 * not read as an owner that went away. */
static void hold_3ms(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 3000000L);
}
static _Atomic int hot_acqs; /* the hot owner's acquisitions */
static void *hot_owner(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(ops->lock(st), 0); /* the first opens a slice behind main's hold */
		atomic_fetch_add(&hot_acqs, 1);
		hold_3ms();
		ops->unlock(st);
		if (ls_slice_self.lock != (const void *)st)
			break; /* spent: handed over */
	}
	return NULL;
}

/* Did the hot owner's slice end as the test means it to: handed over after
 * two acquisitions or more, nothing flushed or taken over before?  Under
 * heavy load it may not: its wall limit counts from the slice's opening,
 * behind main's hold, so slow thread starts can spend it at its first
 * release (no gap measured), or it can stall 20 ms outside the lock. */
static bool hot_slice_handed_over(void)
{
	if (atomic_load(&hot_acqs) < 2)
		return false;
	unsigned n = atomic_load(&nevents);
	for (unsigned i = 0; i < n && i < 64; i++) {
		int ev = atomic_load(&events[i]);
		if (ev == LS_SL_TRACE_HANDOVER)
			return true;
		if (ev == LS_SL_TRACE_FLUSH_GAP || ev == LS_SL_TRACE_TAKEOVER)
			return false;
	}
	return false;
}

static void test_hot_handover_proves(void **state)
{
	use("slice:futex", 20000, 100000000);
	for (int attempt = 0;; attempt++) {
		assert_true(attempt < 5); /* the scenario never came about */
		atomic_store(&hot_acqs, 0);
		begin_watch_case(1, 1);
		pthread_t hot = spawn_queued(hot_owner, 0);
		pthread_t stops = spawn_queued(stopping_owner, 1); /* served second, stops */
		pthread_t w = spawn_queued(plain_waiter, 2);       /* the head that watches it */
		ops->unlock(st);
		join(hot);
		join(w);
		atomic_store(&stop_go, 2);
		join(stops);
		atomic_store(&ls_slice_trace, NULL);
		assert_int_equal(atomic_load(&got), 1);
		assert_idle();
		if (!hot_slice_handed_over()) {
			print_events();
			continue;
		}
		if (atomic_load(&takeovers) != 1 || atomic_load(&stall_flushes) != 0)
			print_events();
		assert_int_equal(atomic_load(&takeovers), 1);
		assert_int_equal(atomic_load(&stall_flushes), 0);
		break;
	}
}

static void spin_us(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* -- the owner of a spent slice wakes its head and keeps the slice until
 * the head runs (LOCKSWAP_SLICE_WAKE_US, slice.c call_head).  An owner
 * that calls and then never comes back must not strand the head: the head
 * takes the hand-over itself when its spin runs out (or, if it could not
 * spin, the watch takes the slice over).  With the setting at 0 the spent
 * slice is handed over at that release, and nobody is called.  Slices of
 * 5 ms, spent by one hold of 6 ms; the bar is 100 ms, so every gap is
 * short and the slice pays. */
static void *calling_owner(void *arg)
{
	assert_int_equal(ops->lock(st), 0); /* opens a slice behind main's hold */
	ops->unlock(st);                    /* keeps it: the waiter is queued */
	while (atomic_load(&stop_go) == 0)
		usleep(1000);
	/* Passes its probe first: the head watches an unproven slice with a
	 * period of one budget, shorter than the long hold below.  Holds of
	 * 5 us: acquisitions that come less often than LS_SLICE_DENSE_NS are
	 * all timed, so the long hold's release looks at the budget. */
	for (unsigned i = 0; i < LS_SLICE_PROBE_N; i++) {
		assert_int_equal(ops->lock(st), 0);
		spin_us(5);
		ops->unlock(st);
	}
	/* A long hold spends the slice: its owner calls the head (or, at 0,
	 * hands over); more only if a preemption made the last one short. */
	for (int i = 0; i < 8; i++) {
		assert_int_equal(ops->lock(st), 0);
		spin_us(6000);
		ops->unlock(st);
		if (ls_slice_self.lock != (const void *)st ||
		    (atomic_load(&ls_slice_wake_us) && ls_slice_self.called))
			break;
	}
	while (atomic_load(&stop_go) != 2) /* ...and never calls again */
		usleep(1000);
	return NULL;
}

/* The index of the first event ev in the trace, or -1. */
static int first_event(int ev)
{
	unsigned n = atomic_load(&nevents);
	for (unsigned i = 0; i < n && i < 64; i++)
		if (atomic_load(&events[i]) == ev)
			return (int)i;
	return -1;
}

static void test_called_head_not_stranded(void **state)
{
	use("slice:futex", 5000, 100000000);
	for (int wake = 0; wake < 2; wake++) {
		atomic_store(&ls_slice_wake_us, wake ? 100 : 0);
		for (int attempt = 0;; attempt++) {
			assert_true(attempt < 5); /* the scenario never came about */
			owner_then_one_waiter(calling_owner, 0);
			int called = first_event(LS_SL_TRACE_CALLED);
			int handover = first_event(LS_SL_TRACE_HANDOVER);
			int takeover = first_event(LS_SL_TRACE_TAKEOVER);
			int served = handover >= 0 ? handover : takeover;
			if (atomic_load(&stall_flushes) != 0) {
				/* Under heavy load the owner stalled a whole
				 * (short, unproven) watch period before its
				 * probe: let go, not the case here. */
				print_events();
				continue;
			}
			if (wake ? called < 0 || served < called : called >= 0 || handover < 0 || takeover >= 0)
				print_events();
			if (wake) {
				assert_true(called >= 0);
				assert_true(served > called); /* not stranded */
			} else {
				assert_true(called < 0);
				assert_true(handover >= 0);
				assert_true(takeover < 0);
			}
			break;
		}
	}
}

/* -- the gap probe: an owner that spends far longer away from the lock
 * than the bar gives the slice up at its end (the waiters are let go to
 * the inner lock) and the lock goes quiet: the next contended arrival does
 * not open a slice. */
static _Atomic long gap_flushes;
static void count_gaps(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_FLUSH_GAP)
		atomic_fetch_add(&gap_flushes, 1);
}

/* Keeps calling, `away` between calls, until its slice has ended (with a
 * budget of B us, an owner that holds the lock for at most a sixteenth of the
 * time ends its slice after B us of wall time; the head's watch period is
 * 4 B, so only an owner stalled for that long could lose it to the head). */
static void owner_until_slice_ends(void (*away)(void))
{
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(ops->lock(st), 0);
		ops->unlock(st);
		if (i > 0 && ls_slice_self.lock != (const void *)st)
			break;
		away();
	}
}
static void sleep_100us(void)
{
	usleep(100); /* far above a 1 us bar */
}
static void *slow_owner(void *arg)
{
	owner_until_slice_ends(sleep_100us);
	return NULL;
}

/* The main thread holds the lock; `owner` arrives, finds it held and opens
 * a slice; `waiter` queues behind; the main thread lets go; both finish. */
static void owner_then_waiter(void *(*owner)(void *), void *(*waiter)(void *))
{
	assert_int_equal(ops->lock(st), 0);
	pthread_t o = spawn_queued(owner, 0);
	pthread_t w = spawn_queued(waiter, 0);
	ops->unlock(st);
	join(w);
	join(o);
}

/* -- a hold is counted from the owner's clock read before its lock call,
 * less what that call costs (so a thread with short critical sections is
 * not charged its lock calls as hold): never below zero. */
static void test_held(void **state)
{
	struct ls_slice_self s = { .acq = 1000, .entry = 40 };
	assert_int_equal(ls_slice_held(&s, 1100), 60);
	assert_int_equal(ls_slice_held(&s, 1040), 0);
	assert_int_equal(ls_slice_held(&s, 1020), 0); /* shorter than a call */
	assert_int_equal(ls_slice_held(&s, 900), 0);  /* a clock step back */
}

/* -- which holds are timed (ls_slice_owner_enter/_release): every one of
 * the probe's first LS_SLICE_PROBE_N, then, while acquisitions come more
 * often than `dense` ticks, about one in LS_SLICE_SAMPLE_EVERY at random
 * places, each standing for the untimed ones since the last, so that
 * every acquisition is accounted exactly once; where they come less
 * often, every one.  The owner's own record, driven directly (no lock);
 * `dense` given, so the outcome does not depend on the machine's speed. */
struct timed_count {
	uint64_t timed;   /* timed acquisitions after the probe */
	uint64_t longest; /* most acquisitions from one timed one to the next */
};

static struct timed_count drive_owner(uint32_t n, uint64_t dense)
{
	struct ls_slice_self *s = &ls_slice_self;
	*s = (struct ls_slice_self){ .rng = 12345, .rel = ls_ticks(), .dense = dense, .left = 1,
	                             .stand = 1 }; /* as own() leaves it */
	struct timed_count c = { 0, 0 };
	uint64_t accounted = 0, since = 0;
	for (uint32_t i = 0; i < n; i++) {
		ls_slice_owner_enter();
		uint32_t stand = s->stand;
		bool was_timed = s->timed;
		uint64_t now = ls_slice_owner_release();
		assert_int_equal(now != 0, was_timed);
		since++;
		if (i < LS_SLICE_PROBE_N)
			assert_true(was_timed); /* the probe times every hold */
		if (!was_timed)
			continue;
		/* it stands for itself and the untimed ones since the last */
		assert_int_equal(stand, since);
		accounted += stand;
		if (i >= LS_SLICE_PROBE_N) {
			c.timed++;
			if (since > c.longest)
				c.longest = since;
		}
		since = 0;
	}
	/* The untimed ones since the last timed one are the next one's. */
	assert_int_equal(accounted + (s->stand - s->left), n);
	assert_int_equal(s->n, accounted);
	assert_int_equal(s->gaps, LS_SLICE_PROBE_N); /* gaps: the probe's only */
	*s = (struct ls_slice_self){ 0 };
	return c;
}

static void test_sampled_holds(void **state)
{
	enum { N = 40000, AFTER = N - LS_SLICE_PROBE_N };
	/* Dense (any acquisition rate counts as frequent): sampled.  About
	 * one in LS_SLICE_SAMPLE_EVERY (a uniform interval of 1..2 x that -
	 * 1): far from every hold, far from none. */
	struct timed_count c = drive_owner(N, 1ull << 40);
	assert_true(c.longest <= 2 * LS_SLICE_SAMPLE_EVERY - 1);
	assert_true(c.timed > AFTER / LS_SLICE_SAMPLE_EVERY * 9 / 10);
	assert_true(c.timed < AFTER / LS_SLICE_SAMPLE_EVERY * 11 / 10);
	/* Sparse (no rate counts as frequent): every hold timed. */
	c = drive_owner(N, 0);
	assert_int_equal(c.timed, AFTER);
	assert_int_equal(c.longest, 1);
}

/* -- when a slice is spent (ls_slice_spent): at its hold budget, or, for
 * an owner that holds the lock for at most a sixteenth of the slice's wall
 * time, at the budget in wall time; never later than 4x the budget.
 * Ticks given directly: the rule, not the clock. */
static bool spent_after(uint64_t lasted, uint64_t hold)
{
	struct ls_slice_self s = { .start = 1000, .hold = hold, .budget = 100, .wall = 400 };
	return ls_slice_spent(&s, 1000 + lasted);
}

static void test_spent_rule(void **state)
{
	assert_false(spent_after(50, 1));    /* young, whatever the use */
	assert_false(spent_after(99, 0));
	assert_true(spent_after(60, 100));   /* the hold budget */
	assert_true(spent_after(100, 6));    /* the budget's wall time, hold <= 1/16 */
	assert_true(spent_after(100, 0));
	assert_false(spent_after(100, 7));   /* hold > 1/16: goes on */
	assert_false(spent_after(200, 15));
	assert_true(spent_after(240, 15));   /* its use fell to 1/16 */
	assert_false(spent_after(399, 50));  /* a busy owner: up to 4x */
	assert_true(spent_after(400, 50));   /* 4x: at most */
	assert_true(spent_after(100000, 99));
	/* A group member's seat: the wall limit only (neither its hold
	 * budget nor the idle rule). */
	struct ls_slice_self g = { .start = 1000, .hold = 100, .budget = 100, .wall = 400,
	                           .group = true };
	assert_false(ls_slice_spent(&g, 1000 + 399));
	assert_true(ls_slice_spent(&g, 1000 + 400));
	g.hold = 0;
	assert_false(ls_slice_spent(&g, 1000 + 100));
	assert_true(ls_slice_spent(&g, 1000 + 400));
}

static void test_gap_probe(void **state)
{
	/* A budget far above the probe's time (LS_SLICE_PROBE_N gaps of
	 * 100 us): the probe, not the wall rule, must end the slice, also
	 * where a loaded machine stretches each 100 us sleep to 1 ms (with
	 * 5000 us, 32 sleeps of 160 us let the wall rule end the slice first,
	 * without the probe's flush: the likely cause of one failure in ~30
	 * runs beside two busy loops).  Unloaded, the probe ends the slice
	 * after ~3.2 ms either way. */
	use("slice:futex", 50000, 1000);
	/* Under load the owner may also be preempted: this test is about the
	 * gaps alone. */
	atomic_store(&ls_slice_busy_pays, 0);
	reset();
	atomic_store(&got, 0);
	atomic_store(&gap_flushes, 0);
	atomic_store(&ls_slice_trace, count_gaps);
	owner_then_waiter(slow_owner, plain_waiter);
	atomic_store(&ls_slice_trace, NULL);
	assert_int_equal(atomic_load(&got), 1);
	assert_int_equal(atomic_load(&gap_flushes), 1);
	uint64_t q = word_of(st);
	assert_true(q & LS_SL_QUIET);
	assert_false(q & LS_SL_OWNED);
	assert_idle();
}

/* -- ...but where no CPU is free for the work a slice forfeits, slices
 * still pay: the owner shares its CPU (pinned) with two busy threads, so
 * over its 20 ms slice (its budget: it holds the lock for almost none of
 * it) it is preempted and gets about a third of the CPU;
 * its long gaps then do not end the slice: it is handed over, not
 * flushed. */
static _Atomic int hogs_stop;
static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
static void *hog(void *arg)
{
	pin(0);
	while (!atomic_load(&hogs_stop))
		ls_cpu_relax();
	return NULL;
}
/* Busy away from the lock, on a shared CPU: 32 of these (the probe) span
 * 16 ms of wall time, several of the scheduler's slices between three
 * runnable threads, so the owner is preempted before the probe, which
 * then leaves the decision to the slice's end. */
static void spin_500us(void)
{
	spin_us(500);
}
static void *busy_owner(void *arg)
{
	pin(0);
	owner_until_slice_ends(spin_500us);
	return NULL;
}
static _Atomic long busy_handovers;
static void count_busy(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_FLUSH_GAP)
		atomic_fetch_add(&gap_flushes, 1);
	if (ev == LS_SL_TRACE_HANDOVER)
		atomic_fetch_add(&busy_handovers, 1);
}
static void *pinned_waiter(void *arg)
{
	pin(1);
	return plain_waiter(arg);
}

static void test_busy_machine(void **state)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		print_message("skipped: needs 2 CPUs\n");
		return;
	}
	use("slice:futex", 20000, 1000);
	reset();
	atomic_store(&got, 0);
	atomic_store(&gap_flushes, 0);
	atomic_store(&busy_handovers, 0);
	atomic_store(&hogs_stop, 0);
	pthread_t h[2] = { spawn(hog, 0), spawn(hog, 1) };
	atomic_store(&ls_slice_trace, count_busy);
	owner_then_waiter(busy_owner, pinned_waiter);
	atomic_store(&ls_slice_trace, NULL);
	atomic_store(&hogs_stop, 1);
	join(h[0]);
	join(h[1]);
	assert_int_equal(atomic_load(&got), 1);
	assert_int_equal(atomic_load(&gap_flushes), 0);
	assert_int_equal(atomic_load(&busy_handovers), 1);
	assert_idle();
}

/* -- a holder that blocks (a condvar wait: the interposer's unlock_to_wait)
 * ends its slice with the unlock, as one that does not pay: the queue is
 * flushed (the waiter goes to the inner lock at once) and the lock opens,
 * rather than the slice going to the head, which may wait for the same
 * condition.  Not after a watch period either (a 20 ms one here: a test
 * that passed only through the watch would see a take-over). */
static _Atomic int blocker_go;
static _Atomic long handed, taken, flushed;
static void count_handed(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_HANDOVER)
		atomic_fetch_add(&handed, 1);
	if (ev == LS_SL_TRACE_TAKEOVER)
		atomic_fetch_add(&taken, 1);
	if (ev == LS_SL_TRACE_FLUSH_GAP)
		atomic_fetch_add(&flushed, 1);
}
static void *blocking_owner(void *arg)
{
	assert_int_equal(ops->lock(st), 0); /* opens a slice behind main's hold */
	while (!atomic_load(&blocker_go))   /* ...until the waiter is queued */
		usleep(1000);
	ops->unlock_to_wait(st);
	atomic_store(&blocker_go, ls_slice_self.lock == NULL ? 2 : 3);
	return NULL;
}

static void test_unlock_to_wait(void **state)
{
	use("slice:futex", 5000, 100000000);
	assert_non_null(ops->unlock_to_wait);
	reset();
	atomic_store(&got, 0);
	atomic_store(&blocker_go, 0);
	atomic_store(&handed, 0);
	atomic_store(&taken, 0);
	atomic_store(&flushed, 0);
	atomic_store(&ls_slice_trace, count_handed);
	assert_int_equal(ops->lock(st), 0);
	pthread_t o = spawn_queued(blocking_owner, 0);
	pthread_t w = spawn_queued(plain_waiter, 0);
	ops->unlock(st);
	while (!(word_of(st) & LS_SL_RUN)) /* the owner got the inner lock */
		usleep(100);
	atomic_store(&blocker_go, 1);
	join(w);
	join(o);
	atomic_store(&ls_slice_trace, NULL);
	assert_int_equal(atomic_load(&got), 1);
	assert_int_equal(atomic_load(&blocker_go), 2); /* its slice is gone */
	assert_int_equal(atomic_load(&flushed), 1);
	assert_int_equal(atomic_load(&handed), 0);
	assert_int_equal(atomic_load(&taken), 0);
	assert_idle();
}

/* -- group slices.  Long gaps (20 us away from the lock, 2 us inside
 * it) make a slice of one owner not pay; with more waiters than a group
 * has members (2 here), the slice becomes a group: members take the inner
 * lock among themselves, each leaves at its seat's end (the budget, 100
 * us of wall time: it holds the lock for about a tenth of it), passing
 * its seat to the oldest waiter, and about one seat's end in
 * LS_SLICE_GROUP_RENEW starts a new group.  The threads run until groups
 * have formed and seats have passed a few times each (a slice that probes
 * before the others have queued lets them go, and the lock rests for
 * ~64 ms: 10 s at most); then every thread must finish its iterations,
 * the critical sections must never have overlapped, and nothing is left
 * queued.  Two of the threads use timed locks of 100 us, which time out in
 * the seat queue (head, middle or tail) or while members. */
#define GR_THREADS 6
#define GR_ITERS 200
static _Atomic long groups, seats_passed, gr_timeouts;
static _Atomic int gr_inside, gr_overlaps, gr_stop;
static void count_groups(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_GROUP) {
		atomic_fetch_add(&groups, 1);
		assert_int_equal(ahead, 2); /* the group's size */
	}
	if (ev == LS_SL_TRACE_SEAT)
		atomic_fetch_add(&seats_passed, 1);
}
static void *group_worker(void *arg)
{
	bool timed = (long)arg < 2;
	while (!atomic_load(&go))
		sched_yield();
	for (int i = 0; i < GR_ITERS || !atomic_load(&gr_stop);) {
		if (timed) {
			struct timespec t = deadline_in_us(CLOCK_MONOTONIC, 100);
			int r = ops->timedlock(st, CLOCK_MONOTONIC, &t);
			if (r == ETIMEDOUT) {
				atomic_fetch_add(&gr_timeouts, 1);
				continue;
			}
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(ops->lock(st), 0);
		}
		if (atomic_fetch_add(&gr_inside, 1) != 0)
			atomic_fetch_add(&gr_overlaps, 1);
		spin_us(2);
		atomic_fetch_sub(&gr_inside, 1);
		ops->unlock(st);
		spin_us(20);
		i++;
	}
	return NULL;
}

static void test_groups(void **state)
{
	for (size_t k = 0; k < NINNERS; k++) {
		pthread_t t[GR_THREADS];
		use(inners[k], 100, 100);
		atomic_store(&ls_slice_seats, 2);
		atomic_store(&ls_slice_busy_pays, 0); /* the gaps alone decide */
		reset();
		atomic_store(&groups, 0);
		atomic_store(&seats_passed, 0);
		atomic_store(&gr_timeouts, 0);
		atomic_store(&gr_overlaps, 0);
		atomic_store(&go, 0);
		atomic_store(&gr_stop, 0);
		atomic_store(&ls_slice_trace, count_groups);
		for (long i = 0; i < GR_THREADS; i++)
			t[i] = spawn(group_worker, i);
		atomic_store(&go, 1);
		for (int i = 0; i < 10000; i++) {
			if (atomic_load(&groups) >= 3 && atomic_load(&seats_passed) >= 3)
				break;
			usleep(1000);
		}
		atomic_store(&gr_stop, 1);
		for (int i = 0; i < GR_THREADS; i++)
			join(t[i]);
		atomic_store(&ls_slice_trace, NULL);
		print_message("%s: %ld groups, %ld seats passed, %ld timeouts\n", inners[k],
		              atomic_load(&groups), atomic_load(&seats_passed),
		              atomic_load(&gr_timeouts));
		assert_int_equal(atomic_load(&gr_overlaps), 0);
		assert_true(atomic_load(&groups) >= 3);
		assert_true(atomic_load(&seats_passed) >= 3);
		assert_idle();
	}
}

/* -- a member that blocks (unlock_to_wait) passes its seat at once.  A
 * slice of one owner whose gaps are long ends at its probe; with three
 * queued and groups of 2, tickets 0 and 1 become the members and ticket
 * 2 the head.  Each member unlocks to wait right after its first
 * acquisition: the first to do so passes its seat to the head (a SEAT
 * event, no take-over), the second finds
 * nobody queued and closes the group. */
static _Atomic int members_seen;
static _Atomic long seat_events, group_events;
static void count_seat(const void *r, int ev, uint32_t t, uint32_t ahead)
{
	if (ev == LS_SL_TRACE_SEAT)
		atomic_fetch_add(&seat_events, 1);
	if (ev == LS_SL_TRACE_GROUP)
		atomic_fetch_add(&group_events, 1);
	if (ev == LS_SL_TRACE_TAKEOVER)
		atomic_fetch_add(&taken, 1);
}
static void *leaving_member(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	if (ls_slice_self.lock == (const void *)st && ls_slice_self.group)
		atomic_fetch_add(&members_seen, 1);
	atomic_fetch_add(&got, 1);
	ops->unlock_to_wait(st);
	assert_null(ls_slice_self.lock); /* its seat is gone */
	return NULL;
}
static void *probing_owner(void *arg)
{
	owner_until_slice_ends(sleep_100us);
	return NULL;
}

static void test_group_member_leaves(void **state)
{
	/* A 200 ms watch period: the owner's probe, 32 acquisitions 100 us
	 * apart, never loses the slice to the head, even on a loaded machine. */
	use("slice:futex", 50000, 1000);
	atomic_store(&ls_slice_seats, 2);
	atomic_store(&ls_slice_busy_pays, 0);
	reset();
	atomic_store(&got, 0);
	atomic_store(&members_seen, 0);
	atomic_store(&seat_events, 0);
	atomic_store(&group_events, 0);
	atomic_store(&taken, 0);
	atomic_store(&ls_slice_trace, count_seat);
	assert_int_equal(ops->lock(st), 0);
	pthread_t o = spawn_queued(probing_owner, 0); /* opens the slice */
	pthread_t m[3];
	for (long i = 0; i < 3; i++)
		m[i] = spawn_queued(leaving_member, i);
	ops->unlock(st);
	join(o);
	for (int i = 0; i < 3; i++)
		join(m[i]);
	atomic_store(&ls_slice_trace, NULL);
	assert_int_equal(atomic_load(&got), 3);
	assert_int_equal(atomic_load(&group_events), 1);
	assert_true(atomic_load(&members_seen) >= 2); /* the third may find it closed */
	assert_int_equal(atomic_load(&seat_events), 1);
	assert_int_equal(atomic_load(&taken), 0);
	assert_false(word_of(st) & LS_SL_OWNED);
	assert_idle();
}

/* -- proportional slices (slice_share.h): 1.25x per nice step in 16.16
 * fixed point, clamped at 15 steps; a thread niced 3 steps above the main
 * thread opens a slice whose budget is scaled by 1.25^-3 with
 * LOCKSWAP_SLICE_SHARES=nice, and not scaled with the default. */
static void test_share_factor(void **state)
{
	assert_int_equal(ls_slice_share_factor(0), 65536);
	assert_int_equal(ls_slice_share_factor(1), 81920);  /* 1.25 */
	assert_int_equal(ls_slice_share_factor(-1), 52428); /* 0.8, rounded down */
	assert_int_equal(ls_slice_share_factor(3), 128000); /* 1.953125 */
	assert_int_equal(ls_slice_share_factor(40), ls_slice_share_factor(LS_SLICE_SHARE_MAX_STEPS));
	assert_int_equal(ls_slice_share_factor(-40), ls_slice_share_factor(-LS_SLICE_SHARE_MAX_STEPS));
	assert_true(ls_slice_share_factor(-LS_SLICE_SHARE_MAX_STEPS) > 0);
}

static _Atomic int niced_steps;       /* its nice value less the main thread's */
static _Atomic uint64_t niced_budget; /* its slice's budget; 0: it owned none */

/* Raises its nice value by `arg` (no privilege needed), takes the lock
 * (held by the main thread: it opens a slice) and reports the budget;
 * the lock leaves its errno alone. */
static void *niced_owner(void *arg)
{
	id_t me = (id_t)syscall(SYS_gettid);
	int main_nice = getpriority(PRIO_PROCESS, (id_t)getpid());
	if (setpriority(PRIO_PROCESS, me, main_nice + (int)(long)arg) != 0)
		return (void *)-1L;
	atomic_store(&niced_steps, getpriority(PRIO_PROCESS, me) - main_nice);
	errno = EDOM; /* the host's: reading the nice values must not change it */
	if (ops->lock(st) != 0)
		return (void *)-2L;
	if (errno != EDOM)
		return (void *)-3L;
	atomic_store(&niced_budget, ls_slice_self.lock == (const void *)st ? ls_slice_self.budget : 0);
	ops->unlock(st);
	return NULL;
}

static uint64_t niced_slice_budget(unsigned shares)
{
	atomic_store(&ls_slice_shares, shares);
	atomic_store(&niced_budget, 0);
	reset(); /* no rest left from a slice before (a closed slice rests ~8 ms) */
	assert_int_equal(ops->lock(st), 0);
	pthread_t o = spawn_queued(niced_owner, 3);
	ops->unlock(st);
	assert_int_equal(join(o), 0);
	assert_idle();
	return atomic_load(&niced_budget);
}

static void test_shares(void **state)
{
	use("slice", 1000, 300);
	uint64_t base = 1000 * ls_ticks_per_us();
	assert_int_equal(niced_slice_budget(LS_SLICE_SHARES_EQUAL), base);
	uint64_t scaled = niced_slice_budget(LS_SLICE_SHARES_NICE);
	int steps = atomic_load(&niced_steps);
	if (steps == 0)
		skip(); /* the main thread already runs at nice 19 */
	assert_int_equal(scaled, ((unsigned __int128)base * ls_slice_share_factor(-steps)) >> 16);
	assert_true(scaled < base);
}

static void test_fork(void **state)
{
	use("slice:futex", 10, 100000000);
	check_fork(2);
	use("slice:tts", 250, 300);
	check_fork(3);
	use("slice:mcs", 10, 100000000);
	check_fork(3);
}

/* -- slice:futex's reservation (core/wrap/slice_futex.h): set while a
 * slice runs, so that an arrival finding the lock free lets it go to the
 * owner; cleared when the slice ends; and a stale one (a race between two
 * mirrors leaves one, simulated here) is cleared by the first arrival
 * that finds it, which keeps the free lock, as in an open lock. */
static void *reserve_waiter(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	return arg;
}

static void test_reservation(void **state)
{
	struct ls_slice_futex *l = (struct ls_slice_futex *)(void *)st;
	use("slice:futex", 100000, 100000000); /* slices last; the probe keeps them */
	assert_ptr_equal(ops, &ls_backend_slice_futex);
	reset();
	/* Open: lock and unlock leave the word 0. */
	assert_int_equal(ops->lock(st), 0);
	assert_int_equal(atomic_load(&l->word), LS_SF_HELD);
	ops->unlock(st);
	assert_int_equal(atomic_load(&l->word), 0);
	/* A slice: main holds the lock, a waiter arrives and opens it. */
	assert_int_equal(ops->lock(st), 0);
	pthread_t t = spawn(reserve_waiter, 0);
	while (!(word_of(st) & LS_SL_OWNED))
		usleep(1000);
	assert_true(atomic_load(&l->word) & LS_SF_RESERVED);
	ops->unlock(st);
	join(t);
	/* The waiter's release found nobody queued: the slice closed, and
	 * slices rest a little (LS_SLICE_CLOSE_QUIET_UNITS): the contention
	 * that opened it is over. */
	assert_false(word_of(st) & LS_SL_OWNED);
	assert_true(word_of(st) & LS_SL_QUIET);
	assert_false(atomic_load(&l->word) & LS_SF_RESERVED);
	assert_idle();
	/* A stale reservation on an open lock: the first lock call clears it
	 * and gets the lock. */
	atomic_fetch_or(&l->word, LS_SF_RESERVED);
	assert_int_equal(ops->lock(st), 0);
	assert_false(atomic_load(&l->word) & LS_SF_RESERVED);
	ops->unlock(st);
	assert_int_equal(atomic_load(&l->word), 0);
	/* The same for a trylock (which keeps a free lock, reserved or not). */
	atomic_fetch_or(&l->word, LS_SF_RESERVED);
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
	assert_false(atomic_load(&l->word) & LS_SF_RESERVED);
	assert_idle();
}

static void test_unlock_misuse(void **state)
{
	for (size_t i = 0; i < NINNERS; i++) {
		use(inners[i], 250, 300);
		check_unlock_misuse(word_of, assert_idle);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_select, restore),
		cmocka_unit_test_teardown(test_try_timed_all, restore),
		cmocka_unit_test_teardown(test_mutex_all, restore),
		cmocka_unit_test_teardown(test_handover_order, restore),
		cmocka_unit_test_teardown(test_wait_bound, restore),
		cmocka_unit_test_teardown(test_timeout_abandon, restore),
		cmocka_unit_test_teardown(test_owner_stops, restore),
		cmocka_unit_test_teardown(test_owner_stops_long_slices, restore),
		cmocka_unit_test_teardown(test_hot_handover_proves, restore),
		cmocka_unit_test_teardown(test_called_head_not_stranded, restore),
		cmocka_unit_test_teardown(test_held, restore),
		cmocka_unit_test_teardown(test_sampled_holds, restore),
		cmocka_unit_test_teardown(test_spent_rule, restore),
		cmocka_unit_test_teardown(test_gap_probe, restore),
		cmocka_unit_test_teardown(test_busy_machine, restore),
		cmocka_unit_test_teardown(test_unlock_to_wait, restore),
		cmocka_unit_test_teardown(test_groups, restore),
		cmocka_unit_test_teardown(test_group_member_leaves, restore),
		cmocka_unit_test_teardown(test_share_factor, restore),
		cmocka_unit_test_teardown(test_shares, restore),
		cmocka_unit_test_teardown(test_fork, restore),
		cmocka_unit_test_teardown(test_reservation, restore),
		cmocka_unit_test_teardown(test_unlock_misuse, restore),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
