/*
 * thread_state.c - calls that change state the kernel keeps per thread,
 * each sending a delegated critical section home first
 * (core/runtime/home.h): run on the releasing thread, they would change
 * the releaser's signal mask, affinity or scheduling, not the waiter's.
 * Each wrapper costs one thread-local load when no section is away.  What
 * is not here (raw syscalls, prctl, setns, unshare) acts on the releaser:
 * docs/delegation.md lists it.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "../core/runtime/home.h"
#include "export.h"
#include "home.h"
#include "next_symbol.h"

static void *_Atomic real_sigprocmask, *_Atomic real_pthread_sigmask,
        *_Atomic real_sched_setaffinity, *_Atomic real_pthread_setaffinity_np,
        *_Atomic real_sched_setscheduler, *_Atomic real_sched_setparam,
        *_Atomic real_pthread_setschedparam;

LS_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(sigprocmask)(how, set, old);
}

LS_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(pthread_sigmask)(how, set, old);
}

LS_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(sched_setaffinity)(pid, size, set);
}

LS_EXPORT int pthread_setaffinity_np(pthread_t t, size_t size, const cpu_set_t *set)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(pthread_setaffinity_np)(t, size, set);
}

LS_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(sched_setscheduler)(pid, policy, p);
}

LS_EXPORT int sched_setparam(pid_t pid, const struct sched_param *p)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(sched_setparam)(pid, p);
}

LS_EXPORT int pthread_setschedparam(pthread_t t, int policy, const struct sched_param *p)
{
	ls_go_home(LS_BACK_THREAD_STATE);
	return REAL(pthread_setschedparam)(t, policy, p);
}

/* Every look-up at start-up (interpose/init.c's constructor): several of
 * these are async-signal-safe and may first be called from a signal
 * handler, where dlsym must not run. */
void ls_thread_state_resolve(void)
{
	ls_next_symbol("sigprocmask", &real_sigprocmask);
	ls_next_symbol("pthread_sigmask", &real_pthread_sigmask);
	ls_next_symbol("sched_setaffinity", &real_sched_setaffinity);
	ls_next_symbol("pthread_setaffinity_np", &real_pthread_setaffinity_np);
	ls_next_symbol("sched_setscheduler", &real_sched_setscheduler);
	ls_next_symbol("sched_setparam", &real_sched_setparam);
	ls_next_symbol("pthread_setschedparam", &real_pthread_setschedparam);
}
