/*
 * test_ces.c - the combine-and-exchange delegation lock (core/delegation/ces.h,
 * backends/ces.c), through the backend table: the checks every mutex
 * algorithm gets (exclusion, trylock and timedlock results, FIFO, waiters
 * that time out, fork), and then its own claims, by behaviour:
 *   - a releaser runs the queued waiters' sections on its own kernel
 *     thread, in FIFO order, each in its waiter's context (TLS,
 *     pthread_self());
 *   - at most LS_CES_BATCH of them per release; the next waiter is handed
 *     the lock and runs the rest;
 *   - a timed waiter is never run delegated: it is handed the lock;
 *   - with delegation off, every waiter is handed the lock, in FIFO order;
 *   - the delegation counters agree with what the sections saw.
 *
 * Waiters are queued one at a time while the test holds the lock (each is
 * observably pushed before the next starts), so which thread runs which
 * section is decided, not timed.
 *
 * Needs glibc's rseq areas off (ces refuses to run with them, ces.h):
 * tests/unit/run.sh runs with GLIBC_TUNABLES=glibc.pthread.rseq=0, and a
 * run by hand re-executes itself with it.  Skipped under the sanitizers,
 * as in test_backends.c: switching stacks and TLS under their runtimes is
 * not something they follow.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include "lock_checks.h"

#include "../../core/delegation/ces.h"
#include "../../core/runtime/delegation_counts.h"
#include "../../core/runtime/home.h"

extern const struct ls_lock_ops ls_backend_ces;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define NEEDS_PLAIN_BUILD() skip()
#else
#define NEEDS_PLAIN_BUILD() ((void)0)
#endif

static uint32_t word_of(void *s)
{
	return atomic_load(&((struct ls_ces *)s)->word);
}

/* The newest pushed node: changes with every waiter that queues while the
 * lock is held (the holder detaches the stack only when it releases). */
static uint64_t ces_sig(void *s)
{
	return word_of(s) >> LS_CES_TOP_SHIFT;
}

static int setup(void **state)
{
	ops = &ls_backend_ces;
	sig = ces_sig;
	mx_iters = 20000;
	return 0;
}

static long kernel_tid(void)
{
	return syscall(SYS_gettid);
}

static void test_mutex(void **state) { NEEDS_PLAIN_BUILD(); check_mutex(); }
static void test_try_timed(void **state) { NEEDS_PLAIN_BUILD(); check_try_timed(); }
static void test_fifo(void **state) { NEEDS_PLAIN_BUILD(); check_fifo(FIFO_N, -1); }
/* A timed waiter that gives up at the head, in the middle, at the tail of
 * the queue: the releaser skips its abandoned node. */
static void test_timeout_head(void **state) { NEEDS_PLAIN_BUILD(); check_fifo(3, 0); }
static void test_timeout_middle(void **state) { NEEDS_PLAIN_BUILD(); check_fifo(3, 1); }
static void test_timeout_tail(void **state) { NEEDS_PLAIN_BUILD(); check_fifo(3, 2); }
static void test_fork(void **state) { NEEDS_PLAIN_BUILD(); check_fork(3); }

/* trylock never passes a queue: EBUSY while held, 0 once free, and the
 * word is all-zero (unlocked, nobody queued) after the unlock. */
static void test_trylock_word(void **state)
{
	NEEDS_PLAIN_BUILD();
	reset();
	assert_int_equal(ops->trylock(st), 0);
	assert_int_equal(word_of(st), LS_CES_LOCKED);
	assert_int_equal(ops->trylock(st), EBUSY);
	assert_true(ops->is_locked(st));
	ops->unlock(st);
	assert_int_equal(word_of(st), 0);
	assert_false(ops->is_locked(st));
}

/* ---- who runs which section ------------------------------------------- */

#define MAXW (LS_CES_BATCH + 8)

/* Written inside the critical sections (ordered by the lock), read after
 * the joins. */
static long ran_on[MAXW];        /* kernel thread that ran waiter i's section */
static long own_tid[MAXW];       /* waiter i's own kernel thread */
static bool saw_own_tls[MAXW];   /* its __thread variable was its own there */
static bool saw_own_self[MAXW];  /* pthread_self() was its own there */
static int served[MAXW];
static int nserved;
static int timed_waiter = -1;    /* this index uses a (long) timedlock */

static __thread int my_index = -1;

static void *section_waiter(void *arg)
{
	int i = (int)(long)arg;
	my_index = i;
	own_tid[i] = kernel_tid();
	pthread_t me = pthread_self();
	int r;
	if (i == timed_waiter) {
		struct timespec t = deadline_in(CLOCK_MONOTONIC, 10000);
		r = ops->timedlock(st, CLOCK_MONOTONIC, &t);
	} else {
		r = ops->lock(st);
	}
	if (r != 0)
		return (void *)1;
	ran_on[i] = kernel_tid();
	saw_own_tls[i] = my_index == i;
	saw_own_self[i] = pthread_equal(pthread_self(), me);
	served[nserved++] = i;
	ops->unlock(st);
	/* Back on our own thread, whoever ran the section. */
	if (kernel_tid() != own_tid[i] || my_index != i)
		return (void *)2;
	return NULL;
}

/* The test holds the lock, n waiters queue one after the other, the test
 * releases; returns the test's own kernel thread. */
static long queue_and_release(int n)
{
	pthread_t t[MAXW];
	reset();
	nserved = 0;
	memset(ran_on, 0, sizeof ran_on);
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < n; i++)
		t[i] = spawn_queued(section_waiter, i);
	ops->unlock(st);
	for (int i = 0; i < n; i++)
		assert_int_equal(join(t[i]), 0);
	assert_int_equal(nserved, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(served[i], i); /* FIFO */
		assert_true(saw_own_tls[i]);
		assert_true(saw_own_self[i]);
	}
	assert_int_equal(word_of(st), 0);
	return kernel_tid();
}

/* Four queued waiters: the releaser runs all four sections itself, in
 * order, each in its waiter's context; one batch of four is counted. */
static void test_releaser_runs_sections(void **state)
{
	NEEDS_PLAIN_BUILD();
	struct ls_delegation_counts c0, c1;
	ls_delegation_counts(&c0);
	long me = queue_and_release(4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ran_on[i], me);
		assert_true(own_tid[i] != me);
	}
	ls_delegation_counts(&c1);
	assert_int_equal(c1.sections - c0.sections, 4);
	assert_int_equal(c1.batches - c0.batches, 1);
	assert_int_equal(c1.batch_hist[2] - c0.batch_hist[2], 1); /* sizes 4-7 */
	assert_int_equal(c1.granted - c0.granted, 0);
	assert_int_equal(c1.batch_bound, LS_CES_BATCH);
}

/* LS_CES_BATCH + 3 queued waiters: the releaser runs the first
 * LS_CES_BATCH sections, hands the lock to the next waiter, which runs its
 * own section on its own thread and then the last two for them. */
static void test_batch_bound(void **state)
{
	NEEDS_PLAIN_BUILD();
	enum { N = LS_CES_BATCH + 3, NEXT = LS_CES_BATCH };
	struct ls_delegation_counts c0, c1;
	ls_delegation_counts(&c0);
	long me = queue_and_release(N);
	for (int i = 0; i < LS_CES_BATCH; i++)
		assert_int_equal(ran_on[i], me);
	assert_int_equal(ran_on[NEXT], own_tid[NEXT]);
	for (int i = NEXT + 1; i < N; i++)
		assert_int_equal(ran_on[i], own_tid[NEXT]);
	ls_delegation_counts(&c1);
	assert_int_equal(c1.sections - c0.sections, N - 1);
	assert_int_equal(c1.batches - c0.batches, 2);
	assert_int_equal(c1.granted - c0.granted, 1);
}

/* A timed waiter between two plain ones: the first runs delegated, the
 * timed one is handed the lock and runs on its own thread, and it then
 * runs the third for it. */
static void test_timed_waiter_is_granted(void **state)
{
	NEEDS_PLAIN_BUILD();
	timed_waiter = 1;
	long me = queue_and_release(3);
	timed_waiter = -1;
	assert_int_equal(ran_on[0], me);
	assert_int_equal(ran_on[1], own_tid[1]);
	assert_int_equal(ran_on[2], own_tid[1]);
}

/* Delegation off (what a platform without it gets): every waiter is
 * handed the lock and runs its own section, still in FIFO order. */
static void test_without_delegation(void **state)
{
	NEEDS_PLAIN_BUILD();
	ls_ces_delegation = false;
	queue_and_release(4);
	ls_ces_delegation = true;
	for (int i = 0; i < 4; i++)
		assert_int_equal(ran_on[i], own_tid[i]);
}

/* Contended exclusion with delegation happening: 8 threads, plain locks
 * only; no update is lost and some sections ran delegated. */
static long plain_counter;
static _Atomic long delegated;

static void *plain_worker(void *arg)
{
	long own = kernel_tid();
	for (int i = 0; i < 5000; i++) {
		if (ops->lock(st) != 0)
			return (void *)1;
		plain_counter++;
		if (kernel_tid() != own)
			atomic_fetch_add_explicit(&delegated, 1, memory_order_relaxed);
		for (int k = 0; k < 50; k++)
			ls_cpu_relax();
		ops->unlock(st);
	}
	return NULL;
}

static void test_contended_delegation(void **state)
{
	NEEDS_PLAIN_BUILD();
	struct ls_delegation_counts c0, c1;
	reset();
	plain_counter = 0;
	atomic_store(&delegated, 0);
	ls_delegation_counts(&c0);
	/* The first sections of the run are queued behind the test's hold,
	 * so that delegation happens whatever the scheduler does later. */
	assert_int_equal(ops->lock(st), 0);
	pthread_t t[8];
	for (long i = 0; i < 8; i++)
		t[i] = i < 2 ? spawn_queued(plain_worker, i) : spawn(plain_worker, i);
	ops->unlock(st);
	for (int i = 0; i < 8; i++)
		assert_int_equal(join(t[i]), 0);
	ls_delegation_counts(&c1);
	assert_int_equal(plain_counter, 8 * 5000);
	assert_true(atomic_load(&delegated) > 0);
	assert_int_equal(c1.sections - c0.sections, (uint64_t)atomic_load(&delegated));
	assert_int_equal(word_of(st), 0);
}

/* ces refuses to run while glibc registers rseq areas; a run by hand
 * turns them off as tests/rseq_off.sh does, by running itself again. */
static void without_rseq(char **argv)
{
	const char *why = NULL;
	if (ls_ces_delegation_setup(&why))
		return;
	const char *t = getenv("GLIBC_TUNABLES");
	if (!t || !strstr(t, "glibc.pthread.rseq=0")) {
		char v[512];
		snprintf(v, sizeof v, "glibc.pthread.rseq=0%s%s", t ? ":" : "", t ? t : "");
		setenv("GLIBC_TUNABLES", v, 1);
		execv("/proc/self/exe", argv);
	}
	fprintf(stderr, "test_ces: ces cannot run here: %s\n", why);
	exit(1);
}

int main(int argc, char **argv)
{
	(void)argc;
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
	without_rseq(argv);
	char err[256];
	if (!ls_backend_ces.prepare(err, sizeof err)) {
		fprintf(stderr, "test_ces: %s\n", err);
		return 1;
	}
	/* What the interposer does once it routes signals (home.h); and, as it
	 * registers them, a delegated section goes home before it forks. */
	ls_home_start_delegation();
	pthread_atfork(ls_home_before_fork, NULL, ls_thread_after_fork);
#endif
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try_timed),
		cmocka_unit_test(test_trylock_word),
		cmocka_unit_test(test_mutex),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_timeout_head),
		cmocka_unit_test(test_timeout_middle),
		cmocka_unit_test(test_timeout_tail),
		cmocka_unit_test(test_releaser_runs_sections),
		cmocka_unit_test(test_batch_bound),
		cmocka_unit_test(test_timed_waiter_is_granted),
		cmocka_unit_test(test_without_delegation),
		cmocka_unit_test(test_contended_delegation),
		cmocka_unit_test(test_fork),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
