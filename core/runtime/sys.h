/*
 * sys.h - raw system calls: no errno, no TLS, no symbol of libc's.
 *
 * Two kinds of caller need them:
 *   - code that runs while the thread's TLS is in use elsewhere: a waiter
 *     whose context a delegate runs (core/runtime/home.h) shares its TLS,
 *     errno included, with that context, and a signal handler that routes a
 *     signal for such a thread must not write it either;
 *   - the library's own sleeps, yields and signal masks (core/ and stats/):
 *     the program's names for them (sched_yield, nanosleep,
 *     pthread_sigmask) are the library's own exported wrappers, which send a
 *     delegated section home (interpose/away/), and the library must never
 *     call back up into its own entry points.
 * Each returns what the kernel returns: a value, or -errno.
 */
#ifndef LS_CORE_SYS_H
#define LS_CORE_SYS_H

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

/* The kernel's signal mask on x86-64 Linux: 64 bits (rt_sigprocmask's
 * size 8); bit s-1 is signal s. */
typedef uint64_t ls_sigmask_t;

#define LS_SIGBIT(s) (1ull << ((s) - 1))

/* glibc's internal signals: SIGCANCEL (32, pthread_cancel) and SIGSETXID
 * (33, the setuid() family's broadcast).  glibc's own sigprocmask never
 * blocks them; neither may the library's. */
#define LS_SIG_CANCEL 32
#define LS_SIG_SETXID 33
#define LS_SIGMASK_INTERNAL (LS_SIGBIT(LS_SIG_CANCEL) | LS_SIGBIT(LS_SIG_SETXID))

#if defined(__x86_64__)
static inline long ls_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
	                 : "=a"(r)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return r;
}
#else
/* Elsewhere through libc's syscall(), saving errno around it. */
#include <errno.h>
#include <unistd.h>
static inline long ls_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	int saved = errno;
	long r = syscall(n, a, b, c, d, e, f);
	if (r == -1)
		r = -errno;
	errno = saved;
	return r;
}
#endif

static inline long ls_sys_gettid(void) { return ls_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0); }
static inline long ls_sys_getpid(void) { return ls_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0); }

/* Give up the CPU (the library's own polls: never the program's
 * sched_yield, which is a wrapper that sends a delegated section home). */
static inline void ls_sys_yield(void) { ls_sys6(SYS_sched_yield, 0, 0, 0, 0, 0, 0); }

/* Sleep until `abstime` on `clock` (TIMER_ABSTIME); 0, or -EINTR. */
static inline long ls_sys_sleep_until(clockid_t clock, const struct timespec *abstime)
{
	return ls_sys6(SYS_clock_nanosleep, clock, TIMER_ABSTIME, (long)abstime, 0, 0, 0);
}

/* Sleep for `ns` nanoseconds (relative); 0, or -EINTR. */
static inline long ls_sys_sleep_ns(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	return ls_sys6(SYS_nanosleep, (long)&t, 0, 0, 0, 0, 0);
}

static inline void ls_sys_sigmask_get(ls_sigmask_t *out)
{
	ls_sys6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)out, sizeof *out, 0, 0);
}

static inline void ls_sys_sigmask_set(const ls_sigmask_t *mask)
{
	ls_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)mask, 0, sizeof *mask, 0, 0);
}

/* Block every signal the program could block (all but glibc's two
 * internal ones, as glibc's pthread_sigmask does); old mask in *old. */
static inline void ls_sys_block_all(ls_sigmask_t *old)
{
	ls_sigmask_t all = ~LS_SIGMASK_INTERNAL;
	ls_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)old, sizeof all, 0, 0);
}

/* Queue signal `sig` with `info` (kept as given) to thread `tid` of
 * process `tgid`: the kernel allows any si_code within one's own
 * process. */
static inline long ls_sys_tgsigqueueinfo(long tgid, long tid, int signo, const siginfo_t *info)
{
	return ls_sys6(SYS_rt_tgsigqueueinfo, tgid, tid, signo, (long)info, 0, 0);
}

#endif
