/*
 * order.c - the lock-order check and the hang report (issue 46,
 * docs/deadlock.md) on small programs: `order CASE`, one case a run, each
 * with locks and functions of its own names, which the reports must name.
 * tests/deadlock/run.sh runs them under LOCKSWAP_DEADLOCK and reads
 * stderr; the program checks only that its locks still work (its own
 * "ok -" lines) and never hangs but where the case is a hang.
 *
 * Cases whose report is expected (the threads run one after another, so
 * nothing really waits): two, three, rwlock, c11, timed, gate_broken.
 * Cases that must not be reported: consistent, backoff, reuse, recursive,
 * fork, gate, condwait.  Hangs: deadlock (two threads, for ever, until
 * main ends the process), self (a thread locks a normal mutex twice),
 * sleeper (a holder asleep, a waiter: a long wait, which then ends);
 * signal (the same, with a statistics dump asked for meanwhile); bound N
 * (N locks each taken under one: more lock orders than the graph keeps).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

#include "../preload/check.h"

#define NOINLINE __attribute__((noinline))

/* Run fn in a thread of its own and wait for it: one after another. */
static void run(void *(*fn)(void *))
{
	pthread_t t;
	if (pthread_create(&t, NULL, fn, NULL) != 0) {
		CHECK(0, "pthread_create");
		exit(1);
	}
	pthread_join(t, NULL);
}

/* ---- reported ---- */

static pthread_mutex_t two_a = PTHREAD_MUTEX_INITIALIZER, two_b = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void *two_ab(void *x)
{
	pthread_mutex_lock(&two_a);
	pthread_mutex_lock(&two_b);
	pthread_mutex_unlock(&two_b);
	pthread_mutex_unlock(&two_a);
	return x;
}
static NOINLINE void *two_ba(void *x)
{
	pthread_mutex_lock(&two_b);
	pthread_mutex_lock(&two_a);
	pthread_mutex_unlock(&two_a);
	pthread_mutex_unlock(&two_b);
	return x;
}

static pthread_mutex_t three_a = PTHREAD_MUTEX_INITIALIZER, three_b = PTHREAD_MUTEX_INITIALIZER,
                       three_c = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void nest(pthread_mutex_t *outer, pthread_mutex_t *inner)
{
	pthread_mutex_lock(outer);
	pthread_mutex_lock(inner);
	pthread_mutex_unlock(inner);
	pthread_mutex_unlock(outer);
}
static NOINLINE void *three_ab(void *x) { nest(&three_a, &three_b); return x; }
static NOINLINE void *three_bc(void *x) { nest(&three_b, &three_c); return x; }
static NOINLINE void *three_ca(void *x) { nest(&three_c, &three_a); return x; }

static pthread_rwlock_t rw_r = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t rw_m = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void *rw_write_then_lock(void *x)
{
	pthread_rwlock_wrlock(&rw_r);
	pthread_mutex_lock(&rw_m);
	pthread_mutex_unlock(&rw_m);
	pthread_rwlock_unlock(&rw_r);
	return x;
}
static NOINLINE void *rw_lock_then_read(void *x)
{
	pthread_mutex_lock(&rw_m);
	pthread_rwlock_rdlock(&rw_r);
	pthread_rwlock_unlock(&rw_r);
	pthread_mutex_unlock(&rw_m);
	return x;
}

static mtx_t c11_a, c11_b;
static NOINLINE void *c11_ab(void *x)
{
	mtx_lock(&c11_a);
	mtx_lock(&c11_b);
	mtx_unlock(&c11_b);
	mtx_unlock(&c11_a);
	return x;
}
static NOINLINE void *c11_ba(void *x)
{
	mtx_lock(&c11_b);
	mtx_lock(&c11_a);
	mtx_unlock(&c11_a);
	mtx_unlock(&c11_b);
	return x;
}

static pthread_mutex_t timed_a = PTHREAD_MUTEX_INITIALIZER, timed_b = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void timed_nest(pthread_mutex_t *outer, pthread_mutex_t *inner)
{
	pthread_mutex_lock(outer);
	struct timespec t = deadline_in(CLOCK_REALTIME, 1000);
	CHECK_ERR(pthread_mutex_timedlock(inner, &t), 0, "timedlock of a free mutex");
	pthread_mutex_unlock(inner);
	pthread_mutex_unlock(outer);
}
static NOINLINE void *timed_ab(void *x) { timed_nest(&timed_a, &timed_b); return x; }
static NOINLINE void *timed_ba(void *x) { timed_nest(&timed_b, &timed_a); return x; }

/* ---- gates: a cycle taken under one lock cannot deadlock ---- */

static pthread_mutex_t gate_g = PTHREAD_MUTEX_INITIALIZER, gate_a = PTHREAD_MUTEX_INITIALIZER,
                       gate_b = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void *gated_ab(void *x)
{
	pthread_mutex_lock(&gate_g);
	nest(&gate_a, &gate_b);
	pthread_mutex_unlock(&gate_g);
	return x;
}
static NOINLINE void *gated_ba(void *x)
{
	pthread_mutex_lock(&gate_g);
	nest(&gate_b, &gate_a);
	pthread_mutex_unlock(&gate_g);
	return x;
}
static NOINLINE void *ungated_ba(void *x)
{
	nest(&gate_b, &gate_a);
	return x;
}

/* ---- not reported ---- */

static pthread_mutex_t con_a = PTHREAD_MUTEX_INITIALIZER, con_b = PTHREAD_MUTEX_INITIALIZER,
                       con_c = PTHREAD_MUTEX_INITIALIZER;
static long con_count;
static NOINLINE void *consistent(void *x)
{
	for (int i = 0; i < 2000; i++) {
		pthread_mutex_lock(&con_a);
		pthread_mutex_lock(&con_b);
		pthread_mutex_lock(&con_c);
		con_count++;
		pthread_mutex_unlock(&con_c);
		pthread_mutex_unlock(&con_b);
		pthread_mutex_unlock(&con_a);
	}
	return x;
}

/* std::lock's way: lock one, try the other, back off and swap on failure. */
static pthread_mutex_t bo_a = PTHREAD_MUTEX_INITIALIZER, bo_b = PTHREAD_MUTEX_INITIALIZER;
static long bo_count;
static NOINLINE void lock_both(pthread_mutex_t *first, pthread_mutex_t *second)
{
	for (;;) {
		pthread_mutex_lock(first);
		if (pthread_mutex_trylock(second) == 0)
			return;
		pthread_mutex_unlock(first);
		sched_yield();
		pthread_mutex_t *t = first;
		first = second;
		second = t;
	}
}
static NOINLINE void *backoff_ab(void *x)
{
	for (int i = 0; i < 2000; i++) {
		lock_both(&bo_a, &bo_b);
		bo_count++;
		pthread_mutex_unlock(&bo_a);
		pthread_mutex_unlock(&bo_b);
	}
	return x;
}
static NOINLINE void *backoff_ba(void *x)
{
	for (int i = 0; i < 2000; i++) {
		lock_both(&bo_b, &bo_a);
		bo_count++;
		pthread_mutex_unlock(&bo_b);
		pthread_mutex_unlock(&bo_a);
	}
	return x;
}

/* A mutex destroyed, its memory reused for a new one: a new lock. */
static _Alignas(64) unsigned char reuse_mem[sizeof(pthread_mutex_t)];
static pthread_mutex_t *reuse_m = (pthread_mutex_t *)(void *)reuse_mem;
static pthread_mutex_t reuse_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *reuse_heap;
static NOINLINE void *reuse_first(void *x)
{
	nest(reuse_m, &reuse_b);
	nest(reuse_heap, &reuse_b);
	return x;
}
static NOINLINE void *reuse_second(void *x)
{
	nest(&reuse_b, reuse_m);
	nest(&reuse_b, reuse_heap);
	return x;
}

static pthread_mutex_t rec_r, rec_x = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void *recursive_relock(void *x)
{
	CHECK_ERR(pthread_mutex_lock(&rec_r), 0, "recursive lock");
	pthread_mutex_lock(&rec_x);
	CHECK_ERR(pthread_mutex_lock(&rec_r), 0, "recursive relock while holding another mutex");
	pthread_mutex_unlock(&rec_r);
	pthread_mutex_unlock(&rec_x);
	pthread_mutex_unlock(&rec_r);
	return x;
}

/* A lock held across fork.  The parent takes B then A; then, holding A,
 * it forks.  The child, a process of one thread, takes B while it holds
 * the inherited A (A then B: its own order, not the parent's), and
 * releases A.  A grandchild, forked while the child holds A again, sets A
 * up anew as an atfork child handler would (A is then a new, free lock,
 * not held), takes B, and lets a thread of its own take B then A.  No
 * report anywhere: each process's lock order is its own. */
static pthread_mutex_t fork_a = PTHREAD_MUTEX_INITIALIZER, fork_b = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void *fork_ba(void *x)
{
	nest(&fork_b, &fork_a);
	return x;
}
static int reaped(pid_t pid)
{
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
static void fork_case(void)
{
	run(fork_ba);
	pthread_mutex_lock(&fork_a);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_mutex_lock(&fork_b);
		pthread_mutex_unlock(&fork_b);
		pthread_mutex_unlock(&fork_a);
		pthread_mutex_lock(&fork_a);
		pid_t inner = fork();
		if (inner == 0) {
			pthread_mutex_init(&fork_a, NULL);
			pthread_mutex_lock(&fork_b);
			pthread_mutex_unlock(&fork_b);
			run(fork_ba);
			_exit(0);
		}
		int ok = reaped(inner);
		pthread_mutex_unlock(&fork_a);
		_exit(ok ? 0 : 1);
	}
	pthread_mutex_unlock(&fork_a);
	CHECK(reaped(pid), "the fork children exited cleanly");
}

/* A condvar wait does not hold its mutex: no long wait, no holder. */
static pthread_mutex_t cw_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cw_c = PTHREAD_COND_INITIALIZER;
static NOINLINE void *cond_waiter(void *x)
{
	pthread_mutex_lock(&cw_m);
	struct timespec t = deadline_in(CLOCK_REALTIME, 900);
	int r;
	while ((r = pthread_cond_timedwait(&cw_c, &cw_m, &t)) == 0)
		;
	CHECK_ERR(r, ETIMEDOUT, "condvar wait times out");
	pthread_mutex_unlock(&cw_m);
	return x;
}
static NOINLINE void *cond_locker(void *x)
{
	usleep(200 * 1000);
	/* Free while the other thread waits on the condvar. */
	CHECK_ERR(pthread_mutex_trylock(&cw_m), 0, "the condvar's mutex is free during the wait");
	pthread_mutex_unlock(&cw_m);
	return x;
}

/* ---- hangs ---- */

static pthread_mutex_t dl_a = PTHREAD_MUTEX_INITIALIZER, dl_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t dl_both;
static NOINLINE void *dead_ab(void *x)
{
	pthread_mutex_lock(&dl_a);
	pthread_barrier_wait(&dl_both);
	pthread_mutex_lock(&dl_b);
	return x;
}
static NOINLINE void *dead_ba(void *x)
{
	pthread_mutex_lock(&dl_b);
	pthread_barrier_wait(&dl_both);
	pthread_mutex_lock(&dl_a);
	return x;
}

static pthread_mutex_t self_m = PTHREAD_MUTEX_INITIALIZER;
static NOINLINE void *self_relock(void *x)
{
	pthread_mutex_lock(&self_m);
	pthread_mutex_lock(&self_m);
	return x;
}

/* Longer than tests/deadlock/run.sh's LOCKSWAP_HANG_MS (250), shorter
 * than the 1000 ms of ces's default (its own case sleeps longer). */
static long SLEEP_MS = 700;
static pthread_mutex_t sl_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t sl_held;
static NOINLINE void *sleep_holder(void *x)
{
	pthread_mutex_lock(&sl_m);
	pthread_barrier_wait(&sl_held);
	usleep(SLEEP_MS * 1000);
	pthread_mutex_unlock(&sl_m);
	return x;
}
static NOINLINE void *sleep_waiter(void *x)
{
	pthread_barrier_wait(&sl_held);
	pthread_mutex_lock(&sl_m);
	pthread_mutex_unlock(&sl_m);
	return x;
}

/* signal: the holder asks for a statistics dump (LOCKSWAP_STATS_SIGNAL=USR2)
 * while the waiter waits. */
static NOINLINE void *signal_holder(void *x)
{
	pthread_mutex_lock(&sl_m);
	pthread_barrier_wait(&sl_held);
	usleep(300 * 1000);
	kill(getpid(), SIGUSR2);
	usleep(500 * 1000);
	pthread_mutex_unlock(&sl_m);
	return x;
}

/* bound: n locks taken each under one: n lock-order edges. */
static pthread_mutex_t bound_outer = PTHREAD_MUTEX_INITIALIZER;
static void bound_case(long n)
{
	pthread_mutex_t *m = calloc((size_t)n, sizeof *m);
	CHECK(m != NULL, "calloc");
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&bound_outer);
		pthread_mutex_lock(&m[i]);
		pthread_mutex_unlock(&m[i]);
		pthread_mutex_unlock(&bound_outer);
	}
	free(m);
}

static void two_threads(void *(*f)(void *), void *(*g)(void *))
{
	pthread_t a, b;
	pthread_create(&a, NULL, f, NULL);
	pthread_create(&b, NULL, g, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	if (!strcmp(c, "two")) {
		run(two_ab);
		run(two_ba);
	} else if (!strcmp(c, "three")) {
		run(three_ab);
		run(three_bc);
		run(three_ca);
	} else if (!strcmp(c, "rwlock")) {
		run(rw_write_then_lock);
		run(rw_lock_then_read);
	} else if (!strcmp(c, "c11")) {
		CHECK_EQ(mtx_init(&c11_a, mtx_plain), thrd_success, "mtx_init");
		CHECK_EQ(mtx_init(&c11_b, mtx_plain), thrd_success, "mtx_init");
		run(c11_ab);
		run(c11_ba);
	} else if (!strcmp(c, "timed")) {
		run(timed_ab);
		run(timed_ba);
	} else if (!strcmp(c, "gate")) {
		run(gated_ab);
		run(gated_ba);
		two_threads(gated_ab, gated_ba);
	} else if (!strcmp(c, "gate_broken")) {
		run(gated_ab);
		run(gated_ba);
		run(ungated_ba);
	} else if (!strcmp(c, "consistent")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, consistent, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		CHECK_EQ(con_count, 8000, "mutual exclusion in a consistent order");
	} else if (!strcmp(c, "backoff")) {
		two_threads(backoff_ab, backoff_ba);
		CHECK_EQ(bo_count, 4000, "mutual exclusion with try and back-off");
	} else if (!strcmp(c, "reuse")) {
		pthread_mutex_init(reuse_m, NULL);
		reuse_heap = malloc(sizeof *reuse_heap);
		pthread_mutex_init(reuse_heap, NULL);
		run(reuse_first);
		pthread_mutex_destroy(reuse_m);
		pthread_mutex_init(reuse_m, NULL);
		void *old = reuse_heap;
		pthread_mutex_destroy(reuse_heap);
		free(reuse_heap);
		reuse_heap = malloc(sizeof *reuse_heap);
		pthread_mutex_init(reuse_heap, NULL);
		printf("# the heap mutex's memory %s reused\n", (void *)reuse_heap == old ? "was" : "was not");
		run(reuse_second);
		pthread_mutex_destroy(reuse_heap);
		free(reuse_heap);
	} else if (!strcmp(c, "recursive")) {
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&rec_r, &a);
		run(recursive_relock);
		run(recursive_relock);
	} else if (!strcmp(c, "fork")) {
		fork_case();
	} else if (!strcmp(c, "condwait")) {
		two_threads(cond_waiter, cond_locker);
	} else if (!strcmp(c, "deadlock") || !strcmp(c, "self")) {
		/* The threads hang for ever; main ends the process after MS
		 * milliseconds (run it under `timeout` all the same). */
		pthread_t t;
		if (!strcmp(c, "deadlock")) {
			pthread_barrier_init(&dl_both, NULL, 2);
			pthread_create(&t, NULL, dead_ab, NULL);
			pthread_create(&t, NULL, dead_ba, NULL);
		} else {
			pthread_create(&t, NULL, self_relock, NULL);
		}
		usleep((useconds_t)(argc > 2 ? atol(argv[2]) : 1500) * 1000);
		printf("# still hung after %s ms: exits\n", argc > 2 ? argv[2] : "1500");
		fflush(stdout);
		_exit(0);
	} else if (!strcmp(c, "signal")) {
		pthread_barrier_init(&sl_held, NULL, 2);
		two_threads(signal_holder, sleep_waiter);
	} else if (!strcmp(c, "bound")) {
		bound_case(argc > 2 ? atol(argv[2]) : 70000);
	} else if (!strcmp(c, "sleeper")) {
		if (argc > 2)
			SLEEP_MS = atol(argv[2]);
		pthread_barrier_init(&sl_held, NULL, 2);
		two_threads(sleep_holder, sleep_waiter);
		CHECK(1, "the long wait ended");
	} else {
		fprintf(stderr, "order: unknown case '%s'\n", c);
		return 2;
	}
	CHECK(1, c);
	return check_finish();
}
