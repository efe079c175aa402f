/*
 * home_hooks.c - what a context run by a delegate must not do on the
 * delegate's thread that no call of calls.def covers: act on a
 * cancellation it cannot see coming, or end the thread.
 */
#include <pthread.h>

#include "../entry/export.h"
#include "away.h"

/* While away, the context's cancellation is off: a cancellation point
 * that no wrapper sees (one inside glibc: stdio's write, a cond wait's own
 * check) would otherwise unwind the waiter's stack on the delegate's
 * thread and end the delegate.  The program's own cancellation calls go
 * home first (calls.def: pthread_setcancelstate, pthread_testcancel and
 * the cancellation points), so it never sees the state changed: it is
 * back before any of them runs.  A cancellation that arrives meanwhile
 * stays pending and is acted upon at the first cancellation point at home
 * (docs/delegation.md).  glibc's own function, not the wrapper: this runs
 * away, where the wrapper would go home. */
static void leave_home(struct ls_home *h)
{
	GLIBC(pthread_setcancelstate)(PTHREAD_CANCEL_DISABLE, &h->cancel_state);
}

static void back_home(struct ls_home *h)
{
	GLIBC(pthread_setcancelstate)(h->cancel_state, NULL);
}

static const struct ls_home_hooks hooks = { .leave_home = leave_home, .back_home = back_home };

void ls_away_install(void)
{
	ls_home_hooks = &hooks;
}

/* A thread that exits inside a delegated section exits from its own
 * thread, not the delegate's.  (A thread whose start routine returns
 * there is sent home by threads.c's start wrapper, and by the
 * thread-record key's destructor, interpose/start/init.c.) */
LS_EXPORT __attribute__((noreturn)) void pthread_exit(void *ret)
{
	ls_go_home(LS_BACK_EXIT);
	GLIBC(pthread_exit)(ret);
	__builtin_unreachable();
}
