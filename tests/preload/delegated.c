/*
 * delegated.c - what a critical section sees when the ces backend runs it
 * on the releasing thread (docs/delegation.md, "What a delegated section
 * sees differently").  Every scenario parks its waiters behind a lock the
 * main thread holds, so that its unlock runs their sections as a batch.
 *
 * Under any backend the sections must see their own thread's TLS, errno,
 * pthread_self() and floating-point control state; under ces the checks
 * also require that sections did run delegated (on another kernel thread)
 * and that whatever must block, fork, exit or be cancelled went home first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xmmintrin.h>

#include "check.h"
#include "../../core/delegation/ces.h" /* LS_CES_BATCH */

#define WAITERS 6

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static atomic_int ready;
static int cond_flag;
static bool is_ces;

static __thread int my_id = -1;
static __thread volatile int body_done;

static pid_t tid(void) { return (pid_t)syscall(SYS_gettid); }

static uint16_t x87_cw(void)
{
	uint16_t cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	return cw;
}

struct seen {
	pid_t home, in, after_block;
	bool tls, self, err, err_after, mxcsr, x87;
	int sig_tid_ok, sig_tls_ok, sig_after_body;
};
static struct seen seen[WAITERS];

/* Wait until every waiter is about to lock, then long enough for each to
 * spin out and park (the spin budget is at most 200 us). */
static void wait_parked(int n)
{
	while (atomic_load(&ready) < n)
		usleep(1000);
	usleep(30000);
}

/* Rounding mode `mode` (0-3) in both MXCSR and the x87 control word:
 * each waiter runs with its own, so a section that ran with another
 * thread's control state would show it. */
static void set_rounding(unsigned mode)
{
	_mm_setcsr((_mm_getcsr() & ~0x6000u) | (mode << 13));
	uint16_t cw = (uint16_t)((x87_cw() & ~0xC00u) | (mode << 10));
	__asm__ volatile("fldcw %0" : : "m"(cw));
}

/* ---- context: TLS, errno, pthread_self, FP control ------------------- */

static void *context_waiter(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct seen *s = &seen[id];
	my_id = id;
	set_rounding((unsigned)id % 4);
	unsigned mx = _mm_getcsr();
	uint16_t cw = x87_cw();
	pthread_t self = pthread_self();
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	errno = 1000 + id;
	pthread_mutex_lock(&m);
	s->err = errno == 1000 + id;
	s->in = tid();
	s->tls = my_id == id;
	s->self = pthread_equal(pthread_self(), self);
	s->mxcsr = _mm_getcsr() == mx;
	s->x87 = x87_cw() == cw;
	errno = 3000 + id;
	pthread_mutex_unlock(&m);
	s->err_after = errno == 3000 + id;
	return NULL;
}

static int run_waiters(void *(*fn)(void *), int n, pthread_t *t)
{
	atomic_store(&ready, 0);
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) != 0)
			return -1;
	wait_parked(n);
	return 0;
}

static int count_delegated(int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += seen[i].in != seen[i].home;
	return k;
}

static void context(void)
{
	pthread_t t[WAITERS];
	pthread_mutex_lock(&m);
	run_waiters(context_waiter, WAITERS, t);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < WAITERS; i++)
		pthread_join(t[i], NULL);
	int tls = 0, self = 0, err = 0, err_after = 0, mx = 0, x87 = 0;
	for (int i = 0; i < WAITERS; i++) {
		tls += seen[i].tls, self += seen[i].self, err += seen[i].err;
		err_after += seen[i].err_after, mx += seen[i].mxcsr, x87 += seen[i].x87;
	}
	CHECK_EQ(tls, WAITERS, "context: __thread variables are the waiter's in its section");
	CHECK_EQ(self, WAITERS, "context: pthread_self() is the waiter's in its section");
	CHECK_EQ(err, WAITERS, "context: errno set before lock is seen in the section");
	CHECK_EQ(err_after, WAITERS, "context: errno set in the section is kept after unlock");
	CHECK_EQ(mx, WAITERS, "context: MXCSR (SSE rounding) is the waiter's in its section");
	CHECK_EQ(x87, WAITERS, "context: x87 control word is the waiter's in its section");
	if (is_ces)
		CHECK(count_delegated(WAITERS) >= 1, "context: sections ran on the releasing thread");
}

/* ---- the thread CPU clock ------------------------------------------------ */

static double thread_cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_home_ms; /* the waiter's own CPU time across its lock..unlock */

static void *cpu_waiter(void *arg)
{
	struct seen *s = &seen[0];
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	double before = thread_cpu_ms();
	pthread_mutex_lock(&m);
	s->in = tid();
	double start = thread_cpu_ms(); /* the clock of whichever thread runs this */
	while (thread_cpu_ms() - start < 30)
		;
	pthread_mutex_unlock(&m);
	cpu_home_ms = thread_cpu_ms() - before;
	return NULL;
}

static void cputime(void)
{
	pthread_t t;
	pthread_mutex_lock(&m);
	run_waiters(cpu_waiter, 1, &t);
	double before = thread_cpu_ms();
	pthread_mutex_unlock(&m); /* under ces: runs the 30 ms section here */
	double releaser_ms = thread_cpu_ms() - before;
	pthread_join(t, NULL);
	if (seen[0].in != seen[0].home) {
		CHECK(cpu_home_ms < 15 && releaser_ms >= 25,
		      "cputime: a delegated section's CPU time is charged to the releasing thread");
	} else {
		CHECK(cpu_home_ms >= 25, "cputime: a section run at home is charged to its own thread");
	}
	if (is_ces)
		CHECK(seen[0].in != seen[0].home, "cputime: the section ran delegated");
}

/* ---- a signal mask changed inside a delegated section ------------------- */

static int mask_home_blocked, mask_releaser_blocked;

static void *mask_waiter(void *arg)
{
	struct seen *s = &seen[0];
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&m);
	s->in = tid();
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL); /* the waiter's own mask */
	pthread_mutex_unlock(&m);
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	mask_home_blocked = sigismember(&now, SIGUSR2);
	return NULL;
}

static void masks(void)
{
	pthread_t t;
	pthread_mutex_lock(&m);
	run_waiters(mask_waiter, 1, &t);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	mask_releaser_blocked = sigismember(&now, SIGUSR2);
	CHECK_EQ(mask_home_blocked, 1, "sigmask: a mask changed in a section is the waiter's own");
	CHECK_EQ(mask_releaser_blocked, 0, "sigmask: the releasing thread's mask is unchanged");
	if (is_ces)
		CHECK(seen[0].in != seen[0].home, "sigmask: the section started delegated");
}

/* ---- a thread's own cancellation state, past a full batch ------------- */

#define CROWD (LS_CES_BATCH + 4) /* more than one batch: some are granted */

static pid_t crowd_home[CROWD], crowd_in[CROWD];
static int crowd_state[CROWD];

static void *crowd_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	crowd_home[i] = tid();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&m);
	crowd_in[i] = tid();
	pthread_mutex_unlock(&m);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &crowd_state[i]);
	return NULL;
}

static void cancelstate(void)
{
	pthread_t t[CROWD];
	pthread_mutex_lock(&m);
	atomic_store(&ready, 0);
	for (int i = 0; i < CROWD; i++)
		pthread_create(&t[i], NULL, crowd_waiter, (void *)(intptr_t)i);
	wait_parked(CROWD);
	pthread_mutex_unlock(&m);
	int kept = 0, at_home = 0, away = 0;
	for (int i = 0; i < CROWD; i++) {
		pthread_join(t[i], NULL);
		kept += crowd_state[i] == PTHREAD_CANCEL_DISABLE;
		at_home += crowd_in[i] == crowd_home[i];
		away += crowd_in[i] != crowd_home[i];
	}
	CHECK_EQ(kept, CROWD, "cancelstate: a thread's own disabled cancellation survives its lock call, delegated or not");
	if (is_ces) {
		CHECK(away >= 1, "cancelstate: sections ran delegated");
		CHECK(at_home >= 1, "cancelstate: past a full batch, a waiter is handed the lock itself");
	}
}

/* ---- a contended second lock inside a delegated section ---------------- */

static void *nested_waiter(void *arg)
{
	struct seen *s = &seen[(intptr_t)arg];
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&m);
	s->in = tid();
	/* The first waiter finds m2 held by main: it must wait at home.  The
	 * later ones find it free and may well go on delegated. */
	s->err = pthread_mutex_trylock(&m2) == EBUSY;
	if (s->err)
		pthread_mutex_lock(&m2);
	s->after_block = 1;
	pthread_mutex_unlock(&m2);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void nested(void)
{
	pthread_t t[3];
	pthread_mutex_lock(&m);
	pthread_mutex_lock(&m2);
	run_waiters(nested_waiter, 3, t);
	pthread_mutex_unlock(&m); /* runs the first section, which comes back */
	usleep(10000);
	pthread_mutex_unlock(&m2);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* Had the first section waited for m2 on the releasing thread (main,
	 * which holds m2), main would never have come back from its unlock
	 * of m to release m2: the run would hang.  Once m2 is free, whoever
	 * releases it may run the rest of the section delegated again. */
	int contended = 0, done = 0;
	for (int i = 0; i < 3; i++) {
		contended += seen[i].err;
		done += seen[i].after_block;
	}
	CHECK(contended >= 1, "nested: a section found the second lock held");
	CHECK_EQ(done, 3, "nested: a section waits for a contended second lock away from the releaser");
	if (is_ces)
		CHECK(count_delegated(3) >= 1, "nested: the first section started delegated");
}

/* ---- a condvar wait inside a delegated section ------------------------- */

static void *cond_waiter(void *arg)
{
	struct seen *s = &seen[(intptr_t)arg];
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&m);
	s->in = tid();
	while (!cond_flag)
		pthread_cond_wait(&c, &m);
	s->err = 1;
	pthread_mutex_unlock(&m);
	return NULL;
}

static void condvar(void)
{
	pthread_t t[3];
	cond_flag = 0;
	pthread_mutex_lock(&m);
	run_waiters(cond_waiter, 3, t);
	pthread_mutex_unlock(&m);
	usleep(20000);
	pthread_mutex_lock(&m);
	cond_flag = 1;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* Had a wait slept on the releasing thread (main), main would never
	 * have come back from its unlock to set the flag: the run would hang. */
	int woke = 0;
	for (int i = 0; i < 3; i++)
		woke += seen[i].err;
	CHECK_EQ(woke, 3, "condvar: waits in sections sleep on the waiters' own threads");
	if (is_ces)
		CHECK(count_delegated(3) >= 1, "condvar: the first section started delegated");
}

/* ---- a signal sent while a section is away ----------------------------- */

static void on_usr1(int sig)
{
	if (my_id < 0 || my_id >= WAITERS)
		return;
	struct seen *s = &seen[my_id];
	s->sig_tid_ok = tid() == s->home;
	s->sig_tls_ok = 1;
	s->sig_after_body = body_done;
}

static void *signal_waiter(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct seen *s = &seen[id];
	my_id = id;
	body_done = 0;
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&m);
	s->in = tid();
	body_done = 1;
	pthread_mutex_unlock(&m);
	return NULL;
}

static void signals(void)
{
	pthread_t t[3];
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	pthread_mutex_lock(&m);
	run_waiters(signal_waiter, 3, t);
	for (int i = 0; i < 3; i++)
		pthread_kill(t[i], SIGUSR1);
	usleep(5000);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	int tid_ok = 0, ran = 0, after = 0, delegated = 0;
	for (int i = 0; i < 3; i++) {
		tid_ok += seen[i].sig_tid_ok;
		ran += seen[i].sig_tls_ok;
		if (seen[i].in != seen[i].home) {
			delegated++;
			after += seen[i].sig_after_body;
		}
	}
	(void)after;
	int before = 0;
	for (int i = 0; i < 3; i++)
		before += seen[i].sig_tls_ok && !seen[i].sig_after_body;
	CHECK_EQ(ran, 3, "signals: each waiter's handler ran once, with its own TLS");
	CHECK_EQ(tid_ok, 3, "signals: each handler ran on the waiter's own thread");
	CHECK_EQ(before, 3, "signals: a waiting thread's handler runs while it waits, before its section (as under glibc)");
	if (is_ces)
		CHECK(delegated >= 1, "signals: sections ran delegated");
}

/* ---- fork inside a delegated section ----------------------------------- */

static void *fork_waiter(void *arg)
{
	struct seen *s = &seen[(intptr_t)arg];
	my_id = (int)(intptr_t)arg;
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&m);
	s->in = tid();
	pid_t pid = fork();
	if (pid == 0) {
		/* The child is a copy of the waiter's own thread, holding m. */
		int ok = my_id == (int)(intptr_t)arg;
		pthread_mutex_unlock(&m);
		ok &= pthread_mutex_trylock(&m) == 0;
		pthread_mutex_unlock(&m);
		_exit(ok ? 0 : 3);
	}
	s->after_block = tid();
	int st = -1;
	waitpid(pid, &st, 0);
	s->err = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	pthread_mutex_unlock(&m);
	return NULL;
}

static void forks(void)
{
	pthread_t t[2];
	pthread_mutex_lock(&m);
	run_waiters(fork_waiter, 2, t);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int ok = 0, home = 0;
	for (int i = 0; i < 2; i++)
		ok += seen[i].err, home += seen[i].after_block == seen[i].home;
	CHECK_EQ(ok, 2, "fork: a child forked inside a section unlocks and relocks the mutex");
	CHECK_EQ(home, 2, "fork: a section that forks goes on from its own thread");
	if (is_ces)
		CHECK(count_delegated(2) >= 1, "fork: a section that forked had started delegated");
}

/* ---- thread exit inside a delegated section ---------------------------- */

static pthread_mutex_t x = PTHREAD_MUTEX_INITIALIZER;

static void *exit_waiter(void *arg)
{
	struct seen *s = &seen[0];
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&x);
	s->in = tid();
	pthread_exit((void *)(intptr_t)42); /* x stays held, as with glibc */
}

static void exits(void)
{
	pthread_t t;
	pthread_mutex_lock(&x);
	run_waiters(exit_waiter, 1, &t);
	pid_t me = tid();
	pthread_mutex_unlock(&x);
	void *ret = NULL;
	pthread_join(t, &ret);
	CHECK_EQ((intptr_t)ret, 42, "exit: pthread_exit inside a section ends the waiter's thread");
	CHECK_EQ(tid(), me, "exit: the releasing thread goes on");
	CHECK(pthread_mutex_trylock(&x) == EBUSY, "exit: the mutex stays held by the exited thread");
	if (is_ces)
		CHECK(seen[0].in != seen[0].home, "exit: the section had run delegated");
}

/* ---- a cancellation pending when a section starts ---------------------- */

static pthread_mutex_t y = PTHREAD_MUTEX_INITIALIZER;
static atomic_int past_testcancel;

static void *cancel_waiter(void *arg)
{
	struct seen *s = &seen[0];
	s->home = tid();
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&y);
	s->in = tid();
	pthread_testcancel(); /* acted upon here, as under glibc (at home under ces) */
	if (s->in != s->home)
		atomic_store(&past_testcancel, 1);
	pthread_mutex_unlock(&y);
	pthread_testcancel();
	return (void *)1;
}

static void cancels(void)
{
	pthread_t t;
	pthread_mutex_lock(&y);
	run_waiters(cancel_waiter, 1, &t);
	pthread_cancel(t);
	pthread_mutex_unlock(&y);
	void *ret = NULL;
	pthread_join(t, &ret);
	CHECK(ret == PTHREAD_CANCELED, "cancel: a pending cancellation is acted upon");
	/* The section's own testcancel acts, with y held, under every
	 * backend: under ces it goes home first and acts there. */
	CHECK(pthread_mutex_trylock(&y) == EBUSY,
	      "cancel: acted upon at the section's own cancellation point, the mutex still held");
	CHECK_EQ(atomic_load(&past_testcancel), 0, "cancel: the section did not run past it");
	if (is_ces)
		CHECK(seen[0].in != seen[0].home, "cancel: the section ran delegated");
}

int main(void)
{
	is_ces = strcmp(check_backend(), "ces") == 0;
	context();
	cputime();
	masks();
	cancelstate();
	nested();
	condvar();
	signals();
	forks();
	exits();
	cancels();
	return check_finish();
}
