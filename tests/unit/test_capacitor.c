/*
 * test_capacitor.c - capacitor around every inner lock (core/wrap/capacitor.h,
 * backends/capacitor.c): mutual exclusion, both semaphores, both modes,
 * fractional bypass, timeouts in the semaphore, fork, and the B-1 bounded
 * bypass property with controlled arrivals and under stress (trace hook).
 * Behaviour only, never timing.
 */
#include "lock_checks.h"

#include "../../core/runtime/twa.h"
#include "../../core/wrap/capacitor.h"

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
	ls_wait_set_cpus(0); /* measure again */
	return 0;
}

#define WRAPPER "capacitor"
#include "inner_names.h"

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
 * ticket; the critical section logs tickets in acquisition order, and
 * checks that its ticket is admitted (t < base + B) while it holds the
 * lock: the semaphore's own invariant, which fails at the first thread
 * let in early, whatever order the inner lock then picks. */

#define STRESS_THREADS 6
#define STRESS_ITERS 3000
static __thread uint32_t my_ticket;
static uint32_t log_[STRESS_THREADS * STRESS_ITERS];
static int nlog, unadmitted; /* plain: only critical sections touch them */
static unsigned stress_b;

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
		unadmitted += !ls_capacitor_admitted(word_of(st), (uint16_t)my_ticket, stress_b);
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
	nlog = unadmitted = 0;
	stress_b = b;
	atomic_store(&go, 0);
	atomic_store(&ls_capacitor_trace, on_arrive);
	for (long i = 0; i < STRESS_THREADS; i++)
		t[i] = spawn(stress_worker, i);
	atomic_store(&go, 1);
	for (int i = 0; i < STRESS_THREADS; i++)
		join(t[i]);
	atomic_store(&ls_capacitor_trace, NULL);
	assert_int_equal(nlog, STRESS_THREADS * STRESS_ITERS);
	assert_int_equal(unadmitted, 0);
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

/* -- no more threads inside than CPUs: waiters spin outside the waiting
 * policy's spinner count (core/wrap/capacitor.c, spin_own_cpu).  Pretending to
 * have 64 CPUs puts every waiter of these runs in that case; the B-1 bound
 * must hold there too (admission is decided by the word alone). */
static void test_bypass_own_cpu(void **state)
{
	ls_wait_set_cpus(64);
	controlled(LS_CAP_SEM_TWA, "capacitor:tts");
	stress(LS_CAP_SEM_TWA, "capacitor:tts", 3);
	stress(LS_CAP_SEM_TICKET, "capacitor:futex", 2);
	stress(LS_CAP_SEM_TWA, "capacitor:mcs", 4);
}

/* -- the spin of a waiter with a CPU of its own is bounded: while its
 * platoon does not move (the holder holds on), it parks, and the platoon
 * change wakes it.  B = 1: ticket 1 waits for the holder's departure. */
static void *lock_unlock(void *arg)
{
	assert_int_equal(ops->lock(st), 0);
	ops->unlock(st);
	return NULL;
}

static bool parked(unsigned sem)
{
	if (sem == LS_CAP_SEM_TICKET)
		return (word_of(st) & LS_CAP_WAITERS) != 0;
	return atomic_load(&ls_twa_bucket(st, 1)->parked) != 0;
}

static void test_stuck_waiter_parks(void **state)
{
	ls_wait_set_cpus(64);
	for (unsigned sem = 0; sem < 2; sem++) {
		use("capacitor:tts", sem, 1);
		reset();
		assert_int_equal(ops->lock(st), 0);
		pthread_t t = spawn_queued(lock_unlock, 0); /* has ticket 1 */
		for (int i = 0; i < 100000 && !parked(sem); i++)
			usleep(100); /* 10 s at most: a spin without end fails */
		assert_true(parked(sem));
		ops->unlock(st);
		join(t);
		assert_int_equal(tickets(st), 2);
		assert_int_equal(base(st), 2);
		assert_false(ops->is_locked(st));
	}
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
		cmocka_unit_test_teardown(test_bypass_own_cpu, restore),
		cmocka_unit_test_teardown(test_stuck_waiter_parks, restore),
		cmocka_unit_test_teardown(test_trylock_gives_back, restore),
		cmocka_unit_test_teardown(test_timeout_in_semaphore, restore),
		cmocka_unit_test_teardown(test_fifo_mcs, restore),
		cmocka_unit_test_teardown(test_fork, restore),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
