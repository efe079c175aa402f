/*
 * kill.c - signals sent to one thread, while the backend delegates.
 *
 * A thread may be running another thread's critical section when a
 * signal for it arrives (it is a releaser).  The kernel sees only the
 * kernel thread, so the signal is tagged with the thread it is for
 * (core/runtime/home_signal.h), and the releaser keeps it until its own
 * code runs again.  glibc's pthread_kill sends an untagged tgkill; these
 * send the same signal (SI_TKILL, or SI_QUEUE with its value) through
 * rt_tgsigqueueinfo, with the tag, to any thread that has taken part in
 * delegation.  Every other case is glibc's own call.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "../../core/runtime/home_signal.h"
#include "../entry/export.h"
#include "away.h"

/* The home block of thread t, read from its TLS: initial-exec TLS lies at
 * the same offset from every thread's thread pointer.  NULL if the thread
 * never waited delegably nor ran another's section. */
static struct ls_home *home_of(pthread_t t)
{
	ptrdiff_t off = (char *)&ls_home_current - (char *)ls_home_tp();
	/* relaxed: the target writes it once, before it can take part. */
	return __atomic_load_n((struct ls_home **)((char *)t + off), __ATOMIC_RELAXED);
}

/* The kernel thread id of t, from the CPU-time clock glibc makes of it
 * (the kernel's encoding: ~tid << 3 | 6); 0 if t has exited. */
static pid_t tid_of(pthread_t t)
{
	clockid_t c;
	if (GLIBC(pthread_getcpuclockid)(t, &c) != 0)
		return 0;
	return ~(c >> 3);
}

/* The block a signal for t is tagged with; NULL: glibc's own call. */
static struct ls_home *tagged(pthread_t t, int sig)
{
	if (!ls_home_delegating || sig <= 0 || sig >= _NSIG || sig == LS_SIG_CANCEL ||
	    sig == LS_SIG_SETXID || pthread_equal(t, pthread_self()))
		return NULL;
	return home_of(t);
}

static int send_tagged(pthread_t t, struct ls_home *to, siginfo_t *info, int if_exited)
{
	pid_t tid = tid_of(t);
	if (tid <= 0)
		return if_exited;
	info->si_pid = (pid_t)ls_sys_getpid();
	info->si_uid = getuid();
	ls_home_signal_tag(info, to);
	long r = ls_sys_tgsigqueueinfo(info->si_pid, tid, info->si_signo, info);
	return r < 0 ? (int)-r : 0;
}

LS_EXPORT int pthread_kill(pthread_t t, int sig)
{
	ls_go_home(LS_BACK_SIGNAL);
	struct ls_home *to = tagged(t, sig);
	if (!to)
		return GLIBC(pthread_kill)(t, sig);
	siginfo_t info;
	memset(&info, 0, sizeof info);
	info.si_signo = sig;
	info.si_code = SI_TKILL;
	/* glibc sends nothing to a thread that is exiting, and says 0. */
	return send_tagged(t, to, &info, 0);
}

LS_EXPORT int pthread_sigqueue(pthread_t t, int sig, const union sigval value)
{
	ls_go_home(LS_BACK_SIGNAL);
	struct ls_home *to = tagged(t, sig);
	if (!to)
		return GLIBC(pthread_sigqueue)(t, sig, value);
	siginfo_t info;
	memset(&info, 0, sizeof info);
	info.si_signo = sig;
	info.si_code = SI_QUEUE;
	info.si_value = value;
	/* glibc: ESRCH for a thread that has exited. */
	return send_tagged(t, to, &info, ESRCH);
}
