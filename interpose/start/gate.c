/* gate.c - the fast path's gate and the single-threaded shortcut (gate.h). */
#include "gate.h"

#include "../counting/counting.h"
#include "real.h"
#include "../counting/watching.h"

_Atomic bool ls_gate_watch = true;

/* The "glibc" backend with statistics off: a plain mutex goes straight to
 * glibc's own functions.  The lock state is at offset 0 of the mutex
 * (mutex_layout.h), so the state pointer is the mutex. */
static int pass_lock(void *s) { return ls_real_mutex_lock(s); }
static int pass_trylock(void *s) { return ls_real_mutex_trylock(s); }
static void pass_unlock(void *s) { ls_real_mutex_unlock(s); }

const struct ls_lock_ops ls_gate_glibc = {
	.name = "glibc",
	.about = "pass-through",
	.lock = pass_lock,
	.trylock = pass_trylock,
	.unlock = pass_unlock,
	.gate_only = true,
};

static const struct ls_lock_ops *choose(const struct ls_lock_ops *b)
{
	return b->single && ls_single_threaded() ? b->single : b;
}

static void publish(const struct ls_lock_ops *b)
{
	/* Where the single-threaded verbs move the gate when they find a
	 * second thread (core/runtime/single.h); set before the gate opens. */
	atomic_store_explicit(&ls_single_after, (const void *)b, memory_order_relaxed);
	atomic_store_explicit(&ls_single_gate, (const void *)choose(b), memory_order_release);
}

void ls_gate_open(const struct ls_lock_ops *b)
{
	if (ls_backend_is_passthrough(b))
		b = &ls_gate_glibc;
	atomic_store_explicit(&ls_gate_watch, false, memory_order_release);
	publish(b);
}

void ls_gate_open_counting(const struct ls_lock_ops *b)
{
	const struct ls_lock_ops *c = ls_counting_table(b);
	if (c)
		publish(c);
}

void ls_gate_open_watching(const struct ls_lock_ops *b)
{
	/* ls_gate_watch stays set: the entry points without a verb in the
	 * table (timed locks, init, destroy, condvar waits) must see the
	 * watch. */
	publish(ls_watching_table(ls_backend_is_passthrough(b) ? &ls_gate_glibc : b));
}

void ls_gate_after_fork(void)
{
	const struct ls_lock_ops *b = atomic_load_explicit(&ls_single_after, memory_order_relaxed);
	if (b && atomic_load_explicit(&ls_single_gate, memory_order_relaxed))
		atomic_store_explicit(&ls_single_gate, (const void *)choose(b), memory_order_relaxed);
}
