#include "bcs.h"

void (*_Atomic ls_bcs_wf_stall_hook)(void);
_Atomic uint64_t ls_bcs_wf_handoffs;

/*
 * Lock-free consumer.  Invariant: while we run, top != NULL (our own node
 * is at the bottom of the stack), so no pusher sees NULL and becomes a
 * second consumer.  Round k handles the segment [top, bottom) where bottom
 * is the previous round's top (NULL for the first round): those nodes'
 * `next` fields were written before their push and never change, and none
 * of them is released before the batch ends, so comparing against `bottom`
 * cannot be fooled by a reused node (no ABA).
 */
void ls_bcs_consume_slow(struct ls_bcs *q, struct ls_bcs_node *top,
                         struct ls_bcs_node *bottom,
                         const struct ls_bcs_ops *ops, void *ctx)
{
	struct ls_bcs_node *first = NULL, *last = NULL;
	for (;;) {
		/* Reverse the segment through `batch`: oldest first. */
		struct ls_bcs_node *oldest = NULL;
		for (struct ls_bcs_node *n = top; n != bottom;
		     n = atomic_load_explicit(&n->next, memory_order_relaxed)) {
			/* relaxed: n->next was published by the push CAS that our
			 * acquire of `top` synchronised with (a CAS continues the
			 * release sequence of every earlier push). */
			n->batch = oldest;
			oldest = n;
		}
		for (struct ls_bcs_node *n = oldest; n; n = n->batch)
			ops->handle(n, ctx);
		/* Append the round to the batch's list (top->batch is NULL). */
		if (last)
			last->batch = oldest;
		else
			first = oldest;
		last = top;
		if (ops->round_end)
			ops->round_end(ctx);
		/* Close the batch.  release: the next consumer (whose push CAS
		 * reads NULL with acquire) sees our handles.  acquire on
		 * failure: we read the nodes pushed meanwhile. */
		struct ls_bcs_node *seen = top;
		if (atomic_compare_exchange_strong_explicit(&q->top, &seen, NULL,
		                                            memory_order_release,
		                                            memory_order_acquire))
			break;
		bottom = top;
		top = seen;
	}
	/* Deferred wakes, in handling order.  Read `batch` before done(n):
	 * after done(n) the owner may reuse n. */
	for (struct ls_bcs_node *n = first, *next; n; n = next) {
		next = n->batch;
		ops->done(n, ctx);
	}
}

/*
 * Wait-free consumer.  Handles nodes in FIFO order starting at `first`.
 * At a node whose `next` is NULL it tries to close the queue
 * (CAS tail: n -> NULL); if a producer has swapped tail but not linked yet,
 * it swaps the sentinel into n->next: either the link was made meanwhile
 * (continue with it) or the producer will find the sentinel and take over.
 * In the hand-off case n is not ours to release: the producer that finds
 * the sentinel calls done(n).
 */
bool ls_bcs_wf_consume_slow(struct ls_bcs_wf *q, struct ls_bcs_node *first,
                            bool first_handled, const struct ls_bcs_ops *ops,
                            void *ctx)
{
	struct ls_bcs_node *n = first, *next;
	bool closed;
	for (;;) {
		if (n != first || !first_handled)
			ops->handle(n, ctx);
		/* acquire: pairs with the producer's release link swap, so we
		 * see the node we move to. */
		next = atomic_load_explicit(&n->next, memory_order_acquire);
		if (!next) {
			if (ops->round_end)
				ops->round_end(ctx);
			struct ls_bcs_node *seen = n;
			/* release: the next consumer (acquire swap of tail
			 * reading NULL) sees our handles. */
			if (atomic_compare_exchange_strong_explicit(
			            &q->tail, &seen, NULL, memory_order_release,
			            memory_order_relaxed)) {
				closed = true;
				break;
			}
			/* acq_rel: release hands our handles to the producer that
			 * reads the sentinel; acquire pairs with its link swap if
			 * it got there first. */
			next = atomic_exchange_explicit(&n->next, LS_BCS_SENTINEL,
			                                memory_order_acq_rel);
			if (!next) {
				closed = false;
				break;
			}
		}
		/* Remember the order in `batch`: n->next may now hold the
		 * sentinel (it was swapped in after the link arrived). */
		n->batch = next;
		n = next;
	}
	/* Deferred wakes for every node before n (read `batch` before
	 * done); n itself is released here only if we closed the queue. */
	for (struct ls_bcs_node *m = first; m != n; m = next) {
		next = m->batch;
		if (m != first || !first_handled)  /* a solo caller's own node */
			ops->done(m, ctx);
	}
	if (!closed)
		return n == first;
	if (n != first || !first_handled)
		ops->done(n, ctx);
	return false;
}

bool ls_bcs_wf_link_slow(struct ls_bcs_wf *q, struct ls_bcs_node *prev,
                         struct ls_bcs_node *n, const struct ls_bcs_ops *ops,
                         void *ctx)
{
	void (*hook)(void) = atomic_load_explicit(&ls_bcs_wf_stall_hook,
	                                          memory_order_relaxed);
	if (hook)
		hook();
	/* acq_rel: release publishes n to the consumer (which reads it with
	 * acquire); acquire pairs with the consumer's sentinel swap, so on a
	 * hand-off we see every handle of the batch that ended. */
	struct ls_bcs_node *old = atomic_exchange_explicit(&prev->next, n,
	                                                   memory_order_acq_rel);
	if (old != LS_BCS_SENTINEL)
		return false;  /* a consumer will reach n; prev is not ours */
	atomic_fetch_add_explicit(&ls_bcs_wf_handoffs, 1, memory_order_relaxed);
	/* The previous consumer stopped at prev and left it to us: its batch
	 * has ended, so its wake is due now. */
	ops->done(prev, ctx);
	ls_bcs_wf_consume_slow(q, n, false, ops, ctx);
	return true;
}
