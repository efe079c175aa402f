/*
 * blocking.c - calls that wait for other threads or for time, each sending
 * a delegated critical section home first (core/runtime/home.h), so that
 * it waits on its own thread and never stalls its delegate's batch.
 *
 * The case that makes this necessary: a section that sleeps until another
 * thread tells it to go on.  Run by a delegate, and if that delegate is the
 * very thread that will tell it, the sleep would never end.  Lock and
 * condvar waits go home through the backends and core/runtime/wait.h; these
 * are the other ways a thread commonly waits.  Each wrapper costs one
 * thread-local load when no section is away.  What is not here (I/O that
 * blocks, raw futexes, std::atomic::wait) still stalls the batch, and can
 * deadlock in that case: docs/delegation.md lists it.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "../core/runtime/home.h"
#include "export.h"
#include "home.h"
#include "next_symbol.h"

static void *_Atomic real_nanosleep, *_Atomic real_clock_nanosleep, *_Atomic real_usleep,
        *_Atomic real_sleep, *_Atomic real_sched_yield, *_Atomic real_poll, *_Atomic real_ppoll,
        *_Atomic real_select, *_Atomic real_pselect, *_Atomic real_epoll_wait,
        *_Atomic real_epoll_pwait, *_Atomic real_sem_wait, *_Atomic real_sem_timedwait,
        *_Atomic real_sem_clockwait, *_Atomic real_pthread_join, *_Atomic real_pthread_timedjoin_np,
        *_Atomic real_pause, *_Atomic real_sigsuspend, *_Atomic real_sigwait,
        *_Atomic real_sigwaitinfo, *_Atomic real_sigtimedwait;

LS_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(nanosleep)(req, rem);
}

LS_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                              struct timespec *rem)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(clock_nanosleep)(clock, flags, req, rem);
}

LS_EXPORT int usleep(useconds_t us)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(usleep)(us);
}

LS_EXPORT unsigned int sleep(unsigned int s)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sleep)(s);
}

/* A yield loop inside a section waits for another thread to run. */
LS_EXPORT int sched_yield(void)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sched_yield)();
}

LS_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(poll)(fds, n, timeout);
}

LS_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(ppoll)(fds, n, t, mask);
}

LS_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(select)(n, r, w, e, t);
}

LS_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t,
                      const sigset_t *mask)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(pselect)(n, r, w, e, t, mask);
}

LS_EXPORT int epoll_wait(int fd, struct epoll_event *ev, int max, int timeout)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(epoll_wait)(fd, ev, max, timeout);
}

LS_EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout,
                          const sigset_t *mask)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(epoll_pwait)(fd, ev, max, timeout, mask);
}

LS_EXPORT int sem_wait(sem_t *s)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sem_wait)(s);
}

LS_EXPORT int sem_timedwait(sem_t *s, const struct timespec *t)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sem_timedwait)(s, t);
}

LS_EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *t)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sem_clockwait)(s, clock, t);
}

LS_EXPORT int pthread_join(pthread_t t, void **ret)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(pthread_join)(t, ret);
}

LS_EXPORT int pthread_timedjoin_np(pthread_t t, void **ret, const struct timespec *abstime)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(pthread_timedjoin_np)(t, ret, abstime);
}

LS_EXPORT int pause(void)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(pause)();
}

LS_EXPORT int sigsuspend(const sigset_t *mask)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sigsuspend)(mask);
}

LS_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sigwait)(set, sig);
}

LS_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sigwaitinfo)(set, info);
}

LS_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *t)
{
	ls_go_home(LS_BACK_BLOCKING);
	return REAL(sigtimedwait)(set, info, t);
}

/* Every look-up at start-up (interpose/init.c's constructor): several of
 * these are async-signal-safe and may first be called from a signal
 * handler, where dlsym must not run. */
void ls_blocking_resolve(void)
{
	ls_next_symbol("nanosleep", &real_nanosleep);
	ls_next_symbol("clock_nanosleep", &real_clock_nanosleep);
	ls_next_symbol("usleep", &real_usleep);
	ls_next_symbol("sleep", &real_sleep);
	ls_next_symbol("sched_yield", &real_sched_yield);
	ls_next_symbol("poll", &real_poll);
	ls_next_symbol("ppoll", &real_ppoll);
	ls_next_symbol("select", &real_select);
	ls_next_symbol("pselect", &real_pselect);
	ls_next_symbol("epoll_wait", &real_epoll_wait);
	ls_next_symbol("epoll_pwait", &real_epoll_pwait);
	ls_next_symbol("sem_wait", &real_sem_wait);
	ls_next_symbol("sem_timedwait", &real_sem_timedwait);
	ls_next_symbol("sem_clockwait", &real_sem_clockwait);
	ls_next_symbol("pthread_join", &real_pthread_join);
	ls_next_symbol("pthread_timedjoin_np", &real_pthread_timedjoin_np);
	ls_next_symbol("pause", &real_pause);
	ls_next_symbol("sigsuspend", &real_sigsuspend);
	ls_next_symbol("sigwait", &real_sigwait);
	ls_next_symbol("sigwaitinfo", &real_sigwaitinfo);
	ls_next_symbol("sigtimedwait", &real_sigtimedwait);
}
