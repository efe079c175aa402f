/*
 * stats.h - contention and fairness statistics: what the entry points see.
 *
 * With LOCKSWAP_STATS=off (the default) every exported pthread function
 * pays one load of ls_stats_mode (read-mostly, alone on its cache line) and
 * one predicted-not-taken branch: LS_STATS_ON().  With statistics on, the
 * entry point hands the whole call to ls_stats_*(), which serves it through
 * the *_direct functions below (the entry point's own body, defined in
 * mutex.c and cond.c) and records around them.  So the hooks sit around
 * whatever serves the object - a backend or glibc - and serving never
 * depends on whether statistics are on.
 *
 * The design, costs and output formats are described in docs/stats.md.
 */
#ifndef LS_INTERPOSE_STATS_H
#define LS_INTERPOSE_STATS_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

struct ls_thread;

/* LOCKSWAP_STATS: 0 off, 1 summary, 2 full (the option's choice index). */
enum { LS_STATS_OFF = 0, LS_STATS_SUMMARY = 1, LS_STATS_FULL = 2 };
extern _Atomic unsigned ls_stats_mode;
extern _Atomic unsigned ls_stats_top;    /* LOCKSWAP_STATS_TOP */
extern _Atomic unsigned ls_stats_sample; /* LOCKSWAP_STATS_SAMPLE */

/* Building with -D'LS_STATS_ON()=0' removes the hooks (the baseline of
 * the cost measurements in docs/stats.md). */
#ifndef LS_STATS_ON
#define LS_STATS_ON() \
	__builtin_expect(atomic_load_explicit(&ls_stats_mode, memory_order_relaxed) != 0, 0)
#endif

/* The hooks.  Each is entered by a sibling call (a jump) from the exported
 * function, so its own return address is the program's call site: the
 * exported function needs no stack frame for it (__builtin_return_address
 * there would cost every call a frame, statistics on or off).  A build
 * without sibling calls (-O0) only attributes sites to the entry points. */
int ls_stats_mutex_lock(pthread_mutex_t *m);
int ls_stats_mutex_trylock(pthread_mutex_t *m);
int ls_stats_mutex_timed(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime,
                         int is_clocklock);
int ls_stats_mutex_unlock(pthread_mutex_t *m);
void ls_stats_mutex_forget(pthread_mutex_t *m); /* init / successful destroy */

enum ls_stats_cond_call { LS_COND_WAIT, LS_COND_TIMEDWAIT, LS_COND_CLOCKWAIT };
int ls_stats_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, enum ls_stats_cond_call call,
                       clockid_t clock, const struct timespec *abstime);
int ls_stats_cond_signal(pthread_cond_t *c, int broadcast);
void ls_stats_cond_forget(pthread_cond_t *c); /* init / successful destroy */

/* The entry points' bodies, without statistics (mutex.c, cond.c). */
int ls_mutex_lock_direct(pthread_mutex_t *m);
int ls_mutex_trylock_direct(pthread_mutex_t *m);
int ls_mutex_timed_direct(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime,
                          int is_clocklock);
int ls_mutex_unlock_direct(pthread_mutex_t *m);
int ls_cond_wait_direct(pthread_cond_t *c, pthread_mutex_t *m);
int ls_cond_timedwait_direct(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime);
int ls_cond_clockwait_direct(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                             const struct timespec *abstime);
int ls_cond_signal_direct(pthread_cond_t *c);
int ls_cond_broadcast_direct(pthread_cond_t *c);

/* Start-up and life cycle (init.c). */
void ls_stats_constructor(void);            /* warm the unwinder, install the signal */
void ls_stats_after_fork(void);             /* fork child: the child's numbers are its own */
void ls_stats_thread_exit(struct ls_thread *t); /* thread exit: keep its counts */

#endif
