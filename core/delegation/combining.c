#include "combining.h"

#include <sched.h>

#include "bcs_park.h"
#include "../runtime/wait.h"

/* The head saw `last` move past cur: an arrival swapped itself in and is
 * about to link cur->next.  Spin while the policy allows, then yield between polls. */
static struct ls_combining_node *wait_link(struct ls_combining_node *cur)
{
	struct ls_combining_node *next;
	/* acquire: pairs with the arrival's release link store. */
	if (LS_SPIN_UNTIL(cur, (next = atomic_load_explicit(&cur->next, memory_order_acquire))))
		return next;
	while (!(next = atomic_load_explicit(&cur->next, memory_order_acquire)))
		ls_sys_yield();
	return next;
}

void ls_combining_with_slow(struct ls_combining *l, void (*fn)(void *), void *arg)
{
	struct ls_combining_node self = { .fn = fn, .arg = arg };
	atomic_init(&self.next, NULL);
	atomic_init(&self.status, LS_COMBINING_WAITING);
	/* acq_rel: release publishes our node to the thread that links to it
	 * or combines it; acquire orders us after the previous arrival. */
	struct ls_combining_node *prev = atomic_exchange_explicit(&l->last, &self,
	                                                          memory_order_acq_rel);
	if (prev) {
		/* release: pairs with the combiner's acquire load of next. */
		atomic_store_explicit(&prev->next, &self, memory_order_release);
		if (ls_bcs_park_wait(&self.status) == LS_COMBINING_DONE)
			return;
	}
	/* HEAD: exclude fast-path callers for the whole run (acquire pairs
	 * with the previous holder's release). */
	ls_futexlock_lock(&l->flag);
	struct ls_combining_node *cur = &self, *next;
	for (unsigned ran = 1;; ran++) {
		cur->fn(cur->arg);
		/* acquire: pairs with the successor's release link store. */
		next = atomic_load_explicit(&cur->next, memory_order_acquire);
		if (!next || ran == LS_COMBINING_BATCH_MAX)
			break;
		if (cur != &self)  /* next read first: DONE frees cur */
			ls_bcs_park_reply(&cur->status, LS_COMBINING_DONE);
		cur = next;
	}
	if (!next) {
		struct ls_combining_node *seen = cur;
		/* release: the next arrival to find NULL (acq_rel swap) and the
		 * next fast-path caller see our sections; the flag release
		 * below orders them for the flag's next holder. */
		if (atomic_compare_exchange_strong_explicit(&l->last, &seen, NULL,
		                                            memory_order_release,
		                                            memory_order_relaxed)) {
			ls_futexlock_unlock(&l->flag);
			if (cur != &self)
				ls_bcs_park_reply(&cur->status, LS_COMBINING_DONE);
			return;
		}
		next = wait_link(cur);
	}
	/* Someone is behind cur: release the flag for the new head, reply
	 * to cur (after reading next), then hand over. */
	ls_futexlock_unlock(&l->flag);
	if (cur != &self)
		ls_bcs_park_reply(&cur->status, LS_COMBINING_DONE);
	ls_bcs_park_reply(&next->status, LS_COMBINING_HEAD);
}
