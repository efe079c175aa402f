/*
 * home.c - the interposer's side of delegated critical sections (the ces
 * backend, core/runtime/home.h): what a context run by a delegate must
 * not do on the delegate's thread, and the exits that send it home first.
 */
#include "home.h"

#include <pthread.h>

#include "../core/runtime/home.h"
#include "export.h"
#include "next_symbol.h"

static void *_Atomic real_pthread_exit;

/* While away, the context's cancellation is off: a cancellation point in
 * the section (write(), a cond wait's own check...) would otherwise unwind
 * the waiter's stack on the delegate's thread and end the delegate.  The
 * cancellation stays pending and is acted upon at the first cancellation
 * point after the section, at home (docs/delegation.md). */
static void leave_home(struct ls_home *h)
{
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &h->cancel_state);
}

static void back_home(struct ls_home *h)
{
	pthread_setcancelstate(h->cancel_state, NULL);
}

static const struct ls_home_hooks hooks = { .leave_home = leave_home, .back_home = back_home };

void ls_home_install(void)
{
	ls_home_hooks = &hooks;
}

/* A thread that exits inside a delegated section exits from its own
 * thread, not the delegate's.  (A thread whose start routine returns
 * there is sent home by the thread-record key's destructor, interpose/init.c.) */
LS_EXPORT __attribute__((noreturn)) void pthread_exit(void *ret)
{
	ls_go_home(LS_BACK_EXIT);
	REAL(pthread_exit)(ret);
	__builtin_unreachable();
}

void ls_home_resolve(void)
{
	ls_next_symbol("pthread_exit", &real_pthread_exit);
}
