/*
 * reasons.c - one delegated section per reason a section goes home
 * (core/runtime/home.h, enum ls_home_reason; interpose/away/calls.def):
 * each scenario's sections make one call of that kind.  The program
 * checks what it can see itself (every call succeeded); tests/ces/run.sh
 * runs it under ces with the statistics on and checks that the JSON's
 * delegation.handbacks counts every reason.  Under futex it only checks
 * the calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"

#define N 2

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t held_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t pi;
static atomic_int failures;

/* A helper thread holds `held` and `held_rw` for a while, so that a
 * section meets them contended. */
static atomic_int helper_go, helper_has;
static void *helper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	pthread_rwlock_wrlock(&held_rw);
	atomic_store(&helper_has, 1);
	while (!atomic_load(&helper_go))
		usleep(500);
	usleep(20000);
	pthread_rwlock_unlock(&held_rw);
	pthread_mutex_unlock(&held);
	return NULL;
}

static void fail_unless(int ok)
{
	if (!ok)
		atomic_fetch_add(&failures, 1);
}

static void r_lock(int id) { (void)id; fail_unless(pthread_mutex_lock(&held) == 0 && pthread_mutex_unlock(&held) == 0); }
static void r_timedlock(int id)
{
	(void)id;
	struct timespec t = deadline_in(CLOCK_REALTIME, 5000);
	fail_unless(pthread_mutex_timedlock(&held, &t) == 0 && pthread_mutex_unlock(&held) == 0);
}
static void r_condvar(int id)
{
	(void)id;
	struct timespec t = deadline_in(CLOCK_REALTIME, 1);
	int r = pthread_cond_timedwait(&cv, &h_lock, &t);
	fail_unless(r == ETIMEDOUT || r == 0);
}
static void r_park(int id) { (void)id; fail_unless(pthread_rwlock_wrlock(&held_rw) == 0 && pthread_rwlock_unlock(&held_rw) == 0); }
static void r_fork(int id)
{
	(void)id;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	int st = -1;
	fail_unless(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st));
}
static void r_blocking(int id) { (void)id; fail_unless(usleep(1) == 0); }
static void r_thread_state(int id)
{
	(void)id;
	sigset_t old;
	fail_unless(pthread_sigmask(SIG_BLOCK, NULL, &old) == 0);
}
static void on_urg(int sig) { (void)sig; }
static void r_signal(int id) { (void)id; fail_unless(raise(SIGURG) == 0); }
static void r_credentials(int id) { (void)id; fail_unless(seteuid(geteuid()) == 0); }
static void r_kernel_lock(int id) { (void)id; fail_unless(pthread_mutex_lock(&pi) == 0 && pthread_mutex_unlock(&pi) == 0); }
static void r_cancel(int id)
{
	(void)id;
	int old;
	fail_unless(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0);
}
static void r_exit(int id) { (void)id; pthread_exit(NULL); }

static void with_helper(section_fn fn, const char *name)
{
	pthread_t h;
	atomic_store(&helper_go, 0);
	atomic_store(&helper_has, 0);
	pthread_create(&h, NULL, helper, NULL);
	while (!atomic_load(&helper_has))
		usleep(500);
	/* The helper lets go 20 ms after the batch starts. */
	atomic_store(&helper_go, 1);
	int d = run_sections(N, fn);
	pthread_join(h, NULL);
	check_delegated(d, name);
}

static void plain(section_fn fn, const char *name)
{
	check_delegated(run_sections(N, fn), name);
}

int main(void)
{
	harness_start();
	signal(SIGURG, on_urg);
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&pi, &a);
	with_helper(r_lock, "lock");
	with_helper(r_timedlock, "timedlock");
	plain(r_condvar, "condvar");
	with_helper(r_park, "park");
	plain(r_fork, "fork");
	plain(r_blocking, "blocking");
	plain(r_thread_state, "thread_state");
	plain(r_signal, "signal");
	plain(r_credentials, "credentials");
	plain(r_kernel_lock, "kernel_lock");
	plain(r_cancel, "cancel");
	CHECK_EQ(atomic_load(&failures), 0, "reasons: every call made in a section succeeded");
	/* Last: the exiting section leaves the harness's mutex held. */
	check_delegated(run_sections(1, r_exit), "exit");
	return check_finish();
}
