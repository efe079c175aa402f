/*
 * cancel.c - the pthread side of core/runtime/wait.h's cancellation: lock calls of
 * a thread with asynchronous cancellation enabled run with it deferred,
 * except inside parks, where a cancellation runs the algorithm's leave
 * steps (as a cleanup handler) before the program's own handlers.
 *
 * Which threads need it: pthread_setcanceltype is interposed (exported
 * unversioned like the lock functions) and keeps core/runtime/wait.h's per-thread
 * ls_wait_async up to date, so the threads that never ask for
 * asynchronous cancellation (nearly all) pay one thread-local test per
 * lock call instead of a pthread_setcanceltype call per acquisition.
 * A new thread starts deferred (POSIX) with the flag false, and a fork
 * child's thread keeps both.  A thread that switches to asynchronous
 * cancellation without going through the exported symbol (dlsym with
 * RTLD_NEXT, a raw call into libc's internals) is not seen, and its lock
 * calls run unprotected: documented in docs/waiting.md.
 *
 * Switching to asynchronous with a cancellation already pending acts on
 * it at once, inside the cleanup scope below, which is what we want: the
 * waiter leaves its place.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "../../core/runtime/futex.h"
#include "../../core/runtime/home.h"
#include "../../core/runtime/wait.h"
#include "cancel.h"
#include "export.h"

typedef int (*setcanceltype_fn)(int type, int *old);

/* glibc's own pthread_setcanceltype.  dlvsym allocates only when it fails
 * (docs/glibc.md, section 2), so this may run before the constructor
 * and under a preloaded allocator.  A reference bound with .symver would
 * find our unversioned definition first, hence the RTLD_NEXT lookup. */
static setcanceltype_fn real_setcanceltype(void)
{
	static _Atomic(setcanceltype_fn) real;
	/* relaxed: every thread that races here stores the same pointer. */
	setcanceltype_fn f = atomic_load_explicit(&real, memory_order_relaxed);
	if (__builtin_expect(f == NULL, 0)) {
		/* Only the version every x86-64 glibc has: a failed lookup
		 * would allocate (dlerror's message), i.e. re-enter a
		 * preloaded allocator that is taking its first lock. */
		*(void **)&f = dlvsym(RTLD_NEXT, "pthread_setcanceltype", "GLIBC_2.2.5");
		atomic_store_explicit(&real, f, memory_order_relaxed);
	}
	return f;
}

LS_EXPORT int pthread_setcanceltype(int type, int *oldtype)
{
	/* From a delegated section: at home, where the section's own
	 * cancellation state is back (interpose/away/calls.def). */
	ls_go_home(LS_BACK_CANCEL);
	setcanceltype_fn f = real_setcanceltype();
	if (!f)
		return EINVAL; /* no glibc underneath: nothing we can switch */
	int r = f(type, oldtype);
	if (r == 0)
		ls_wait_async = type == PTHREAD_CANCEL_ASYNCHRONOUS;
	return r;
}

/* The hooks below switch the type through glibc directly: they change it
 * for the length of a lock call only, and ls_wait_async keeps saying what
 * the program asked for. */
static bool hold(void)
{
	int old;
	real_setcanceltype()(PTHREAD_CANCEL_DEFERRED, &old);
	return old == PTHREAD_CANCEL_ASYNCHRONOUS;
}

static void restore(void)
{
	real_setcanceltype()(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
}

/* The park behind core/runtime/wait.h's cancellable parks: a lock's
 * (ls_park inside a scope, which turned the type deferred, with the leave
 * steps as cleanup) and the condvar's (ls_park_cancel_point, whose
 * caller pushed its own cleanup).  Between the two setcanceltype calls
 * only the futex call runs, so nothing but a cleanup can observe a
 * cancellation here.  The type is switched through glibc directly:
 * ls_wait_async keeps saying what the program asked for. */
static int park(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                const struct timespec *abstime, void (*cleanup)(void *), void *arg)
{
	int r, old;
	pthread_cleanup_push(cleanup, arg);
	real_setcanceltype()(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	r = ls_futex_wait(word, expected, clock, abstime);
	real_setcanceltype()(old, NULL);
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
	if (!real_setcanceltype())
		return; /* scopes stay inert, as without hooks */
	/* release: pairs with core/runtime/wait.c's acquire load of the table. */
	atomic_store_explicit(&ls_wait_cancel_hooks, &hooks, memory_order_release);
}
