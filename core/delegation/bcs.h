/*
 * bcs.h - Batched Critical Sections: a queue of submitted nodes whose
 * critical sections one thread at a time, the consumer, runs in a batch,
 * publishing the results ("wakes") only after the batch has ended.
 *
 * Source: kprotty, "Batched Critical Sections" (blog post): the
 * first thread to submit to an empty queue becomes the consumer and handles
 * every node submitted until the queue is empty again; wakes are deferred
 * so that the critical sections run back to back on one thread instead of
 * each waiting for the scheduler to run the next woken thread.
 *
 * Two variants, same contract:
 *
 *   struct ls_bcs      lock-free.  Treiber push (CAS loop on `top`); the
 *     pusher that finds top == NULL is the consumer.  Two-phase pop: the
 *     consumer's own node stays on the stack while it works, so no other
 *     pusher can see NULL, and the batch ends only when the consumer's
 *     CAS(top: T -> NULL) succeeds; a failed CAS hands it the nodes pushed
 *     meanwhile (a new "round").  Each round is handled oldest first (the
 *     consumer reverses the LIFO segment through the private `batch` link).
 *
 *   struct ls_bcs_wf   wait-free submit.  Vyukov MPSC: a producer swaps
 *     itself into `tail` and then links prev->next with a second swap.  The
 *     producer that swapped NULL out of `tail` is the consumer.  When the
 *     consumer reaches a node whose `next` is still NULL and cannot close
 *     the queue (tail moved: a producer is between its two swaps), it swaps
 *     LS_BCS_SENTINEL into that node's `next` and leaves; the stalled
 *     producer's link swap then returns the sentinel and it continues as the
 *     new consumer, releasing the node it linked to.  Nobody ever waits for
 *     another thread to finish a step.  FIFO order.
 *
 * State words:
 *   ls_bcs.top     NULL = empty, no consumer; else the newest node, and a
 *                  consumer exists (it owns every node below).
 *   ls_bcs_wf.tail NULL = empty, no consumer; else the newest node.
 *   node.next      lf: the older node (set before the push, never changed);
 *                  wf: NULL = not linked yet, a node = the next newer node,
 *                  LS_BCS_SENTINEL = the consumer stopped here and handed
 *                  the queue to whoever links next.
 *
 * Callbacks (struct ls_bcs_ops), all run by the consumer:
 *   handle(n)     the critical section of n; handles never overlap, and
 *                 each happens-after the previous one (acquire/release on
 *                 top / tail / next, see bcs.c).
 *   round_end()   optional; after each round of handles, before the
 *                 consumer tries to close the batch (still exclusive).
 *   done(n)       the deferred wake: called once per node, after the
 *                 batch that handled n has ended (the consumer closed the
 *                 queue or, wf only, handed it off).  The consumer calls it
 *                 for its batch's nodes in handling order, except the last
 *                 node of a handed-off wf batch, which the next consumer
 *                 releases before starting its own batch.  done() may run
 *                 concurrently with the next batch's handles.
 *
 * Lifetime rule: a submitted node belongs to the queue until done(n) has
 * published to its owner.  The consumer reads n->next and n->batch before
 * calling done(n) and never touches n after done(n) returns; done must make
 * its publishing store its last access to n.  So a node may live on the
 * owner's stack only if the owner waits for done() before returning, and
 * never across fork (the child cannot tell a dead thread's recycled stack).
 *
 * Progress: wf submit is wait-free (two swaps).  lf submit is lock-free.
 * The consumer's batch lasts while producers keep submitting; for a lock
 * whose submitters wait for done() that is at most one node per thread.
 * No malloc anywhere.
 */
#ifndef LS_CORE_BCS_H
#define LS_CORE_BCS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ls_bcs_node {
	_Atomic(struct ls_bcs_node *) next;
	struct ls_bcs_node *batch;  /* consumer-private: handling order */
};

#define LS_BCS_SENTINEL ((struct ls_bcs_node *)(uintptr_t)1)

struct ls_bcs_ops {
	void (*handle)(struct ls_bcs_node *n, void *ctx);
	void (*round_end)(void *ctx);                      /* may be NULL */
	void (*done)(struct ls_bcs_node *n, void *ctx);
};

struct ls_bcs {
	_Atomic(struct ls_bcs_node *) top;
};

struct ls_bcs_wf {
	_Atomic(struct ls_bcs_node *) tail;
};

/* Consumer loops.  lf: handles [top, bottom) and every later round.
 * wf: handles from `first` on (skipping first's handle if the caller ran
 * it itself); returns true if `first` was left for the next consumer's
 * done(first) (hand-off), which a solo caller must then wait for. */
void ls_bcs_consume_slow(struct ls_bcs *q, struct ls_bcs_node *top,
                         struct ls_bcs_node *bottom,
                         const struct ls_bcs_ops *ops, void *ctx);
bool ls_bcs_wf_consume_slow(struct ls_bcs_wf *q, struct ls_bcs_node *first,
                            bool first_handled, const struct ls_bcs_ops *ops,
                            void *ctx);
bool ls_bcs_wf_link_slow(struct ls_bcs_wf *q, struct ls_bcs_node *prev,
                         struct ls_bcs_node *n, const struct ls_bcs_ops *ops,
                         void *ctx);

/* Test instrumentation for the wait-free hand-off: if set, called by a
 * producer between its tail swap and its link swap (so a test can stall it
 * there); ls_bcs_wf_handoffs counts producers that found the sentinel. */
extern void (*_Atomic ls_bcs_wf_stall_hook)(void);
extern _Atomic uint64_t ls_bcs_wf_handoffs;

/* Submit n.  Returns true if the caller acted as the consumer (then n and
 * every node of its batch were handled before this returned, and done(n)
 * has been called unless n was left for a hand-off). */
static inline bool ls_bcs_submit(struct ls_bcs *q, struct ls_bcs_node *n,
                                 const struct ls_bcs_ops *ops, void *ctx)
{
	struct ls_bcs_node *top = atomic_load_explicit(&q->top, memory_order_relaxed);
	do
		/* relaxed: published by the release CAS below. */
		atomic_store_explicit(&n->next, top, memory_order_relaxed);
	/* release: publishes n's fields to the consumer (acquire in
	 * ls_bcs_consume_slow).  acquire on success: when top was NULL we
	 * become the consumer and must see the previous consumer's handles
	 * (its release CAS top -> NULL). */
	while (!atomic_compare_exchange_weak_explicit(&q->top, &top, n,
	                                              memory_order_acq_rel,
	                                              memory_order_relaxed));
	if (top)
		return false;
	ls_bcs_consume_slow(q, n, NULL, ops, ctx);
	return true;
}

static inline bool ls_bcs_wf_submit(struct ls_bcs_wf *q, struct ls_bcs_node *n,
                                    const struct ls_bcs_ops *ops, void *ctx)
{
	/* relaxed: published by the release swap below. */
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	/* release: publishes n to whoever links or consumes after us.
	 * acquire: on NULL we are the consumer and pair with the previous
	 * consumer's release CAS tail -> NULL. */
	struct ls_bcs_node *prev = atomic_exchange_explicit(&q->tail, n,
	                                                    memory_order_acq_rel);
	if (!prev) {
		ls_bcs_wf_consume_slow(q, n, false, ops, ctx);
		return true;
	}
	return ls_bcs_wf_link_slow(q, prev, n, ops, ctx);
}

/*
 * Solo fast paths, for a submitter that can run its own critical section
 * inline (the native API): when the queue is empty it claims it with n,
 * runs the section itself, and closes the queue again - one atomic each
 * way, no handle/done for n, no reply.  round_end is not called for it.
 * If others arrived meanwhile, solo_end goes on as their consumer.
 */
static inline bool ls_bcs_solo_begin(struct ls_bcs *q, struct ls_bcs_node *n)
{
	struct ls_bcs_node *top = NULL;
	/* relaxed: only we read our own next (pushers write theirs). */
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	/* acquire: pairs with the previous consumer's release CAS top -> NULL. */
	return atomic_compare_exchange_strong_explicit(&q->top, &top, n,
	                                               memory_order_acquire,
	                                               memory_order_relaxed);
}

static inline void ls_bcs_solo_end(struct ls_bcs *q, struct ls_bcs_node *n,
                                   const struct ls_bcs_ops *ops, void *ctx)
{
	struct ls_bcs_node *seen = n;
	/* release: the next consumer sees our section; acquire on failure:
	 * we read the nodes pushed meanwhile and consume them. */
	if (!atomic_compare_exchange_strong_explicit(&q->top, &seen, NULL,
	                                             memory_order_release,
	                                             memory_order_acquire))
		ls_bcs_consume_slow(q, seen, n, ops, ctx);
}

/* wf: the swap always enqueues.  Returns NULL if the caller claimed an
 * empty queue (run the section, then ls_bcs_wf_solo_end); otherwise n is
 * queued behind the returned node: call ls_bcs_wf_link_slow() and wait
 * for done(n) as after ls_bcs_wf_submit(). */
static inline struct ls_bcs_node *ls_bcs_wf_solo_begin(struct ls_bcs_wf *q,
                                                       struct ls_bcs_node *n)
{
	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	/* acq_rel: as in ls_bcs_wf_submit. */
	return atomic_exchange_explicit(&q->tail, n, memory_order_acq_rel);
}

/* Returns true if n was left for a hand-off: the caller must wait for
 * done(n) before its node may die. */
static inline bool ls_bcs_wf_solo_end(struct ls_bcs_wf *q, struct ls_bcs_node *n,
                                      const struct ls_bcs_ops *ops, void *ctx)
{
	struct ls_bcs_node *seen = n;
	/* relaxed peek: the CAS below decides; release on success as in the
	 * consumer's close. */
	if (atomic_load_explicit(&n->next, memory_order_relaxed) == NULL &&
	    atomic_compare_exchange_strong_explicit(&q->tail, &seen, NULL,
	                                            memory_order_release,
	                                            memory_order_relaxed))
		return false;
	return ls_bcs_wf_consume_slow(q, n, true, ops, ctx);
}

/* Racy snapshot: is anything queued (or a consumer running)? */
static inline bool ls_bcs_busy(struct ls_bcs *q)
{
	return atomic_load_explicit(&q->top, memory_order_relaxed) != NULL;
}

static inline bool ls_bcs_wf_busy(struct ls_bcs_wf *q)
{
	return atomic_load_explicit(&q->tail, memory_order_relaxed) != NULL;
}

#endif
