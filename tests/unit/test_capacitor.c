/*
 * test_capacitor.c - capacitor around every inner lock (core/capacitor.h,
 * backends/capacitor.c): mutual exclusion, both semaphores, both modes,
 * fractional bypass, timeouts in the semaphore, fork, and the B-1 bounded
 * bypass property with controlled arrivals and under stress (trace hook).
 * Behaviour only, never timing.
 */
/* ---- shared checks (every lock test file carries its own copy) -------- */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../backends/backend.h"
#include "../../core/spin.h"
#include "../../core/thread.h"

/* The lock under test: its ops, and a signature of its state that changes
 * whenever one more waiter is queued or parked (to sequence arrivals). */
static const struct ls_lock_ops *ops;
static uint64_t (*sig)(void *state);
static _Alignas(16) unsigned char st[LS_LOCK_STATE_BYTES];

static void reset(void)
{
	memset(st, 0, sizeof st);
}

static struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Poll until sig(st) differs from s0 (10 s at most: a hang is a failure). */
static void await_change(uint64_t s0)
{
	for (int i = 0; i < 100000 && sig(st) == s0; i++)
		usleep(100);
	assert_true(sig(st) != s0);
}

static pthread_t spawn(void *(*fn)(void *), long arg)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fn, (void *)arg), 0);
	return t;
}

static long join(pthread_t t)
{
	void *r;
	pthread_join(t, &r);
	return (long)r;
}

/* -- mutual exclusion: lock, trylock, timedlock and short timeouts mixed */

#define MX_THREADS 8
static int mx_iters = 4000;
static long counter;             /* plain: only critical sections touch it */
static _Atomic int inside, violations;
static _Atomic long successes;
static _Atomic int go;

static void *mx_worker(void *arg)
{
	long id = (long)arg;
	while (!atomic_load(&go))
		sched_yield();
	for (int i = 0; i < mx_iters; i++) {
		int mode = (int)((i + id) % 8);
		if (mode == 0) {
			while (ops->trylock(st) != 0)
				sched_yield();
		} else if (mode == 1) {
			/* A timeout that (almost) always fires under contention. */
			struct timespec t = in_ms(CLOCK_MONOTONIC, 0);
			if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != 0)
				continue;
		} else if (mode == 2) {
			struct timespec t = in_ms(CLOCK_REALTIME, 10000);
			int r = ops->timedlock(st, CLOCK_REALTIME, &t);
			if (r != 0) {
				/* 10 s: a lost wake-up, not slowness (cmocka's asserts
				 * must stay in the main thread). */
				fprintf(stderr, "timedlock(10 s) = %d\n", r);
				atomic_fetch_add(&violations, 1);
				continue;
			}
		} else if (ops->lock(st) != 0) {
			atomic_fetch_add(&violations, 1);
			continue;
		}
		if (atomic_fetch_add(&inside, 1) != 0)
			atomic_fetch_add(&violations, 1);
		counter++;
		for (int k = 0; k < 30; k++) /* widen the critical section */
			ls_cpu_relax();
		atomic_fetch_sub(&inside, 1);
		atomic_fetch_add(&successes, 1);
		ops->unlock(st);
		if (i % 16 == 0) /* mix the threads on 2 cores */
			sched_yield();
	}
	return NULL;
}

static void check_mutex(void)
{
	reset();
	counter = 0;
	atomic_store(&violations, 0);
	atomic_store(&successes, 0);
	atomic_store(&go, 0);
	pthread_t t[MX_THREADS];
	for (long i = 0; i < MX_THREADS; i++)
		t[i] = spawn(mx_worker, i);
	atomic_store(&go, 1);
	for (int i = 0; i < MX_THREADS; i++)
		join(t[i]);
	assert_int_equal(atomic_load(&violations), 0);
	assert_int_equal(counter, atomic_load(&successes));
	assert_true(counter >= (long)MX_THREADS * mx_iters * 7 / 8);
	assert_false(ops->is_locked(st));
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

/* -- trylock / timedlock results */

static void *try_other(void *arg)
{
	struct timespec t, past = { -1, 0 };
	if (ops->trylock(st) != EBUSY)
		return (void *)1;
	t = in_ms(CLOCK_MONOTONIC, 30);
	if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
		return (void *)2;
	t = in_ms(CLOCK_REALTIME, 30);
	if (ops->timedlock(st, CLOCK_REALTIME, &t) != ETIMEDOUT)
		return (void *)3;
	if (ops->timedlock(st, CLOCK_MONOTONIC, &past) != ETIMEDOUT)
		return (void *)4;
	t.tv_sec = 0; /* 1970: expired, but not negative */
	if (ops->timedlock(st, CLOCK_REALTIME, &t) != ETIMEDOUT)
		return (void *)5;
	return NULL;
}

static void check_try_timed(void)
{
	reset();
	struct timespec past = { -1, 0 }, t;
	assert_false(ops->is_locked(st));
	assert_int_equal(ops->trylock(st), 0);
	assert_true(ops->is_locked(st));
	assert_int_equal(join(spawn(try_other, 0)), 0);
	ops->unlock(st);
	assert_false(ops->is_locked(st));
	/* Expired deadlines still take a free lock. */
	assert_int_equal(ops->timedlock(st, CLOCK_MONOTONIC, &past), 0);
	ops->unlock(st);
	t = in_ms(CLOCK_REALTIME, 1000);
	assert_int_equal(ops->timedlock(st, CLOCK_REALTIME, &t), 0);
	ops->unlock(st);
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	assert_false(ops->is_locked(st));
	/* Holder retries with timedlock on its own lock: times out, leaves. */
	assert_int_equal(ops->lock(st), 0);
	t = in_ms(CLOCK_MONOTONIC, 20);
	assert_int_equal(ops->timedlock(st, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	ops->unlock(st);
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

/* -- FIFO admission with controlled arrivals, and timed-out waiters */

#define FIFO_N 6
static int order[64];
static _Atomic int norder;
static int timed_slot = -1;     /* arrival index that uses a short timedlock */
static int timed_result;
static bool timed_late;         /* it may only give up once the line moves */

static void *fifo_waiter(void *arg)
{
	int i = (int)(long)arg;
	if (i == timed_slot) {
		struct timespec t = in_ms(CLOCK_MONOTONIC, 100);
		timed_result = ops->timedlock(st, CLOCK_MONOTONIC, &t);
		if (timed_result == 0)
			ops->unlock(st);
		return NULL;
	}
	assert_int_equal(ops->lock(st), 0);
	order[atomic_fetch_add(&norder, 1)] = i;
	ops->unlock(st);
	return NULL;
}

/* Holder holds; n waiters arrive one at a time (each observably queued
 * before the next starts); one of them (timed) may time out meanwhile;
 * then release and check admission order. */
__attribute__((unused)) static void check_fifo(int n, int timed)
{
	pthread_t t[64];
	reset();
	atomic_store(&norder, 0);
	timed_slot = timed;
	timed_result = -1;
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < n; i++) {
		uint64_t s0 = sig(st);
		t[i] = spawn(fifo_waiter, i);
		await_change(s0);
	}
	if (timed >= 0 && !timed_late) {
		join(t[timed]);
		assert_int_equal(timed_result, ETIMEDOUT);
	}
	ops->unlock(st);
	for (int i = 0; i < n; i++)
		if (i != timed || timed_late)
			join(t[i]);
	if (timed_late)
		assert_true(timed_result == ETIMEDOUT || timed_result == 0);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (i != timed)
			assert_int_equal(order[k++], i);
	assert_int_equal(atomic_load(&norder), k);
	assert_false(ops->is_locked(st));
	assert_int_equal(ops->trylock(st), 0);
	ops->unlock(st);
}

/* -- fork: the parent's other thread is queued on a lock the forking
 * thread holds; the child releases and reuses it.  A lock held by another
 * thread stays held in the child (EBUSY), as with glibc. */

static _Alignas(16) unsigned char st2[LS_LOCK_STATE_BYTES];
static _Atomic int hold2, release2;

static void *fork_waiter(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	return NULL;
}

static void *fork_holder(void *arg)
{
	assert_int_equal(ops->lock(st2), 0);
	atomic_store(&hold2, 1);
	while (!atomic_load(&release2))
		usleep(1000);
	ops->unlock(st2);
	return NULL;
}

static int child_checks(void)
{
	ls_thread_after_fork(); /* what the interposer's atfork handler does */
	alarm(10);              /* a hang fails the test instead of blocking it */
	ops->unlock(st);
	if (ops->lock(st) != 0)
		return 2;
	ops->unlock(st);
	if (ops->trylock(st) != 0)
		return 3;
	ops->unlock(st);
	struct timespec t = in_ms(CLOCK_MONOTONIC, 50);
	if (ops->timedlock(st, CLOCK_MONOTONIC, &t) != 0)
		return 4;
	ops->unlock(st);
	if (ops->is_locked(st))
		return 5;
	if (ops->trylock(st2) != EBUSY)
		return 6;
	t = in_ms(CLOCK_MONOTONIC, 20);
	if (ops->timedlock(st2, CLOCK_MONOTONIC, &t) != ETIMEDOUT)
		return 7;
	return 0;
}

__attribute__((unused)) static void check_fork(int nwaiters)
{
	pthread_t w[4], h;
	reset();
	memset(st2, 0, sizeof st2);
	atomic_store(&hold2, 0);
	atomic_store(&release2, 0);
	h = spawn(fork_holder, 0);
	while (!atomic_load(&hold2))
		usleep(1000);
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < nwaiters; i++) {
		uint64_t s0 = sig(st);
		w[i] = spawn(fork_waiter, i);
		await_change(s0);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_checks());
	assert_true(pid > 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ops->unlock(st);
	for (int i = 0; i < nwaiters; i++)
		join(w[i]);
	atomic_store(&release2, 1);
	join(h);
	assert_false(ops->is_locked(st));
}

#include "../../core/capacitor.h"

static uint64_t word_of(void *s)
{
	return atomic_load(&((struct ls_capacitor *)s)->word);
}

static uint16_t tickets(void *s) { return (uint16_t)(word_of(s) >> LS_CAP_TICKET_SHIFT); }
static uint16_t base(void *s) { return (uint16_t)(word_of(s) >> LS_CAP_BASE_SHIFT); }
static uint16_t departs(void *s) { return (uint16_t)(word_of(s) >> LS_CAP_DEPART_SHIFT); }

/* Arrival tickets handed out: changes with every arrival. */
static uint64_t cap_sig(void *s)
{
	return tickets(s);
}

static void use(const char *name, unsigned sem, unsigned b)
{
	char err[256];
	ops = ls_backend_select(name, err, sizeof err);
	assert_non_null(ops);
	sig = cap_sig;
	atomic_store(&ls_capacitor_sem, sem);
	atomic_store(&ls_capacitor_bypass, b);
	atomic_store(&ls_capacitor_mode, LS_CAP_MODE_ALWAYS);
	atomic_store(&ls_capacitor_skip, 0);
}

static int restore(void **state)
{
	use("capacitor", LS_CAP_SEM_TWA, 4);
	atomic_store(&ls_capacitor_trace, NULL);
	return 0;
}

static const char *const inners[] = {
	"capacitor:tts", "capacitor:ticket", "capacitor:mcs", "capacitor:queued", "capacitor:futex",
};

static void test_select(void **state)
{
	char err[256];
	const struct ls_lock_ops *c = ls_backend_select("capacitor", err, sizeof err);
	assert_non_null(c);
	assert_string_equal(c->name, "capacitor");
	assert_null(ls_backend_select("capacitor:capacitor", err, sizeof err));
	assert_null(ls_backend_select("capacitor:glibc", err, sizeof err));
}

static void test_mutex_all(void **state)
{
	mx_iters = 3000;
	for (unsigned sem = 0; sem < 2; sem++)
		for (size_t i = 0; i < sizeof inners / sizeof inners[0]; i++) {
			use(inners[i], sem, 3);
			check_mutex();
		}
}

static void test_try_timed_all(void **state)
{
	for (unsigned sem = 0; sem < 2; sem++)
		for (size_t i = 0; i < sizeof inners / sizeof inners[0]; i++) {
			use(inners[i], sem, 2);
			check_try_timed();
		}
}

static void test_mutex_modes(void **state)
{
	mx_iters = 3000;
	use("capacitor:tts", LS_CAP_SEM_TWA, 2);
	atomic_store(&ls_capacitor_mode, LS_CAP_MODE_CONTENDED);
	check_mutex();
	use("capacitor:mcs", LS_CAP_SEM_TICKET, 2);
	atomic_store(&ls_capacitor_skip, 500);
	check_mutex();
	use("capacitor:tts", LS_CAP_SEM_TWA, 1);
	check_mutex();
}

/* -- bounded bypass, controlled arrivals.  B = 4, unfair inner lock.
 * The holder holds; 11 threads arrive one at a time (each has its ticket
 * before the next starts): 3 join the holder's platoon and spin/park on
 * the inner lock, the rest wait in the semaphore.  On release, no thread
 * may be overtaken by more than B-1 threads that arrived after it. */

#define ARRIVALS 11
static int arrival_of[ARRIVALS];

static void *arriver(void *arg)
{
	int i = (int)(long)arg;
	assert_int_equal(ops->lock(st), 0);
	order[atomic_fetch_add(&norder, 1)] = i;
	ops->unlock(st);
	return NULL;
}

static int max_overtakes(const int *ord, int n)
{
	int worst = 0;
	for (int p = 0; p < n; p++) {
		int k = 0;
		for (int q = 0; q < p; q++)
			k += ord[q] > ord[p];
		worst = k > worst ? k : worst;
	}
	return worst;
}

static void controlled(unsigned sem, const char *name)
{
	const unsigned b = 4;
	pthread_t t[ARRIVALS];
	use(name, sem, b);
	reset();
	atomic_store(&norder, 0);
	assert_int_equal(ops->lock(st), 0);
	for (int i = 0; i < ARRIVALS; i++) {
		uint64_t s0 = sig(st);
		t[i] = spawn(arriver, i);
		await_change(s0);
		arrival_of[i] = (int)tickets(st) - 1;
	}
	/* Platoon 0 = holder + 3 arrivals; the rest are closed out. */
	assert_int_equal(base(st), 0);
	ops->unlock(st);
	for (int i = 0; i < ARRIVALS; i++)
		join(t[i]);
	assert_int_equal(atomic_load(&norder), ARRIVALS);
	assert_true(max_overtakes(order, ARRIVALS) <= (int)b - 1);
	/* Platoons 1..: everyone of platoon k acquired before anyone of k+1. */
	for (int p = 1; p < ARRIVALS; p++)
		assert_true((order[p] + 1) / (int)b >= (order[p - 1] + 1) / (int)b);
	assert_int_equal(tickets(st), ARRIVALS + 1);
	assert_false(ops->is_locked(st));
}

static void test_bypass_controlled(void **state)
{
	controlled(LS_CAP_SEM_TWA, "capacitor:tts");
	controlled(LS_CAP_SEM_TICKET, "capacitor:tts");
	controlled(LS_CAP_SEM_TWA, "capacitor:queued");
}

/* -- bounded bypass under stress: the trace hook gives each arrival its
 * ticket; the critical section logs tickets in acquisition order. */

#define STRESS_THREADS 6
#define STRESS_ITERS 3000
static __thread uint32_t my_ticket;
static uint32_t log_[STRESS_THREADS * STRESS_ITERS];
static int nlog;

static void on_arrive(const void *cap, uint32_t ticket)
{
	my_ticket = ticket;
}

static void *stress_worker(void *arg)
{
	while (!atomic_load(&go))
		sched_yield();
	for (int i = 0; i < STRESS_ITERS; i++) {
		assert_int_equal(ops->lock(st), 0);
		log_[nlog++] = my_ticket;
		ops->unlock(st);
	}
	return NULL;
}

/* Fenwick tree over tickets: overtakes of log_[p] = earlier entries with
 * a larger ticket. */
static int bit_[STRESS_THREADS * STRESS_ITERS + 2];

static int stress_max_overtakes(void)
{
	int worst = 0, n = nlog;
	memset(bit_, 0, sizeof bit_);
	for (int p = 0; p < n; p++) {
		int le = 0;
		for (int i = (int)log_[p] + 1; i > 0; i -= i & -i)
			le += bit_[i];
		worst = p - le > worst ? p - le : worst;
		for (int i = (int)log_[p] + 1; i <= n + 1; i += i & -i)
			bit_[i]++;
	}
	return worst;
}

static void stress(unsigned sem, const char *name, unsigned b)
{
	pthread_t t[STRESS_THREADS];
	use(name, sem, b);
	reset();
	nlog = 0;
	atomic_store(&go, 0);
	atomic_store(&ls_capacitor_trace, on_arrive);
	for (long i = 0; i < STRESS_THREADS; i++)
		t[i] = spawn(stress_worker, i);
	atomic_store(&go, 1);
	for (int i = 0; i < STRESS_THREADS; i++)
		join(t[i]);
	atomic_store(&ls_capacitor_trace, NULL);
	assert_int_equal(nlog, STRESS_THREADS * STRESS_ITERS);
	int w = stress_max_overtakes();
	assert_true(w <= (int)b - 1);
	assert_false(ops->is_locked(st));
}

static void test_bypass_stress(void **state)
{
	stress(LS_CAP_SEM_TWA, "capacitor:tts", 3);
	stress(LS_CAP_SEM_TICKET, "capacitor:tts", 3);
	stress(LS_CAP_SEM_TWA, "capacitor:futex", 2);
}

/* -- trylock: admitted by the semaphore, inner lock busy: the credit is
 * given back (the platoon still completes). */
static void *try_busy(void *arg)
{
	return (void *)(long)ops->trylock(st);
}

static void test_trylock_gives_back(void **state)
{
	use("capacitor:tts", LS_CAP_SEM_TWA, 2);
	reset();
	assert_int_equal(ops->lock(st), 0);
	assert_int_equal(join(spawn(try_busy, 0)), EBUSY);
	assert_int_equal(tickets(st), 2);
	assert_int_equal(departs(st), 1);
	ops->unlock(st);
	assert_int_equal(base(st), 2);
	assert_int_equal(departs(st), 0);
	/* B = 1: a closed semaphore refuses trylock before the inner lock. */
	use("capacitor:tts", LS_CAP_SEM_TWA, 1);
	reset();
	assert_int_equal(ops->lock(st), 0);
	assert_int_equal(join(spawn(try_busy, 0)), EBUSY);
	assert_int_equal(tickets(st), 1);
	ops->unlock(st);
}

/* -- timeouts while closed out in the semaphore (B = 1): the last ticket
 * is taken back; a middle one departs on credit; nobody is lost. */
static void test_timeout_in_semaphore(void **state)
{
	for (unsigned sem = 0; sem < 2; sem++) {
		use("capacitor:mcs", sem, 1);
		check_fifo(3, 2); /* tail: taken back */
		/* holder 0, waiters 1..3, 3 taken back, check_fifo's trylock 3 */
		assert_int_equal(tickets(st), 4);
		check_fifo(3, 1); /* middle: on credit */
		check_fifo(4, 0);
	}
}

static void test_fifo_mcs(void **state)
{
	/* FIFO inner + B = 1: the composite is FIFO too. */
	use("capacitor:mcs", LS_CAP_SEM_TWA, 1);
	check_fifo(FIFO_N, -1);
}

static void test_fork(void **state)
{
	use("capacitor:tts", LS_CAP_SEM_TWA, 1);
	check_fork(2);
	use("capacitor:mcs", LS_CAP_SEM_TICKET, 2);
	check_fork(3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_select, restore),
		cmocka_unit_test_teardown(test_try_timed_all, restore),
		cmocka_unit_test_teardown(test_mutex_all, restore),
		cmocka_unit_test_teardown(test_mutex_modes, restore),
		cmocka_unit_test_teardown(test_bypass_controlled, restore),
		cmocka_unit_test_teardown(test_bypass_stress, restore),
		cmocka_unit_test_teardown(test_trylock_gives_back, restore),
		cmocka_unit_test_teardown(test_timeout_in_semaphore, restore),
		cmocka_unit_test_teardown(test_fifo_mcs, restore),
		cmocka_unit_test_teardown(test_fork, restore),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
