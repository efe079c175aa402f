/* gate.c - the fast path's gate and the single-threaded shortcut (gate.h). */
#include "gate.h"

#include <stdbool.h>
#include <sys/single_threaded.h>

#define LIKELY(x) __builtin_expect(!!(x), 1)

const struct ls_lock_ops *_Atomic ls_gate;

/* Written once, before the gate opens (the gate's release publishes them). */
static const struct ls_lock_ops *backend;
static struct ls_lock_ops single;

static inline bool one_thread(void)
{
	return __libc_single_threaded;
}

/* A plain verb declined, or a second thread exists: the atomic verbs serve
 * this call, and from now on the gate skips the shortcut if glibc says the
 * process has more than one thread. */
static __attribute__((noinline)) const struct ls_lock_ops *atomic_verbs(void)
{
	if (!one_thread())
		atomic_store_explicit(&ls_gate, backend, memory_order_release);
	return backend;
}

static int single_lock(void *s)
{
	if (LIKELY(one_thread()) && backend->lock_plain(s))
		return 0;
	return atomic_verbs()->lock(s);
}

static int single_trylock(void *s)
{
	if (LIKELY(one_thread()) && backend->lock_plain(s))
		return 0;
	return atomic_verbs()->trylock(s);
}

static void single_unlock(void *s)
{
	if (LIKELY(one_thread()) && backend->unlock_plain(s))
		return;
	atomic_verbs()->unlock(s);
}

static const struct ls_lock_ops *choose(void)
{
	return single.lock && one_thread() ? &single : backend;
}

void ls_gate_open(const struct ls_lock_ops *b)
{
	backend = b;
	if (b->lock_plain && b->unlock_plain) {
		single = *b;
		single.lock = single_lock;
		single.trylock = single_trylock;
		single.unlock = single_unlock;
	}
	atomic_store_explicit(&ls_gate, choose(), memory_order_release);
}

void ls_gate_after_fork(void)
{
	if (atomic_load_explicit(&ls_gate, memory_order_relaxed))
		atomic_store_explicit(&ls_gate, choose(), memory_order_relaxed);
}
