/*
 * cancel.c - the pthread side of core/wait.h's cancellation: lock calls of
 * a thread with asynchronous cancellation enabled run with it deferred,
 * except inside parks, where a cancellation runs the algorithm's leave
 * steps (as a cleanup handler) before the program's own handlers.
 *
 * glibc's pthread_setcanceltype only loads the thread's cancel word when
 * the type does not change, so a thread with deferred cancellation (nearly
 * all) pays one call per slow path.  Switching to asynchronous with a
 * cancellation already pending acts on it at once, inside the cleanup
 * scope below, which is what we want: the waiter leaves its place.
 */
#include <pthread.h>

#include "../core/futex.h"
#include "../core/wait.h"
#include "cancel.h"

static bool hold(void)
{
	int old;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
	return old == PTHREAD_CANCEL_ASYNCHRONOUS;
}

static void restore(void)
{
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
}

/* Between the two setcanceltype calls only the futex call runs, so
 * nothing but the leave steps can observe a cancellation here. */
static int park(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                const struct timespec *abstime, void (*cleanup)(void *), void *arg)
{
	int r;
	pthread_cleanup_push(cleanup, arg);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	r = ls_futex_wait(word, expected, clock, abstime);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
	pthread_cleanup_pop(0);
	return r;
}

static const struct ls_wait_cancel_hooks hooks = {
	.hold = hold,
	.restore = restore,
	.park = park,
};

void ls_cancel_install(void)
{
	/* release: pairs with core/wait.c's acquire load of the table. */
	atomic_store_explicit(&ls_wait_cancel_hooks, &hooks, memory_order_release);
}
