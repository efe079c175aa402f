#include "bcslock.h"

#include <sched.h>
#include <sys/mman.h>

#include "../runtime/wait.h"
#include "../runtime/timespec.h"
#include "../runtime/cold.h"

/*
 * Requests, as the consumer handles them (ctx = the lock):
 *
 *   LOCK    not LOCKED: CAS w -> w|LOCKED, reply GRANTED.
 *           held: queue in the FIFO (first waiter: CAS LOCKED ->
 *           LOCKED|WAITERS|epoch), reply nothing yet (where = QUEUED).
 *           A request that already lost a race after a wake-up (tries > 0)
 *           goes to the front, not the back.
 *   UNLOCK  FIFO non-empty: pop the oldest waiter.  If it has already
 *           lost a race (tries >= LS_BCSL_HANDOFF_AFTER) it becomes the
 *           owner (word stays LOCKED): reply GRANTED.  Otherwise the lock
 *           is freed (word = WAITERS|epoch, or 0 if the FIFO emptied) and
 *           the waiter is told to compete for it: reply RETRY.  FIFO empty:
 *           word = 0.  Either reply is published by the UNLOCK's done(),
 *           before RELEASED to the unlocker.
 *   CANCEL  (a timed-out LOCK resubmits its own node, which the FIFO links
 *           separately from the submission links) still queued: unlink it,
 *           reply CANCELLED.  Already popped by an UNLOCK: reply nothing;
 *           the GRANTED or RETRY from that UNLOCK arrives on its own.
 *
 * Word writes: a fast lock may CAS w -> w|LOCKED whenever LOCKED is clear,
 * so the consumer changes a word that may lack LOCKED only with an atomic
 * read-modify-write (CAS, fetch_and); while LOCKED is set only the
 * consumer writes it (a fast unlock needs exactly LOCKED, and with WAITERS
 * set its owner is the one submitting), so a plain store is safe there.
 *
 * Fork: after fork only the forking thread lives, and it was not inside a
 * lock operation, so every queued node belongs to a dead thread.
 *   - FIFO: stamped with the epoch it was started in.  A consumer that sees
 *     WAITERS with another epoch drops the whole FIFO (the lock stays held
 *     by whoever held it: the forking thread, or a dead thread as in glibc).
 *   - submission queue: a consumer may have died mid-batch, leaving `sub`
 *     non-NULL forever.  Once ls_fork_epoch != 0, a submitter first checks
 *     whether the newest queued node belongs to a dead record; if so no live
 *     thread has submitted since the fork, and it resets `sub` with
 *     CAS(dead node -> NULL).  A dead node never becomes newest again, so
 *     the check cannot discard a live request.
 */

enum { WHERE_NONE = 0, WHERE_QUEUED = 1, WHERE_OWNER = 2, WHERE_RETRY = 3 };

/* ---- per-thread nodes: type-stable slabs indexed by thread id ---------- */

#define PER_SLAB 256u
#define MAX_SLABS 4096u

static struct ls_bcslock_node *_Atomic slabs[MAX_SLABS] LS_COLD_BSS;

/* Lock-free so that fork cannot leave it held: racing creators both mmap,
 * one CAS wins, the loser unmaps its copy (never seen by anyone). */
static struct ls_bcslock_node *slab(uint32_t k)
{
	/* acquire: pairs with the release CAS that published the slab. */
	struct ls_bcslock_node *s = atomic_load_explicit(&slabs[k], memory_order_acquire);
	if (s)
		return s;
	size_t bytes = PER_SLAB * sizeof *s;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct ls_bcslock_node *fresh = p;
	for (uint32_t i = 0; i < PER_SLAB; i++) {
		fresh[i].id = k * PER_SLAB + i + 1;
		/* The record slab for these ids exists: our caller holds one. */
		fresh[i].owner = ls_thread_by_id(fresh[i].id);
	}
	if (atomic_compare_exchange_strong_explicit(&slabs[k], &s, fresh,
	                                            memory_order_acq_rel,
	                                            memory_order_acquire))
		return fresh;
	munmap(p, bytes);
	return s;
}

static struct ls_bcslock_node *node_by_id(uint32_t id)
{
	/* Only ids of nodes that were submitted: their slab exists. */
	struct ls_bcslock_node *s = atomic_load_explicit(
	        &slabs[(id - 1) / PER_SLAB], memory_order_acquire);
	return &s[(id - 1) % PER_SLAB];
}

struct ls_bcslock_node *ls_bcslock_node_of(struct ls_thread *t)
{
	uint32_t k = (t->id - 1) / PER_SLAB;
	if (k >= MAX_SLABS)
		return NULL;
	struct ls_bcslock_node *s = slab(k);
	return s ? &s[(t->id - 1) % PER_SLAB] : NULL;
}

struct ls_bcslock_node *ls_bcslock_node_self(void)
{
	struct ls_thread *t = ls_thread_self();
	return t ? ls_bcslock_node_of(t) : NULL;
}

static bool node_dead(struct ls_bcslock_node *n)
{
	return n->owner && atomic_load_explicit(&n->owner->state,
	                                        memory_order_relaxed) == LS_THREAD_DEAD;
}

/* ---- counters (LOCKSWAP_BCS_COUNTS) ------------------------------------ */

/* One writer per field at a time (bcslock.h): no read-modify-write.
 * Always counted (a few stores on slow paths only); printed on request. */
static inline void bump(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
	                      memory_order_relaxed);
}

_Atomic unsigned ls_bcslock_counts_on;
_Atomic unsigned ls_bcslock_own_cpu_on = 1;

static struct ls_bcslock_node spare;

static void add_counts(struct ls_bcslock_counts *to, struct ls_bcslock_counts *from)
{
	_Atomic uint64_t *t = &to->slow_locks, *f = &from->slow_locks;
	size_t n = sizeof *to / sizeof to->slow_locks;
	for (size_t i = 0; i < n; i++)
		atomic_store_explicit(&t[i], atomic_load_explicit(&t[i], memory_order_relaxed) +
		                                     atomic_load_explicit(&f[i], memory_order_relaxed),
		                      memory_order_relaxed);
}

void ls_bcslock_counts_sum(struct ls_bcslock_counts *out)
{
	*out = (struct ls_bcslock_counts){ 0 };
	add_counts(out, &spare.counts);
	for (uint32_t k = 0; k < MAX_SLABS; k++) {
		struct ls_bcslock_node *s = atomic_load_explicit(&slabs[k], memory_order_acquire);
		if (!s)
			continue;
		for (uint32_t i = 0; i < PER_SLAB; i++)
			add_counts(out, &s[i].counts);
	}
}

/* ---- waiting and replying --------------------------------------------- */

/* Every thread of the process has a CPU of its own (and the rules for
 * that case are on: LOCKSWAP_BCS_OWN_CPU). */
static bool own_cpu(void)
{
	/* relaxed: set once at start-up. */
	return atomic_load_explicit(&ls_bcslock_own_cpu_on, memory_order_relaxed) &&
	       ls_thread_live() <= ls_wait_cpus();
}

/* How a queued waiter begins its spin: while every thread has a CPU, with
 * a queue waiter's budget and no place in the spinner count (wait.h,
 * ls_spin_start_own_cpu; counted in own_cpu_waits): a queued waiter that
 * parks reaches the head asleep, and then either its hand-off waits for
 * its wake-up or (skip_parked) it is skipped until it has lost a few races
 * (issue 38).  With more threads than CPUs, the ordinary spin: a spinner
 * there takes a CPU from a thread that could run. */
typedef bool spin_start_fn(struct ls_spin *s, const void *lock);
static spin_start_fn *queued_spin_start(struct ls_bcslock_node *n)
{
	if (!own_cpu())
		return ls_spin_start;
	bump(&n->counts.own_cpu_waits);
	return ls_spin_start_own_cpu;
}

static bool satisfied(uint32_t s, uint32_t all, uint32_t any)
{
	return (s & all) == all && (!any || (s & any));
}

/* Wait until status has every flag of `all` and (if any != 0) one of
 * `any`.  Spin while the policy allows, then park.  Returns 0
 * or ETIMEDOUT (only with an abstime). */
static int node_wait(struct ls_bcslock_node *n, uint32_t all, uint32_t any,
                     clockid_t clock, const struct timespec *abstime)
{
	/* acquire: pairs with the consumer's release fetch_or in reply(). */
	uint32_t s;
	LS_SPIN_UNTIL_FROM(queued_spin_start(n), n,
	                   satisfied(s = atomic_load_explicit(&n->status, memory_order_acquire),
	                             all, any));
	while (!satisfied(s, all, any)) {
		if (abstime && ls_timespec_negative(abstime))
			return ETIMEDOUT;
		if (!(s & LS_BCSN_SLEEP)) {
			/* acquire on failure: s is re-checked (success must be
			 * at least as strong; announcing SLEEP orders nothing). */
			if (!atomic_compare_exchange_weak_explicit(
			            &n->status, &s, s | LS_BCSN_SLEEP,
			            memory_order_acquire, memory_order_acquire))
				continue;
			s |= LS_BCSN_SLEEP;
		}
		int r = ls_park(&n->status, s, clock, abstime);
		if (r != EAGAIN)  /* it slept (EAGAIN: the reply came first) */
			bump(&n->counts.parks);
		s = atomic_load_explicit(&n->status, memory_order_acquire);
		if (r == ETIMEDOUT && !satisfied(s, all, any))
			return ETIMEDOUT;
	}
	if (s & LS_BCSN_SLEEP)  /* awake again: spare replies the syscall */
		atomic_fetch_and_explicit(&n->status, ~(uint32_t)LS_BCSN_SLEEP,
		                          memory_order_relaxed);
	return 0;
}

/* One reply: the publisher's last access to n.  Returns whether it woke
 * n's owner from a sleep in the kernel (not merely announced: a waiter
 * that set SLEEP and then saw the reply does not sleep). */
static bool reply(struct ls_bcslock_node *n, uint32_t flags)
{
	/* release: pairs with the owner's acquire in node_wait(). */
	uint32_t old = atomic_fetch_or_explicit(&n->status, flags, memory_order_release);
	return (old & LS_BCSN_SLEEP) && ls_unpark(&n->status, 1) > 0;
}

/* ---- the FIFO of queued waiters (consumer only) ----------------------- */

static uint32_t epoch_bits(void)
{
	/* relaxed: bumped in the fork child before any other thread exists. */
	return atomic_load_explicit(&ls_fork_epoch, memory_order_relaxed)
	       << LS_BCSL_EPOCH_SHIFT;
}

/* The word, after dropping a FIFO left over from before a fork. */
static uint32_t word_fresh(struct ls_bcslock *l)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if ((w & LS_BCSL_WAITERS) && (w & LS_BCSL_EPOCH_MASK) != epoch_bits()) {
		/* Keep only LOCKED; a fast lock may race (see top). */
		w = atomic_fetch_and_explicit(&l->word, LS_BCSL_LOCKED,
		                              memory_order_relaxed) & LS_BCSL_LOCKED;
		l->fifo_tail = 0;
	}
	return w;
}

/* Insert n between the tail and the head: as the new tail (append) or,
 * front = true, as the new head. */
static void fifo_insert(struct ls_bcslock *l, struct ls_bcslock_node *n, bool front)
{
	if (!l->fifo_tail) {
		n->fifo_next = n->fifo_prev = n->id;
	} else {
		struct ls_bcslock_node *t = node_by_id(l->fifo_tail);
		struct ls_bcslock_node *h = node_by_id(t->fifo_next);
		n->fifo_prev = t->id;
		n->fifo_next = h->id;
		t->fifo_next = n->id;
		h->fifo_prev = n->id;
		if (front) {
			n->where = WHERE_QUEUED;
			return;
		}
	}
	l->fifo_tail = n->id;
	n->where = WHERE_QUEUED;
}

static void fifo_unlink(struct ls_bcslock *l, struct ls_bcslock_node *n)
{
	if (n->fifo_next == n->id) {
		l->fifo_tail = 0;
	} else {
		struct ls_bcslock_node *p = node_by_id(n->fifo_prev);
		struct ls_bcslock_node *x = node_by_id(n->fifo_next);
		p->fifo_next = x->id;
		x->fifo_prev = p->id;
		if (l->fifo_tail == n->id)
			l->fifo_tail = p->id;
	}
	n->where = WHERE_NONE;
	if (!l->fifo_tail)  /* drop WAITERS and the epoch; a fast lock may race */
		atomic_fetch_and_explicit(&l->word, LS_BCSL_LOCKED, memory_order_relaxed);
}

/* ---- the critical sections -------------------------------------------- */

static void on_lock(struct ls_bcslock *l, struct ls_bcslock_node *n)
{
	uint32_t w = word_fresh(l);
	for (;;) {
		if (!(w & LS_BCSL_LOCKED)) {
			/* acquire: pairs with the release that freed it. */
			if (atomic_compare_exchange_weak_explicit(
			            &l->word, &w, w | LS_BCSL_LOCKED,
			            memory_order_acquire, memory_order_relaxed)) {
				n->where = WHERE_OWNER;
				n->reply = LS_BCSN_RELEASED | LS_BCSN_GRANTED;
				return;
			}
		} else if (w & LS_BCSL_WAITERS) {
			break;
		} else if (atomic_compare_exchange_weak_explicit(
		                   &l->word, &w,
		                   LS_BCSL_LOCKED | LS_BCSL_WAITERS | epoch_bits(),
		                   memory_order_relaxed, memory_order_relaxed)) {
			/* relaxed: the owner's fast unlock now fails and comes
			 * here through the queue, which orders everything. */
			l->fifo_tail = 0;
			break;
		}
	}
	fifo_insert(l, n, n->tries > 0);
	n->reply = LS_BCSN_RELEASED;
}

/* Whether a head that has lost a race should still not be handed the lock,
 * because it is parked: while every thread has a CPU of its own, the
 * threads that run take the lock on while the head wakes up (RETRY), up to
 * LS_BCSL_HANDOFF_PARKED_AFTER lost races.  With more threads than CPUs
 * the hand-off stays as it was: there a wake-up per FIFO hand-over is the
 * price of the order (issue 38 records it, docs/results.md section 14). */
static bool skip_parked(struct ls_bcslock_node *head)
{
	if (head->tries >= LS_BCSL_HANDOFF_PARKED_AFTER)
		return false;
	/* relaxed: a hint; a head parking just after the test is handed the
	 * lock and woken, as before. */
	if (!(atomic_load_explicit(&head->status, memory_order_relaxed) & LS_BCSN_SLEEP))
		return false;
	return own_cpu();
}

static void on_unlock(struct ls_bcslock *l, struct ls_bcslock_node *n)
{
	uint32_t w = word_fresh(l);
	n->reply = LS_BCSN_RELEASED;
	n->grantee = NULL;
	if (w & LS_BCSL_WAITERS) {
		struct ls_bcslock_node *head =
		        node_by_id(node_by_id(l->fifo_tail)->fifo_next);
		fifo_unlink(l, head);   /* word is LOCKED[|WAITERS|epoch] */
		n->grantee = head;
		n->skipped = head->tries >= LS_BCSL_HANDOFF_AFTER && skip_parked(head);
		if (head->tries >= LS_BCSL_HANDOFF_AFTER && !n->skipped) {
			head->where = WHERE_OWNER;
			n->grant = LS_BCSN_GRANTED;
			return;
		}
		head->where = WHERE_RETRY;
		n->grant = LS_BCSN_RETRY;
		/* release: as below.  LOCKED is set: a plain store is safe. */
		atomic_store_explicit(&l->word,
		                      atomic_load_explicit(&l->word, memory_order_relaxed) &
		                              ~(uint32_t)LS_BCSL_LOCKED,
		                      memory_order_release);
		return;
	}
	/* release: pairs with the acquire CAS of whoever locks next; our
	 * acquire of the queue ordered the unlocker's critical section. */
	atomic_store_explicit(&l->word, 0, memory_order_release);
}

static void on_cancel(struct ls_bcslock *l, struct ls_bcslock_node *n)
{
	/* A live thread's node is never in a FIFO from before a fork, so no
	 * word_fresh() is needed to trust `where`. */
	if (n->where == WHERE_QUEUED) {
		fifo_unlink(l, n);
		n->reply = LS_BCSN_RELEASED | LS_BCSN_CANCELLED;
	} else if (n->where == WHERE_OWNER || n->where == WHERE_RETRY) {
		n->reply = LS_BCSN_RELEASED;  /* GRANTED/RETRY come from the UNLOCK */
	} else {
		n->reply = LS_BCSN_RELEASED | LS_BCSN_CANCELLED;  /* not reachable */
	}
}

static void handle(struct ls_bcs_node *q, void *ctx)
{
	struct ls_bcslock_node *n = (struct ls_bcslock_node *)q;
	switch (n->op) {
	case LS_BCSN_LOCK: on_lock(ctx, n); break;
	case LS_BCSN_UNLOCK: on_unlock(ctx, n); break;
	default: on_cancel(ctx, n); break;
	}
}

/* The deferred wake.  Reads everything it needs from n before the reply
 * to n, which may let n's owner reuse it. */
static void done(struct ls_bcs_node *q, void *ctx)
{
	struct ls_bcslock_node *n = (struct ls_bcslock_node *)q;
	uint32_t flags = n->reply;
	if (n->op == LS_BCSN_UNLOCK && n->grantee) {
		uint32_t grant = n->grant;
		bool parked = reply(n->grantee, grant);
		struct ls_bcslock_counts *c = &n->counts;
		if (grant & LS_BCSN_GRANTED) {
			bump(&c->grants);
			if (parked)
				bump(&c->grants_parked);
		} else {
			bump(&c->retries);
			if (parked)
				bump(&c->retries_parked);
			if (n->skipped)
				bump(&c->parked_skips);
		}
	}
	reply(n, flags);
}

static const struct ls_bcs_ops bcslock_ops = {
	.handle = handle,
	.done = done,
};

static void repair(struct ls_bcslock *l)
{
	/* Both variants keep their queue word at the same place. */
	struct ls_bcs_node *s = atomic_load_explicit(&l->sub.lf.top,
	                                             memory_order_relaxed);
	if (s && node_dead((struct ls_bcslock_node *)s))
		atomic_compare_exchange_strong_explicit(&l->sub.lf.top, &s, NULL,
		                                        memory_order_relaxed,
		                                        memory_order_relaxed);
}

static void submit(struct ls_bcslock *l, struct ls_bcslock_node *n, bool wf)
{
	if (atomic_load_explicit(&ls_fork_epoch, memory_order_relaxed))
		repair(l);
	if (wf)
		ls_bcs_wf_submit(&l->sub.wf, &n->q, &bcslock_ops, l);
	else
		ls_bcs_submit(&l->sub.lf, &n->q, &bcslock_ops, l);
}

/* ---- without a node (mmap failed): poll, and one shared spare --------- */

static _Atomic uint32_t spare_busy;

/* ---- slow paths ------------------------------------------------------- */

/* After RETRY: the lock was left free for us to compete for.  At least one
 * try, then a spin while the policy allows. */
static bool retry_spin(struct ls_bcslock *l)
{
	return ls_bcslock_trylock(l) == 0 ||
	       LS_SPIN_UNTIL(l, ls_bcslock_trylock(l) == 0);
}

/* One poll of a newcomer: true to stop (taken, or a waiter is queued). */
static bool newcomer_step(struct ls_bcslock *l, bool *got)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (!(w & LS_BCSL_LOCKED))
		return (*got = ls_bcslock_trylock(l) == 0);
	return (w & LS_BCSL_WAITERS) != 0;
}

/* A timed-out LOCK: wait until it has been handled, then take it back out
 * of the FIFO with a CANCEL, unless an UNLOCK popped it meanwhile. */
static int cancel(struct ls_bcslock *l, struct ls_bcslock_node *n, bool wf)
{
	/* Unbounded but short: the request sits in a running batch. */
	node_wait(n, LS_BCSN_RELEASED, 0, CLOCK_MONOTONIC, NULL);
	uint32_t s = atomic_load_explicit(&n->status, memory_order_acquire);
	if (!(s & (LS_BCSN_GRANTED | LS_BCSN_RETRY))) {
		/* Queued: the submission links are free again.  An UNLOCK may
		 * or its reply in concurrently, so clear RELEASED atomically.
		 * relaxed: the submit publishes. */
		atomic_fetch_and_explicit(&n->status, ~(uint32_t)LS_BCSN_RELEASED,
		                          memory_order_relaxed);
		n->op = LS_BCSN_CANCEL;
		submit(l, n, wf);
		node_wait(n, LS_BCSN_RELEASED,
		          LS_BCSN_GRANTED | LS_BCSN_RETRY | LS_BCSN_CANCELLED,
		          CLOCK_MONOTONIC, NULL);
		s = atomic_load_explicit(&n->status, memory_order_acquire);
	}
	if (s & LS_BCSN_GRANTED)
		return 0;
	if ((s & LS_BCSN_RETRY) && ls_bcslock_trylock(l) == 0)
		return 0;
	return ETIMEDOUT;
}

struct leave_ctx {
	struct ls_bcslock *l;
	struct ls_bcslock_node *n;
	bool wf;
};

/* Cancelled while our LOCK is queued: take it back exactly as a timeout
 * does; if the lock was granted (or offered and taken) meanwhile, pass it
 * on. */
static void leave_request(void *arg)
{
	struct leave_ctx *c = arg;
	if (cancel(c->l, c->n, c->wf) == 0 && !ls_bcslock_unlock_fast(c->l))
		ls_bcslock_unlock_slow(c->l, c->wf);
}

int ls_bcslock_lock_slow(struct ls_bcslock *l, bool wf, clockid_t clock,
                         const struct timespec *abstime)
{
	/* Spin (waiting policy) on a plain load; stop once a
	 * waiter is queued: the lock goes to it (offered or handed over). */
	bool got = false;
	LS_SPIN_UNTIL(l, newcomer_step(l, &got));
	if (got)
		return 0;
	if (abstime && ls_timespec_negative(abstime))
		return ls_bcslock_trylock(l) == 0 ? 0 : ETIMEDOUT;
	struct ls_bcslock_node *n = ls_bcslock_node_self();
	if (!n)
		return LS_POLL_TRYLOCK(ls_bcslock_trylock(l), clock, abstime);
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx ctx = { l, n, wf };
	int r;
	ls_wait_enter(&sc);
	bump(&n->counts.slow_locks);
	n->tries = 0;
	for (;;) {
		/* relaxed: every reply to our previous request is in (lifetime
		 * rule); the submit publishes. */
		atomic_store_explicit(&n->status, 0, memory_order_relaxed);
		n->op = LS_BCSN_LOCK;
		submit(l, n, wf);
		ls_wait_push(&f, leave_request, &ctx);
		r = node_wait(n, LS_BCSN_RELEASED, LS_BCSN_GRANTED | LS_BCSN_RETRY, clock, abstime);
		ls_wait_pop(&f);
		if (r != 0) {
			r = cancel(l, n, wf);
			break;
		}
		if (atomic_load_explicit(&n->status, memory_order_relaxed) &
		    LS_BCSN_GRANTED)
			break;
		if (retry_spin(l))
			break;
		bump(&n->counts.lost_races);
		if (n->tries < UINT8_MAX)
			n->tries++;   /* lost the race: front of the FIFO next */
	}
	ls_wait_exit(&sc);
	return r;
}

void ls_bcslock_unlock_slow(struct ls_bcslock *l, bool wf)
{
	struct ls_bcslock_node *n = ls_bcslock_node_self();
	bool borrowed = !n;
	/* Our UNLOCK may make us the consumer of other threads' requests:
	 * no cancellation may cut that short. */
	struct ls_wait_scope sc;
	ls_wait_enter_quiet(&sc);
	if (borrowed) {
		while (atomic_exchange_explicit(&spare_busy, 1, memory_order_acquire))
			ls_sys_yield();
		n = &spare;
	}
	atomic_store_explicit(&n->status, 0, memory_order_relaxed);
	n->op = LS_BCSN_UNLOCK;
	submit(l, n, wf);
	node_wait(n, LS_BCSN_RELEASED, 0, CLOCK_MONOTONIC, NULL);
	if (borrowed)
		atomic_store_explicit(&spare_busy, 0, memory_order_release);
	ls_wait_exit(&sc);
}
