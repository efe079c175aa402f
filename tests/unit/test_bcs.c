/*
 * test_bcs.c - Batched Critical Sections (core/delegation/bcs.h) and the bcs / bcs-wf
 * mutex backends (core/delegation/bcslock.h).  Behaviour only, never timing.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../backends/backend.h"
#include "../../core/delegation/bcs.h"
#include "../../core/delegation/bcslock.h"
#include "../../core/runtime/wait.h"
#include "../../core/runtime/spin.h"
#include "../../core/runtime/thread.h"
#include "../deadline.h"

#define NTHREADS 4
#define PER_THREAD 20000

/* ---- generic primitive ------------------------------------------------ */

struct tnode {
	struct ls_bcs_node q;
	unsigned handled;      /* consumer-written, owner reads after done */
	unsigned round;        /* rounds ended when it was handled */
	pthread_t done_by;
	_Atomic int done;
};

static _Atomic int active;          /* handlers running right now */
static _Atomic unsigned overlaps;   /* a handler saw another one running */
static _Atomic unsigned rounds;     /* round_end calls */
static _Atomic unsigned early_wakes;/* done() before its round ended */
static _Atomic unsigned double_done;
static long total;                  /* plain: only handlers touch it */

static void t_handle(struct ls_bcs_node *q, void *ctx)
{
	struct tnode *n = (struct tnode *)q;
	if (atomic_fetch_add(&active, 1) != 0)
		atomic_fetch_add(&overlaps, 1);
	total++;
	n->handled++;
	n->round = atomic_load(&rounds);
	atomic_fetch_sub(&active, 1);
}

static void t_round_end(void *ctx)
{
	atomic_fetch_add(&rounds, 1);
}

static void t_done(struct ls_bcs_node *q, void *ctx)
{
	struct tnode *n = (struct tnode *)q;
	if (atomic_load(&rounds) <= n->round)
		atomic_fetch_add(&early_wakes, 1);
	n->done_by = pthread_self();
	/* release: the publishing store is our last access to n. */
	if (atomic_exchange_explicit(&n->done, 1, memory_order_release))
		atomic_fetch_add(&double_done, 1);
}

static const struct ls_bcs_ops t_ops = { t_handle, t_round_end, t_done };

static struct ls_bcs lfq;
static struct ls_bcs_wf wfq;
static bool use_wf;
static _Atomic long consumed_as_consumer;

static void reset_generic(void)
{
	atomic_store(&active, 0);
	atomic_store(&overlaps, 0);
	atomic_store(&rounds, 0);
	atomic_store(&early_wakes, 0);
	atomic_store(&double_done, 0);
	total = 0;
}

static void wait_done(struct tnode *n)
{
	while (!atomic_load_explicit(&n->done, memory_order_acquire))
		sched_yield();
}

static void *producer(void *arg)
{
	struct tnode *n = arg;   /* owner: one node, reused after each done */
	long mine = 0;
	for (unsigned i = 0; i < PER_THREAD; i++) {
		atomic_store_explicit(&n->done, 0, memory_order_relaxed);
		bool c = use_wf ? ls_bcs_wf_submit(&wfq, &n->q, &t_ops, NULL)
		                : ls_bcs_submit(&lfq, &n->q, &t_ops, NULL);
		mine += c;
		wait_done(n);
		if (n->handled != i + 1)   /* exactly once per submission */
			return (void *)1;
	}
	atomic_fetch_add(&consumed_as_consumer, mine);
	return NULL;
}

static void run_exactly_once(bool wf)
{
	static struct tnode nodes[NTHREADS];
	pthread_t th[NTHREADS];
	reset_generic();
	use_wf = wf;
	memset(nodes, 0, sizeof nodes);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, producer, &nodes[i]), 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
		assert_int_equal(nodes[i].handled, PER_THREAD);
	}
	assert_int_equal(total, (long)NTHREADS * PER_THREAD);
	assert_int_equal(atomic_load(&overlaps), 0);
	assert_int_equal(atomic_load(&early_wakes), 0);
	assert_int_equal(atomic_load(&double_done), 0);
	assert_true(atomic_load(&consumed_as_consumer) > 0);
	assert_null(atomic_load(wf ? &wfq.tail : &lfq.top));
}

static void bcs_lf_exactly_once(void **st) { run_exactly_once(false); }
static void bcs_wf_exactly_once(void **st) { run_exactly_once(true); }

/* A lone submitter is the consumer: its node is handled and released
 * before submit returns, on its own thread. */
static void bcs_lone_submitter_consumes(void **st)
{
	struct tnode n;
	for (int wf = 0; wf < 2; wf++) {
		reset_generic();
		memset(&n, 0, sizeof n);
		bool c = wf ? ls_bcs_wf_submit(&wfq, &n.q, &t_ops, NULL)
		            : ls_bcs_submit(&lfq, &n.q, &t_ops, NULL);
		assert_true(c);
		assert_int_equal(n.handled, 1);
		assert_int_equal(atomic_load(&n.done), 1);
		assert_true(pthread_equal(n.done_by, pthread_self()));
		assert_int_equal(atomic_load(&rounds), 1);
	}
}

/* Solo fast path, uncontended: claim, run inline, close; no handle or
 * done for the solo node, the queue is empty again. */
static void bcs_solo_uncontended(void **st)
{
	struct tnode n, m;
	reset_generic();
	memset(&n, 0, sizeof n);
	memset(&m, 0, sizeof m);
	assert_true(ls_bcs_solo_begin(&lfq, &n.q));
	assert_false(ls_bcs_solo_begin(&lfq, &m.q));   /* claimed: no second solo */
	ls_bcs_solo_end(&lfq, &n.q, &t_ops, NULL);
	assert_null(atomic_load(&lfq.top));
	assert_null(ls_bcs_wf_solo_begin(&wfq, &n.q));
	assert_false(ls_bcs_wf_solo_end(&wfq, &n.q, &t_ops, NULL));
	assert_null(atomic_load(&wfq.tail));
	assert_int_equal(n.handled, 0);
	assert_int_equal(atomic_load(&n.done), 0);
}

/* Lock-free batches are handled oldest first: push three nodes behind a
 * consumer that is stuck in its handler, then check the order. */
static struct tnode order_nodes[4];
static int order_log[4], order_len;
static _Atomic int order_gate;

static void o_handle(struct ls_bcs_node *q, void *ctx)
{
	struct tnode *n = (struct tnode *)q;
	int idx = (int)(n - order_nodes);
	order_log[order_len++] = idx;
	if (idx == 0)
		while (!atomic_load(&order_gate))
			sched_yield();
}

static void o_done(struct ls_bcs_node *q, void *ctx)
{
	atomic_store_explicit(&((struct tnode *)q)->done, 1, memory_order_release);
}

static const struct ls_bcs_ops o_ops = { o_handle, NULL, o_done };

static void *o_first(void *arg)
{
	ls_bcs_submit(&lfq, &order_nodes[0].q, &o_ops, NULL);
	return NULL;
}

static void bcs_lf_fifo_within_batch(void **st)
{
	pthread_t t;
	memset(order_nodes, 0, sizeof order_nodes);
	order_len = 0;
	atomic_store(&order_gate, 0);
	assert_int_equal(pthread_create(&t, NULL, o_first, NULL), 0);
	while (atomic_load(&lfq.top) == NULL)
		sched_yield();
	/* Consumer is inside handle(0) (order_len written before the gate). */
	for (int i = 1; i < 4; i++)
		assert_false(ls_bcs_submit(&lfq, &order_nodes[i].q, &o_ops, NULL));
	atomic_store(&order_gate, 1);
	pthread_join(t, NULL);
	for (int i = 0; i < 4; i++) {
		wait_done(&order_nodes[i]);
		assert_int_equal(order_log[i], i);
	}
}

/* ---- the wait-free sentinel hand-off, forced -------------------------- */

static struct tnode hc, hp;
static _Atomic int c_in_handle, p_swapped, c_returned;
static __thread bool is_p;

static void h_handle(struct ls_bcs_node *q, void *ctx)
{
	t_handle(q, ctx);
	if (q == &hc.q) {
		atomic_store(&c_in_handle, 1);
		while (!atomic_load(&p_swapped))   /* P is now between swap and link */
			sched_yield();
	}
}

static const struct ls_bcs_ops h_ops = { h_handle, t_round_end, t_done };

static void stall_p(void)
{
	if (!is_p)
		return;
	atomic_store(&p_swapped, 1);
	while (!atomic_load(&c_returned))  /* C handed off and left */
		sched_yield();
}

static void *h_consumer(void *arg)
{
	bool *c = arg;
	*c = ls_bcs_wf_submit(&wfq, &hc.q, &h_ops, NULL);
	atomic_store(&c_returned, 1);
	return NULL;
}

static void *h_producer(void *arg)
{
	bool *c = arg;
	is_p = true;
	*c = ls_bcs_wf_submit(&wfq, &hp.q, &h_ops, NULL);
	return NULL;
}

static void bcs_wf_sentinel_handoff(void **st)
{
	pthread_t tc, tp;
	bool c_was_consumer = false, p_was_consumer = false;
	reset_generic();
	memset(&hc, 0, sizeof hc);
	memset(&hp, 0, sizeof hp);
	uint64_t before = atomic_load(&ls_bcs_wf_handoffs);
	atomic_store(&ls_bcs_wf_stall_hook, stall_p);
	assert_int_equal(pthread_create(&tc, NULL, h_consumer, &c_was_consumer), 0);
	while (!atomic_load(&c_in_handle))
		sched_yield();
	assert_int_equal(pthread_create(&tp, NULL, h_producer, &p_was_consumer), 0);
	pthread_join(tc, NULL);
	pthread_join(tp, NULL);
	atomic_store(&ls_bcs_wf_stall_hook, NULL);

	assert_true(c_was_consumer);
	assert_true(p_was_consumer);       /* P continued as the new consumer */
	assert_int_equal(atomic_load(&ls_bcs_wf_handoffs) - before, 1);
	assert_int_equal(hc.handled, 1);
	assert_int_equal(hp.handled, 1);
	assert_true(pthread_equal(hc.done_by, tp)); /* P released C's node */
	assert_true(pthread_equal(hp.done_by, tp));
	assert_int_equal(atomic_load(&overlaps), 0);
	assert_int_equal(atomic_load(&early_wakes), 0);
	assert_null(atomic_load(&wfq.tail));
}

/* ---- the bcs / bcs-wf backends ---------------------------------------- */

static const struct ls_lock_ops *ops;
static _Alignas(16) unsigned char state[LS_LOCK_STATE_BYTES];
static _Atomic int inside;
static _Atomic unsigned mx_overlaps;
static long counter;

static const struct ls_lock_ops *backend(const char *name)
{
	char err[256];
	const struct ls_lock_ops *b = ls_backend_select(name, err, sizeof err);
	assert_non_null(b);
	return b;
}

static struct ls_bcslock *L(void) { return (struct ls_bcslock *)state; }

static void critical(void)
{
	if (atomic_exchange(&inside, 1))
		atomic_fetch_add(&mx_overlaps, 1);
	counter++;
	atomic_store(&inside, 0);
}

static void *hammer(void *arg)
{
	for (int i = 0; i < PER_THREAD; i++) {
		if ((i & 7) == 7) {
			while (ops->trylock(state) != 0)
				sched_yield();
		} else {
			assert_int_equal(ops->lock(state), 0);
		}
		critical();
		ops->unlock(state);
	}
	return NULL;
}

static void assert_idle(void)
{
	assert_int_equal(atomic_load(&L()->word), 0);
	assert_null(atomic_load(&L()->sub.lf.top));
	assert_int_equal(L()->fifo_tail, 0);
}

/* hammer(), started together so that the threads overlap. */
static pthread_barrier_t start_together;
static void *hammer_together(void *arg)
{
	pthread_barrier_wait(&start_together);
	return hammer(arg);
}

/* NTHREADS hammer the lock; exclusion, every increment, and nothing left
 * behind.  own_cpu: while the waiting policy believes every thread has a
 * CPU of its own (the rules of LOCKSWAP_BCS_OWN_CPU; with no spinning
 * every queued waiter parks, so a parked head is skipped whenever threads
 * meet there), the threads started together.  Exclusion only: how often
 * they meet is up to the scheduler. */
static void run_mutex(const char *name, unsigned spin, bool own_cpu)
{
	pthread_t th[NTHREADS];
	unsigned saved = atomic_load(&ls_spin_limit);
	ops = backend(name);
	memset(state, 0, sizeof state);
	counter = 0;
	atomic_store(&mx_overlaps, 0);
	atomic_store(&ls_spin_limit, spin);
	if (own_cpu) {
		ls_wait_set_cpus(1024);
		pthread_barrier_init(&start_together, NULL, NTHREADS);
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, own_cpu ? hammer_together : hammer, NULL), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	if (own_cpu) {
		pthread_barrier_destroy(&start_together);
		ls_wait_set_cpus(0);
	}
	atomic_store(&ls_spin_limit, saved);
	assert_int_equal(counter, (long)NTHREADS * PER_THREAD);
	assert_int_equal(atomic_load(&mx_overlaps), 0);
	assert_false(ops->is_locked(state));
	assert_idle();
}

static void bcs_mutex_exclusion(void **st) { run_mutex("bcs", LS_SPIN_ADAPTIVE, false); }
static void bcs_wf_mutex_exclusion(void **st) { run_mutex("bcs-wf", LS_SPIN_ADAPTIVE, false); }
/* LOCKSWAP_SPIN=0: every contended call queues and parks. */
static void bcs_mutex_exclusion_nospin(void **st) { run_mutex("bcs", 0, false); }
static void bcs_wf_mutex_exclusion_nospin(void **st) { run_mutex("bcs-wf", 0, false); }
static void bcs_mutex_exclusion_own_cpu(void **st) { run_mutex("bcs", LS_SPIN_ADAPTIVE, true); }
static void bcs_wf_mutex_exclusion_own_cpu(void **st) { run_mutex("bcs-wf", LS_SPIN_ADAPTIVE, true); }
static void bcs_mutex_exclusion_own_cpu_nospin(void **st) { run_mutex("bcs", 0, true); }
static void bcs_wf_mutex_exclusion_own_cpu_nospin(void **st) { run_mutex("bcs-wf", 0, true); }

static void *try_other(void *arg)
{
	return (void *)(intptr_t)ops->trylock(state);
}

static void run_trylock(const char *name)
{
	pthread_t t;
	void *r;
	ops = backend(name);
	memset(state, 0, sizeof state);
	assert_false(ops->is_locked(state));
	assert_int_equal(ops->trylock(state), 0);
	assert_true(ops->is_locked(state));
	assert_int_equal(ops->trylock(state), EBUSY);
	pthread_create(&t, NULL, try_other, NULL);
	pthread_join(t, &r);
	assert_int_equal((int)(intptr_t)r, EBUSY);
	ops->unlock(state);
	assert_false(ops->is_locked(state));
	assert_int_equal(ops->trylock(state), 0);
	ops->unlock(state);
	assert_idle();
}

static void bcs_trylock(void **st) { run_trylock("bcs"); }
static void bcs_wf_trylock(void **st) { run_trylock("bcs-wf"); }

struct timed_arg {
	clockid_t clock;
	long ms;
	int result;
};

static void *timed_other(void *arg)
{
	struct timed_arg *a = arg;
	struct timespec t = deadline_in(a->clock, a->ms);
	a->result = ops->timedlock(state, a->clock, &t);
	if (a->result == 0) {
		critical();
		ops->unlock(state);
	}
	return NULL;
}

static void run_timedlock(const char *name)
{
	pthread_t t;
	unsigned saved = atomic_load(&ls_spin_limit);
	ops = backend(name);
	memset(state, 0, sizeof state);
	struct timespec past = { .tv_sec = -1, .tv_nsec = 0 };
	struct timespec soon = deadline_in(CLOCK_MONOTONIC, 1000);
	/* Free: 0 even with an expired deadline. */
	assert_int_equal(ops->timedlock(state, CLOCK_REALTIME, &past), 0);
	/* Held: an expired deadline fails at once. */
	assert_int_equal(ops->timedlock(state, CLOCK_MONOTONIC, &past), ETIMEDOUT);
	/* Held by us, queued waiters time out on both clocks and leave the
	 * queue: the word is back to plain LOCKED. */
	atomic_store(&ls_spin_limit, 0);
	clockid_t clocks[2] = { CLOCK_REALTIME, CLOCK_MONOTONIC };
	for (int i = 0; i < 2; i++) {
		struct timed_arg a = { clocks[i], 30, -1 };
		pthread_create(&t, NULL, timed_other, &a);
		pthread_join(t, NULL);
		assert_int_equal(a.result, ETIMEDOUT);
		assert_int_equal(atomic_load(&L()->word), LS_BCSL_LOCKED);
		assert_int_equal(L()->fifo_tail, 0);
	}
	/* A waiter that gets the lock before its deadline. */
	struct timed_arg a = { CLOCK_MONOTONIC, 10000, -1 };
	pthread_create(&t, NULL, timed_other, &a);
	while (!(atomic_load(&L()->word) & LS_BCSL_WAITERS))
		sched_yield();
	ops->unlock(state);
	pthread_join(t, NULL);
	assert_int_equal(a.result, 0);
	atomic_store(&ls_spin_limit, saved);
	assert_int_equal(ops->timedlock(state, CLOCK_MONOTONIC, &soon), 0);
	ops->unlock(state);
	assert_idle();
}

static void bcs_timedlock(void **st) { run_timedlock("bcs"); }
static void bcs_wf_timedlock(void **st) { run_timedlock("bcs-wf"); }

/* Timeouts racing with hand-offs: every outcome is 0 or ETIMEDOUT, the
 * section stays exclusive, and the lock ends idle. */
static void *timed_hammer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	for (int i = 0; i < 5000; i++) {
		seed = seed * 1103515245u + 12345u;
		struct timespec t = deadline_in(CLOCK_MONOTONIC, 0);
		t.tv_nsec += (long)(seed >> 16) % 50000;  /* up to 50 us */
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		int r = ops->timedlock(state, CLOCK_MONOTONIC, &t);
		if (r == 0) {
			critical();
			for (int k = 0; k < 200; k++)  /* hold it a little */
				ls_cpu_relax();
			ops->unlock(state);
		} else if (r != ETIMEDOUT) {
			return (void *)1;
		}
	}
	return NULL;
}

static void run_timed_race(const char *name)
{
	pthread_t th[NTHREADS];
	unsigned saved = atomic_load(&ls_spin_limit);
	ops = backend(name);
	memset(state, 0, sizeof state);
	atomic_store(&mx_overlaps, 0);
	atomic_store(&ls_spin_limit, 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, timed_hammer, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(th[i], &r);
		assert_null(r);
	}
	atomic_store(&ls_spin_limit, saved);
	assert_int_equal(atomic_load(&mx_overlaps), 0);
	assert_idle();
}

static void bcs_timed_race(void **st) { run_timed_race("bcs"); }
static void bcs_wf_timed_race(void **st) { run_timed_race("bcs-wf"); }

/* Hand-over policy: the FIFO head is first woken to compete (RETRY); if
 * it loses the race it re-queues at the front and the next unlock hands
 * it the lock directly, so the lock stays held across that unlock.  While
 * every thread has a CPU of its own, a head that is parked is instead woken
 * with RETRY again, until it has lost LS_BCSL_HANDOFF_PARKED_AFTER races:
 * no hand-over waits for a wake-up while a running thread can take the
 * lock.  ls_wait_set_cpus() chooses the case.
 *
 * The test makes the waiter lose every race: both threads run on one CPU
 * and the waiter is SCHED_IDLE, which never preempts a normal thread on
 * wake-up, so the test thread's trylock right after the unlock comes
 * first (an attempt where it does not is skipped).  The test thread sleeps
 * (never yields) while it waits for the waiter to act, so the CPU goes idle
 * and the waiter runs. */
static _Atomic int w_holds, w_release;
static struct ls_thread *_Atomic w_rec;

static void *handoff_waiter(void *arg)
{
	struct sched_param idle = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
	atomic_store(&w_rec, ls_thread_self());
	ops->lock(state);
	atomic_store(&w_holds, 1);
	while (!atomic_load(&w_release))
		sched_yield();
	ops->unlock(state);
	return NULL;
}

static uint32_t w_status(void)
{
	struct ls_thread *t = atomic_load(&w_rec);
	return t ? atomic_load(&ls_bcslock_node_of(t)->status) : 0;
}

/* Until the waiter's LOCK is queued and it is parked on its node. */
static void await_parked_in_queue(void)
{
	const uint32_t mask = LS_BCSN_RELEASED | LS_BCSN_GRANTED | LS_BCSN_RETRY | LS_BCSN_SLEEP;
	while ((w_status() & mask) != (LS_BCSN_RELEASED | LS_BCSN_SLEEP))
		usleep(100);
}

/* cpus: what the waiting policy is told the process may use; offers: how
 * many RETRY wake-ups the waiter gets before the hand-off. */
static void run_handoff(const char *name, unsigned cpus, unsigned offers)
{
	unsigned saved = atomic_load(&ls_spin_limit);
	int observed = 0;
	ops = backend(name);
	atomic_store(&ls_spin_limit, 0);
	ls_wait_set_cpus(cpus);
	cpu_set_t all, one;
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof all, &all), 0);
	CPU_ZERO(&one);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &all)) {
			CPU_SET(cpu, &one);
			break;
		}
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
	for (int attempt = 0; attempt < 100 && !observed; attempt++) {
		pthread_t t;
		struct ls_bcslock_counts c0, c1;
		memset(state, 0, sizeof state);
		atomic_store(&w_rec, NULL);
		atomic_store(&w_holds, 0);
		atomic_store(&w_release, 0);
		assert_int_equal(ops->lock(state), 0);
		pthread_create(&t, NULL, handoff_waiter, NULL); /* inherits the one CPU */
		await_parked_in_queue();
		ls_bcslock_counts_sum(&c0);
		unsigned retries = 0;
		for (;;) {
			ops->unlock(state);
			if (ops->is_locked(state))
				break;                          /* handed off */
			assert_true(w_status() & LS_BCSN_RETRY);
			retries++;
			if (ops->trylock(state) != 0)
				break;                          /* it won: attempt skipped */
			await_parked_in_queue();                /* lost: re-queued at the front */
		}
		if (ops->is_locked(state) && (w_status() & LS_BCSN_GRANTED)) {
			assert_int_equal(ops->trylock(state), EBUSY);
			assert_int_equal(retries, offers);
			ls_bcslock_counts_sum(&c1);
			assert_int_equal(c1.parked_skips - c0.parked_skips, offers - 1);
			assert_int_equal(c1.grants - c0.grants, 1);
			assert_int_equal(c1.retries - c0.retries, offers);
			observed = 1;
		}
		atomic_store(&w_release, 1);
		pthread_join(t, NULL);
		assert_int_equal(atomic_load(&w_holds), 1);
		assert_idle();
	}
	atomic_store(&ls_spin_limit, saved);
	ls_wait_set_cpus(0);
	pthread_setaffinity_np(pthread_self(), sizeof all, &all);
	assert_true(observed);
}

/* One CPU: more threads than CPUs, the hand-off after one lost race. */
static void bcs_handoff_after_lost_race(void **st) { run_handoff("bcs", 1, 1); }
static void bcs_wf_handoff_after_lost_race(void **st) { run_handoff("bcs-wf", 1, 1); }
/* Many CPUs: a parked head is woken to compete, not handed the lock. */
static void bcs_parked_head_woken_not_handed(void **st)
{
	run_handoff("bcs", 64, LS_BCSL_HANDOFF_PARKED_AFTER);
}
static void bcs_wf_parked_head_woken_not_handed(void **st)
{
	run_handoff("bcs-wf", 64, LS_BCSL_HANDOFF_PARKED_AFTER);
}
/* LOCKSWAP_BCS_OWN_CPU=off: the policy before, whatever the CPUs. */
static void bcs_own_cpu_off_hands_off(void **st)
{
	atomic_store(&ls_bcslock_own_cpu_on, 0);
	run_handoff("bcs", 64, 1);
	atomic_store(&ls_bcslock_own_cpu_on, 1);
}

/* ---- fork ------------------------------------------------------------- */

static struct ls_thread *_Atomic waiter_rec[2];

static void *fork_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&waiter_rec[i], ls_thread_self());
	ops->lock(state);
	critical();
	ops->unlock(state);
	return NULL;
}

static bool queued(int i)
{
	struct ls_thread *t = atomic_load(&waiter_rec[i]);
	if (!t)
		return false;
	struct ls_bcslock_node *n = ls_bcslock_node_of(t);
	uint32_t s = atomic_load(&n->status);
	return (s & LS_BCSN_RELEASED) && !(s & LS_BCSN_GRANTED);
}

#ifndef __SANITIZE_THREAD__
static _Atomic int child_counter;

static void *child_hammer(void *arg)
{
	struct ls_bcslock *l2 = arg;
	for (int i = 0; i < 1000; i++) {
		ops->lock(l2);
		atomic_fetch_add_explicit(&child_counter, 1, memory_order_relaxed);
		ops->unlock(l2);
	}
	return NULL;
}
#endif

/* Runs in the child; returns the exit status (0 = all good). */
static int child_checks(void)
{
	ls_thread_after_fork();
	/* The forking thread held the lock; two dead threads are queued. */
	if (!ops->is_locked(state))
		return 2;
	ops->unlock(state);              /* must not hand off to the dead */
	if (ops->is_locked(state))
		return 3;
	if (ops->trylock(state) != 0)
		return 4;
	ops->unlock(state);
	if (ops->lock(state) != 0)
		return 5;
	ops->unlock(state);
	if (atomic_load(&L()->word) != 0 || L()->fifo_tail != 0)
		return 6;

	/* A second lock whose submission queue a dead thread left busy
	 * (as if it died mid-batch): the next submitter must reset it. */
	static _Alignas(16) unsigned char s2[LS_LOCK_STATE_BYTES];
	struct ls_bcslock *l2 = (struct ls_bcslock *)s2;
	struct ls_bcslock_node *dead = ls_bcslock_node_of(atomic_load(&waiter_rec[0]));
	atomic_store(&l2->sub.lf.top, &dead->q);
	if (ops->trylock(l2) != 0)
		return 7;
	struct timespec t = deadline_in(CLOCK_MONOTONIC, 20);
	atomic_store(&ls_spin_limit, 0);
	if (ops->timedlock(l2, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
		return 8;                /* queued behind us, timed out */
	if (atomic_load(&l2->sub.lf.top) != NULL)
		return 9;
	ops->unlock(l2);
	if (ops->is_locked(l2))
		return 10;
#ifndef __SANITIZE_THREAD__  /* tsan: no new threads after a threaded fork */
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, child_hammer, l2) != 0)
			return 11;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&child_counter) != 2000 || ops->is_locked(l2))
		return 12;
#endif
	return 0;
}

static void run_fork(const char *name)
{
	pthread_t th[2];
	ops = backend(name);
	memset(state, 0, sizeof state);
	counter = 0;
	atomic_store(&waiter_rec[0], NULL);
	atomic_store(&waiter_rec[1], NULL);
	assert_int_equal(ops->lock(state), 0);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, fork_waiter, (void *)(intptr_t)i);
	while (!queued(0) || !queued(1))
		sched_yield();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_checks());
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	ops->unlock(state);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(counter, 2);
	assert_idle();
}

static void bcs_fork(void **st) { run_fork("bcs"); }
static void bcs_wf_fork(void **st) { run_fork("bcs-wf"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bcs_lone_submitter_consumes),
		cmocka_unit_test(bcs_solo_uncontended),
		cmocka_unit_test(bcs_lf_exactly_once),
		cmocka_unit_test(bcs_wf_exactly_once),
		cmocka_unit_test(bcs_lf_fifo_within_batch),
		cmocka_unit_test(bcs_wf_sentinel_handoff),
		cmocka_unit_test(bcs_mutex_exclusion),
		cmocka_unit_test(bcs_wf_mutex_exclusion),
		cmocka_unit_test(bcs_mutex_exclusion_nospin),
		cmocka_unit_test(bcs_wf_mutex_exclusion_nospin),
		cmocka_unit_test(bcs_mutex_exclusion_own_cpu),
		cmocka_unit_test(bcs_wf_mutex_exclusion_own_cpu),
		cmocka_unit_test(bcs_mutex_exclusion_own_cpu_nospin),
		cmocka_unit_test(bcs_wf_mutex_exclusion_own_cpu_nospin),
		cmocka_unit_test(bcs_trylock),
		cmocka_unit_test(bcs_wf_trylock),
		cmocka_unit_test(bcs_timedlock),
		cmocka_unit_test(bcs_wf_timedlock),
		cmocka_unit_test(bcs_timed_race),
		cmocka_unit_test(bcs_wf_timed_race),
		cmocka_unit_test(bcs_handoff_after_lost_race),
		cmocka_unit_test(bcs_wf_handoff_after_lost_race),
		cmocka_unit_test(bcs_parked_head_woken_not_handed),
		cmocka_unit_test(bcs_wf_parked_head_woken_not_handed),
		cmocka_unit_test(bcs_own_cpu_off_hands_off),
		cmocka_unit_test(bcs_fork),
		cmocka_unit_test(bcs_wf_fork),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
