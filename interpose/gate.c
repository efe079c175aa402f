/* gate.c - the fast path's gate and the single-threaded shortcut (gate.h). */
#include "gate.h"

static const struct ls_lock_ops *choose(const struct ls_lock_ops *b)
{
	return b->single && ls_single_threaded() ? b->single : b;
}

void ls_gate_open(const struct ls_lock_ops *b)
{
	/* Where the single-threaded verbs move the gate when they find a
	 * second thread (core/single.h); set before the gate opens. */
	atomic_store_explicit(&ls_single_after, (const void *)b, memory_order_relaxed);
	atomic_store_explicit(&ls_single_gate, (const void *)choose(b), memory_order_release);
}

void ls_gate_after_fork(void)
{
	const struct ls_lock_ops *b = atomic_load_explicit(&ls_single_after, memory_order_relaxed);
	if (b && atomic_load_explicit(&ls_single_gate, memory_order_relaxed))
		atomic_store_explicit(&ls_single_gate, (const void *)choose(b), memory_order_relaxed);
}
