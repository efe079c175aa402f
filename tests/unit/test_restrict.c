/*
 * test_restrict.c - concurrency restriction around every inner lock
 * (core/wrap/restrict.h, backends/restrict.c): mutual exclusion, trylock and
 * timedlock results, FIFO rotation with a single-member active set,
 * timeouts that leave nothing behind, the rotation bound under stress
 * (trace hook: fast admissions counted while a thread waits), fork, and
 * unlock misuse.  Behaviour only, never timing.
 */
#include "lock_checks.h"

#include "../../core/wrap/restrict.h"

static uint64_t word_of(void *s)
{
	return atomic_load(&((struct ls_restrict *)s)->word);
}

/* Changes with every passive ticket taken and every registration. */
static uint64_t rs_sig(void *s)
{
	uint64_t w = word_of(s);
	return ls_restrict_next_of(w) | (uint64_t)ls_restrict_active_of(w) << 16;
}

static void use(const char *name, unsigned active, unsigned rot)
{
	char err[256];
	ops = ls_backend_select(name, err, sizeof err);
	assert_non_null(ops);
	sig = rs_sig;
	atomic_store(&ls_restrict_active, active);
	atomic_store(&ls_restrict_rotate, rot);
}

static int restore(void **state)
{
	use("restrict", 2, 1000);
	atomic_store(&ls_restrict_trace, NULL);
	return 0;
}

/* Nothing inside, nothing queued, nothing abandoned. */
static void assert_empty(void)
{
	uint64_t w = word_of(st);
	assert_int_equal(ls_restrict_active_of(w), 0);
	assert_int_equal(ls_restrict_queue_of(w), 0);
	assert_false(w & LS_RS_GHOST);
	assert_false(ops->is_locked(st));
}

#define WRAPPER "restrict"
#include "inner_names.h"

static void test_select(void **state)
{
	char err[256];
	const struct ls_lock_ops *r = ls_backend_select("restrict", err, sizeof err);
	assert_non_null(r);
	assert_string_equal(r->name, "restrict");
	assert_null(ls_backend_select("restrict:restrict", err, sizeof err));
	assert_null(ls_backend_select("restrict:capacitor", err, sizeof err));
	assert_null(ls_backend_select("restrict:glibc", err, sizeof err));
	assert_null(ls_backend_select("restrict:bcs", err, sizeof err)); /* 16 bytes: no room */
}

static void test_mutex_all(void **state)
{
	static const unsigned shapes[][2] = { { 2, 1000 }, { 1, 1 }, { 2, 3 }, { 3, 8191 } };
	mx_iters = 3000;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (size_t i = 0; i < NINNERS; i++) {
			use(inners[i], shapes[s][0], shapes[s][1]);
			check_mutex();
			assert_empty();
		}
}

static void test_try_timed_all(void **state)
{
	for (unsigned lim = 1; lim <= 2; lim++)
		for (size_t i = 0; i < NINNERS; i++) {
			use(inners[i], lim, 4);
			check_try_timed();
			assert_empty();
		}
}

/* Active set of one: every waiter parks in the queue and is admitted in
 * arrival order, whatever the inner lock. */
static void test_fifo(void **state)
{
	for (size_t i = 0; i < NINNERS; i++) {
		use(inners[i], 1, 1000);
		check_fifo(FIFO_N, -1);
		assert_empty();
	}
}

/* A timed-out waiter at the tail takes its ticket back; the others keep
 * their order. */
static void test_timeout_tail(void **state)
{
	use("restrict:mcs", 1, 1000);
	check_fifo(4, 3);
	assert_empty();
	use("restrict:tts", 1, 1000);
	check_fifo(3, 2);
	assert_empty();
}

/* Timed-out waiters at the head and in the middle abandon their tickets
 * (GHOST); the next departure admits the whole queue; everyone else gets
 * the lock and nothing is left behind (no slot, no ticket, no flag). */
static int got;
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
	atomic_fetch_add((_Atomic int *)&got, 1);
	ops->unlock(st);
	return NULL;
}

static void abandon(const char *name, const bool *timed, int n)
{
	pthread_t t[8];
	use(name, 1, 1000);
	reset();
	got = 0;
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < n; i++) {
		t[i] = spawn_queued(timed[i] ? timed_waiter : plain_waiter, i);
	}
	int plain = 0;
	for (int i = 0; i < n; i++)
		if (timed[i]) {
			assert_int_equal(join(t[i]), ETIMEDOUT);
		} else {
			plain++;
		}
	assert_true(word_of(st) & LS_RS_GHOST);
	ops->unlock(st);
	for (int i = 0; i < n; i++)
		if (!timed[i])
			join(t[i]);
	assert_int_equal(got, plain);
	assert_empty();
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

static void test_timeout_abandon(void **state)
{
	static const bool head[] = { true, false, false, false };
	static const bool middle[] = { false, true, true, false, false };
	static const bool all_but_tail[] = { true, true, false };
	for (size_t i = 0; i < NINNERS; i++) {
		abandon(inners[i], head, 4);
		abandon(inners[i], middle, 5);
	}
	abandon("restrict:mcs", all_but_tail, 3);
}

/* -- the rotation bound under stress.  The trace hook counts fast
 * admissions.  A thread that queues with q tickets ahead remembers the
 * count; a departure reads the count before its CAS and, if it grants a
 * ticket, records that reading for it; at registration the thread checks
 * that at most (q+1)*K fast admissions happened between.  Hooks run after
 * their CAS, so the departure's reading never counts a fast admission
 * that came after the grant (however long the departer is preempted), and
 * the queueing thread's reading misses at most the THREADS-1 fast
 * admissions caught between their CAS and their hook: that much slack,
 * nothing else. */
#define RB_THREADS 8
#define RB_ITERS 20000
static _Atomic long fast_admissions, passive_admissions, worst_excess;
static _Atomic long granted_at[LS_RS_TICKET_MASK + 1]; /* count << 1 | 1, 0 = not yet */
static __thread long queued_at, depart_seen;
static __thread uint32_t queued_ahead;
static unsigned rb_k;

static void on_trace(const void *r, int ev, uint32_t ticket, uint32_t ahead)
{
	if (ev == LS_RS_TRACE_FAST) {
		atomic_fetch_add(&fast_admissions, 1);
	} else if (ev == LS_RS_TRACE_QUEUED) {
		queued_at = atomic_load(&fast_admissions);
		queued_ahead = ahead;
	} else if (ev == LS_RS_TRACE_DEPART) {
		depart_seen = atomic_load(&fast_admissions);
	} else if (ev == LS_RS_TRACE_GRANTED) {
		atomic_store(&granted_at[ticket], depart_seen << 1 | 1);
	} else {
		long g;
		while (!(g = atomic_load(&granted_at[ticket]))) /* the granter's hook trails */
			sched_yield();
		atomic_store(&granted_at[ticket], 0);
		long excess = (g >> 1) - queued_at - (long)(queued_ahead + 1) * rb_k;
		long w = atomic_load(&worst_excess);
		while (excess > w && !atomic_compare_exchange_weak(&worst_excess, &w, excess))
			;
		atomic_fetch_add(&passive_admissions, 1);
	}
}

static long rb_counter;
static void *rb_worker(void *arg)
{
	while (!atomic_load(&go))
		sched_yield();
	for (int i = 0; i < RB_ITERS; i++) {
		assert_int_equal(ops->lock(st), 0);
		rb_counter++;
		if (i % 64 == 0) /* let the others pile up behind the holder */
			sched_yield();
		ops->unlock(st);
		for (int k = 0; k < 20; k++) /* a little work outside */
			ls_cpu_relax();
		if (i % 8 == 0) /* mix the threads on 2 cores */
			sched_yield();
	}
	return NULL;
}

static void rotation(const char *name, unsigned active, unsigned k)
{
	pthread_t t[RB_THREADS];
	use(name, active, k);
	reset();
	rb_k = k;
	rb_counter = 0;
	atomic_store(&fast_admissions, 0);
	atomic_store(&passive_admissions, 0);
	atomic_store(&worst_excess, -1000000);
	atomic_store(&go, 0);
	atomic_store(&ls_restrict_trace, on_trace);
	for (long i = 0; i < RB_THREADS; i++)
		t[i] = spawn(rb_worker, i);
	atomic_store(&go, 1);
	for (int i = 0; i < RB_THREADS; i++)
		join(t[i]);
	atomic_store(&ls_restrict_trace, NULL);
	assert_int_equal(rb_counter, RB_THREADS * RB_ITERS);
	print_message("%s LIMIT %u K %u: %ld fast, %ld passive admissions, worst excess %ld\n", name, active, k,
	              atomic_load(&fast_admissions), atomic_load(&passive_admissions), atomic_load(&worst_excess));
	assert_true(atomic_load(&passive_admissions) > 0);
	assert_true(atomic_load(&worst_excess) <= RB_THREADS - 1);
	assert_empty();
}

static void test_rotation_bound(void **state)
{
	rotation("restrict:mcs", 2, 4);
	rotation("restrict:tts", 2, 16);
	rotation("restrict:ticket", 1, 1);
	rotation("restrict:futex", 3, 64);
}

static void test_fork(void **state)
{
	use("restrict:mcs", 1, 1000);
	check_fork(2);
	use("restrict:tts", 2, 1000);
	check_fork(3);
	use("restrict:ticket", 1, 4);
	check_fork(3);
}

static void test_unlock_misuse(void **state)
{
	for (size_t i = 0; i < NINNERS; i++) {
		use(inners[i], 2, 1000);
		check_unlock_misuse(word_of, assert_empty);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_select, restore),
		cmocka_unit_test_teardown(test_try_timed_all, restore),
		cmocka_unit_test_teardown(test_mutex_all, restore),
		cmocka_unit_test_teardown(test_fifo, restore),
		cmocka_unit_test_teardown(test_timeout_tail, restore),
		cmocka_unit_test_teardown(test_timeout_abandon, restore),
		cmocka_unit_test_teardown(test_rotation_bound, restore),
		cmocka_unit_test_teardown(test_fork, restore),
		cmocka_unit_test_teardown(test_unlock_misuse, restore),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
