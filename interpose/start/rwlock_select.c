#include "rwlock_select.h"

#include "../options/config.h"
#include "../counting/rwlock_counting.h"
#include "rwlock_real.h"

/* Read by the entry points on every call: declared hidden
 * (rwlock_select.h), so reached PC-relative, as a variable of their own
 * file would be, not through the GOT (-fPIC). */
const struct ls_rwlock_ops *_Atomic ls_rwlock_gate;

void ls_rwlock_select(bool options_ok)
{
	const struct ls_rwlock_ops *b = &ls_rwlock_backend_glibc;
	bool resolved = ls_rwlock_real_resolve();
	if (options_ok && resolved) {
		const struct ls_rwlock_ops *chosen =
		        ls_rwlock_backend_find(ls_option_value(ls_option_find("RWLOCK")));
		if (chosen) /* always: the option's choices are the backends' names */
			b = chosen;
	}
	/* relaxed: published by ls_init's release store of the mutex backend,
	 * which every entry point acquires through ls_active() first. */
	atomic_store_explicit(&ls_rwlock_active, b, memory_order_relaxed);
}

void ls_rwlock_gate_open(void)
{
	/* release: pairs with the acquire in gate(); everything ls_init set
	 * up (the backend, glibc's timed functions, thread records) is
	 * visible to a call that finds the gate open. */
	atomic_store_explicit(&ls_rwlock_gate,
	                      atomic_load_explicit(&ls_rwlock_active, memory_order_relaxed),
	                      memory_order_release);
}

void ls_rwlock_gate_open_counting(void)
{
	const struct ls_rwlock_ops *c =
	        ls_rwlock_counting_table(atomic_load_explicit(&ls_rwlock_active, memory_order_relaxed));
	/* release: as in ls_rwlock_gate_open. */
	if (c)
		atomic_store_explicit(&ls_rwlock_gate, c, memory_order_release);
}
