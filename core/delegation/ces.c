#include "ces.h"

#include "../runtime/delegation_counts.h"
#include "../runtime/fiber.h"
#include "../runtime/home.h"
#include "../runtime/home_signal.h"
#include "../runtime/qnode.h"
#include "../runtime/thread.h"
#include "../runtime/timespec.h"
#include "../runtime/wait.h"

/* Node states (the node's futex word). */
enum {
	N_WAITING = 1,
	N_AWAY = 2,
	N_GRANTED = 3,
	N_DONE = 4,
	N_BACK = 5,
	N_ABANDONED = 6,
};

bool ls_ces_delegation;

/* glibc 2.35+: the size of the rseq area it registered for every thread,
 * 0 when registration is off (GLIBC_TUNABLES=glibc.pthread.rseq=0).  Weak:
 * older glibc has no rseq registration and no symbol. */
extern const unsigned int __rseq_size __attribute__((weak));

bool ls_ces_delegation_setup(const char **why)
{
	ls_ces_delegation = false;
	if (!ls_fiber_supported()) {
		*why = "contexts can be switched only on x86-64";
		return false;
	}
	/* The kernel follows the rseq area of the thread that runs: a delegated
	 * section would read the sleeping waiter's (sched_getcpu() wrong) and
	 * its rseq critical sections would go unprotected. */
	if (&__rseq_size && __rseq_size) {
		*why = "glibc registered an rseq area for every thread; "
		       "start the program with GLIBC_TUNABLES=glibc.pthread.rseq=0";
		return false;
	}
	ls_ces_delegation = true;
	ls_home_delegation_wanted = true;
	ls_delegation_set_batch_bound(LS_CES_BATCH);
	return true;
}

/* Delegation is chosen (ls_ces_delegation_setup) and runs
 * (ls_home_start_delegation: the embedder routes signals). */
static bool delegating(void)
{
	return ls_ces_delegation && ls_home_delegating;
}

static uint32_t top_of(uint32_t w) { return w >> LS_CES_TOP_SHIFT; }

/* Push n (state, epoch and waiter set), or take the lock if it is free:
 * true = pushed, false = taken.  The release CAS publishes the node and,
 * for a delegable one, the context saved before it. */
static bool push_or_take(struct ls_ces *l, struct ls_qnode *n)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	for (;;) {
		if (w == 0) {
			/* acquire: pairs with the release that freed the lock. */
			if (atomic_compare_exchange_weak_explicit(&l->word, &w, LS_CES_LOCKED,
			                                          memory_order_acquire,
			                                          memory_order_relaxed))
				return false;
			continue;
		}
		atomic_store_explicit(&n->next, top_of(w), memory_order_relaxed);
		uint32_t nw = (w & (LS_CES_LOCKED | LS_CES_AWAY | LS_CES_QUEUED)) |
		              (n->id << LS_CES_TOP_SHIFT);
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_release,
		                                          memory_order_relaxed))
			return true;
	}
}

/* Holder only: move the pushed nodes behind the FIFO, oldest first. */
static void detach(struct ls_ces *l)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	while (top_of(w)) {
		uint32_t nw = (w & (LS_CES_LOCKED | LS_CES_AWAY)) | LS_CES_QUEUED;
		/* acquire: pairs with the pushes' release (their nodes' fields). */
		if (!atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_acquire,
		                                           memory_order_relaxed))
			continue;
		uint32_t id = top_of(w), newer = 0;
		while (id) { /* reverse newest->oldest into oldest->newest */
			struct ls_qnode *n = ls_qnode_by_id(id);
			uint32_t older = atomic_load_explicit(&n->next, memory_order_relaxed);
			atomic_store_explicit(&n->next, newer, memory_order_relaxed);
			newer = id;
			id = older;
		}
		if (l->fifo_tail)
			atomic_store_explicit(&ls_qnode_by_id(l->fifo_tail)->next, newer,
			                      memory_order_relaxed);
		else
			l->fifo_head = newer;
		l->fifo_tail = top_of(w);
		return;
	}
}

/* Holder only: the oldest live waiter, out of the FIFO; NULL if none. */
static struct ls_qnode *pop(struct ls_ces *l)
{
	for (;;) {
		if (!l->fifo_head) {
			detach(l);
			if (!l->fifo_head)
				return NULL;
		}
		struct ls_qnode *n = ls_qnode_by_id(l->fifo_head);
		l->fifo_head = atomic_load_explicit(&n->next, memory_order_relaxed);
		if (!l->fifo_head) {
			l->fifo_tail = 0;
			atomic_fetch_and_explicit(&l->word, ~(uint32_t)LS_CES_QUEUED,
			                          memory_order_relaxed);
		}
		if (atomic_load_explicit(&n->epoch, memory_order_relaxed) != ls_epoch_now(32))
			continue; /* pushed before a fork: a dead thread's, left as it is */
		if (atomic_load_explicit(&n->state, memory_order_acquire) == N_ABANDONED) {
			ls_qnode_put(n); /* timed out or cancelled: we are its last user */
			continue;
		}
		return n;
	}
}

/* Run waiter w's critical section here: switch to its context, which
 * resumes in its lock call and comes back at its unlock (DONE) or when it
 * must block (BACK).  The AWAY bit sends its unlock to the slow path. */
static uint32_t run_away(struct ls_ces *l, struct ls_home *w, struct ls_home *self)
{
	w->host = self;
	/* release: a signal handler that sees away finds host (home.h). */
	atomic_store_explicit(&w->away, true, memory_order_release);
	atomic_fetch_or_explicit(&l->word, LS_CES_AWAY, memory_order_relaxed);
	ls_fiber_switch(&w->delegate, w->ctx);
	/* w's context is saved again, running nowhere until its own thread
	 * resumes it: a signal for it must wait for it there. */
	atomic_store_explicit(&w->away, false, memory_order_relaxed);
	atomic_fetch_and_explicit(&l->word, ~(uint32_t)LS_CES_AWAY, memory_order_relaxed);
	return w->result;
}

/* The section's handlers must run on its own alternate signal stack (a
 * stack-overflow handler depends on it): the delegate takes the waiter's
 * for the section, when it differs, and gets its own back after.  False:
 * the kernel refused (we run on our own now, inside a handler): the
 * waiter is handed the lock instead. */
static bool take_altstack(struct ls_home *w, struct ls_home *self)
{
	return ls_home_same_altstack(&w->alt, &self->alt) || ls_home_use_altstack(&w->alt);
}

static void give_altstack_back(struct ls_home *w, struct ls_home *self)
{
	if (!ls_home_same_altstack(&w->alt, &self->alt))
		ls_home_use_altstack(&self->alt);
}

/* The releaser's side of hosting: its own block, and its signal mask with
 * glibc's two internal signals blocked for the batch (their handlers act
 * on the running thread pointer, which is a waiter's during a section). */
struct hosting {
	struct ls_home *self;
	ls_sigmask_t own;     /* our mask before the batch */
	bool on;
};

static bool host_begin(struct hosting *ho)
{
	if (ho->on)
		return true;
	if (!(ho->self = ls_home_self()))
		return false;
	ls_sigmask_t internal = LS_SIGMASK_INTERNAL;
	ls_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&internal, (long)&ho->own, sizeof internal, 0, 0);
	ho->self->mask = ho->own | LS_SIGMASK_INTERNAL;
	ho->self->hosting = true;
	return ho->on = true;
}

/* After the batch and its wake-ups: our own signals, kept meanwhile
 * (core/runtime/home_signal.h), and glibc's internal ones are delivered
 * here, in our own context. */
static void host_end(struct hosting *ho)
{
	if (!ho->on)
		return;
	ho->self->hosting = false;
	ls_sys_sigmask_set(&ho->own);
	ho->self->mask = ho->own;
	ls_home_signal_flush(ho->self);
}

/* The holder's release: run waiters' sections while they are delegable and
 * the batch allows, then pass the lock to a waiter's thread or free it.
 * A waiter whose signal mask differs from ours is handed the lock instead:
 * a section always runs under its own thread's mask, and no handler of
 * ours runs under another's. */
static void release_or_pass(struct ls_ces *l, bool may_run)
{
	struct ls_qnode *done[LS_CES_BATCH];
	struct ls_qnode *back = NULL;
	struct hosting ho = { .on = false };
	uint32_t ran = 0, why = 0;
	bool granted = false;
	for (;;) {
		struct ls_qnode *n = pop(l);
		if (!n) {
			uint32_t w = LS_CES_LOCKED;
			/* release: publishes the section(s) to the next holder.
			 * Fails if a waiter pushed meanwhile: serve it. */
			if (atomic_compare_exchange_strong_explicit(&l->word, &w, 0,
			                                            memory_order_release,
			                                            memory_order_relaxed))
				break;
			if (w == 0)
				break; /* an unlock of an unlocked mutex, which glibc tolerates */
			continue;
		}
		struct ls_home *w = n->waiter;
		if (w && may_run && ran < LS_CES_BATCH && host_begin(&ho) && w->mask == ho.own &&
		    take_altstack(w, ho.self)) {
			uint32_t s = N_WAITING;
			/* acquire: pairs with the push's release (the saved
			 * context).  Fails if a signal took the waiter out of the
			 * queue (ABANDONED): we are the node's last user. */
			if (!atomic_compare_exchange_strong_explicit(&n->state, &s, N_AWAY,
			                                             memory_order_acquire,
			                                             memory_order_relaxed)) {
				give_altstack_back(w, ho.self);
				ls_qnode_put(n);
				continue;
			}
			uint32_t result = run_away(l, w, ho.self);
			give_altstack_back(w, ho.self);
			if (result == LS_AWAY_DONE) {
				done[ran++] = n;
				continue;
			}
			back = n; /* the lock stays held, for w's own thread */
			why = w->reason;
			break;
		}
		uint32_t s = N_WAITING;
		/* release: the lock and the FIFO fields pass to the waiter. */
		if (!atomic_compare_exchange_strong_explicit(&n->state, &s, N_GRANTED,
		                                             memory_order_release,
		                                             memory_order_relaxed)) {
			ls_qnode_put(n); /* abandoned just now */
			continue;
		}
		ls_unpark(&n->state, 1);
		granted = true;
		break;
	}
	/* The finished waiters' wake-ups, off the critical path.  release:
	 * their threads read the contexts saved here. */
	for (uint32_t i = 0; i < ran; i++) {
		atomic_store_explicit(&done[i]->state, N_DONE, memory_order_release);
		ls_unpark(&done[i]->state, 1);
	}
	if (back) {
		atomic_store_explicit(&back->state, N_BACK, memory_order_release);
		ls_unpark(&back->state, 1);
	}
	host_end(&ho);
	if (ran || back || granted)
		ls_delegation_count_batch(ran, back != NULL, (enum ls_home_reason)why, granted);
}

void ls_ces_unlock_slow(struct ls_ces *l)
{
	struct ls_home *h = ls_home_current;
	if (h && atomic_load_explicit(&h->away, memory_order_relaxed) && h->lock == l) {
		/* The end of a delegated section: back to the delegate, which
		 * goes on with its batch; our own thread resumes us here. */
		h->result = LS_AWAY_DONE;
		ls_fiber_switch(&h->ctx, h->delegate);
		ls_home_arrived(h);
		return;
	}
	struct ls_wait_scope sc;
	ls_wait_enter_quiet(&sc);
	/* A context that is away never runs others' sections: its delegate
	 * is waiting for it.  Nor does one that holds a lock owned by its
	 * kernel thread: a section could wait for that lock (home.h). */
	release_or_pass(l, delegating() && !ls_away() && ls_home_pins == 0);
	ls_wait_exit(&sc);
}

void ls_ces_unlock_to_wait(struct ls_ces *l)
{
	ls_go_home(LS_BACK_CONDVAR);
	ls_ces_unlock(l);
}

/* ---- waiting ---------------------------------------------------------- */

/* The waiter's withdraw (home.h): a signal arrived on its parked thread
 * while its node still waits.  acquire on both sides: pairs with a grant's
 * or a delegate's CAS, one of which may win instead. */
static bool withdraw(struct ls_home *h)
{
	uint32_t s = N_WAITING;
	return atomic_compare_exchange_strong_explicit(&h->node->state, &s, N_ABANDONED,
	                                               memory_order_acquire,
	                                               memory_order_acquire);
}

struct park_args {
	struct ls_ces *l;
	struct ls_qnode *n;
};

/* On the parking stack, under the waiter's own signal mask: publish,
 * sleep, and resume the context where it is wanted.  Raw calls only
 * (core/runtime/sys.h): while the context is away, its TLS is in use on
 * the delegate (the FS base travels with the context, core/runtime/fiber.h).
 * A signal handler on this thread may take the node out of the queue at any
 * point (withdraw: WAITING -> ABANDONED); the context then goes home and
 * retries (h->interrupted). */
static void park_home(void *arg)
{
	/* Copied before the push: once pushed, our context may run away and
	 * reuse the frame that holds *arg. */
	struct ls_ces *l = ((struct park_args *)arg)->l;
	struct ls_qnode *n = ((struct park_args *)arg)->n;
	struct ls_home *h = n->waiter;
	bool published = false;
	uint32_t s = atomic_load_explicit(&n->state, memory_order_relaxed);
	if (s == N_WAITING) {
		if (push_or_take(l, n)) {
			published = true;
			/* acquire: pairs with the grant's or the delegate's release. */
			while ((s = atomic_load_explicit(&n->state, memory_order_acquire)) ==
			               N_WAITING ||
			       s == N_AWAY)
				ls_park_parked(&n->state, s);
		} else {
			/* Took the lock.  A handler may withdraw the node
			 * meanwhile: we hold the lock all the same. */
			if (atomic_compare_exchange_strong_explicit(&n->state, &s, N_GRANTED,
			                                            memory_order_relaxed,
			                                            memory_order_relaxed))
				s = N_GRANTED;
			h->interrupted = false;
		}
	}
	/* Withdrawn (ABANDONED) after the push, the releaser that meets the
	 * node is its last user; otherwise we are.  h->parked stays set until
	 * the context is back on its own stack (ls_home_arrived): a signal
	 * meanwhile is queued again for it, not run on this stack. */
	if (!published || s != N_ABANDONED)
		ls_qnode_put(n);
	ls_fiber_jump(h->ctx);
}

/* Wait in the queue, delegably.  0: we hold the lock (at home, or running
 * away on a delegate); EINTR: a signal took us out of the queue, its
 * handler has run, and the caller retries. */
static int wait_delegable(struct ls_ces *l, struct ls_qnode *n, struct ls_home *h)
{
	n->waiter = h;
	h->lock = l;
	h->node = n;
	h->withdraw = withdraw;
	h->interrupted = false;
	ls_sys_sigmask_get(&h->mask);
	struct park_args a = { l, n };
	h->parked = true;
	ls_fiber_start(&h->ctx, h->stack_top, park_home, &a);
	if (atomic_load_explicit(&h->away, memory_order_relaxed)) {
		/* Running on a delegate: the section starts when we return. */
		const struct ls_home_hooks *k = ls_home_hooks;
		h->left_home = true;
		if (k && k->leave_home)
			k->leave_home(h);
		return 0;
	}
	/* At home: granted, or withdrawn by a signal, whose handler runs in
	 * ls_home_arrived (it unblocks what the handler queued again). */
	bool interrupted = h->interrupted;
	ls_home_arrived(h);
	return interrupted ? EINTR : 0;
}

struct leave_ctx {
	struct ls_ces *l;
	struct ls_qnode *n;
};

/* Cancelled while parked: give the node up as a timeout would, or, if the
 * lock was granted meanwhile, pass it on. */
static void leave_queue(void *arg)
{
	struct leave_ctx *c = arg;
	uint32_t s = N_WAITING;
	if (atomic_compare_exchange_strong_explicit(&c->n->state, &s, N_ABANDONED,
	                                            memory_order_acquire, memory_order_acquire))
		return;
	ls_qnode_put(c->n);
	ls_ces_unlock(c->l);
}

/* Not delegable (a timed lock, asynchronous cancellation, no delegation):
 * wait in the same FIFO to be granted the lock. */
static int wait_parked(struct ls_ces *l, struct ls_qnode *n, clockid_t clock,
                       const struct timespec *abstime)
{
	n->waiter = NULL;
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx c = { l, n };
	ls_wait_enter(&sc);
	if (!push_or_take(l, n)) {
		ls_qnode_put(n);
		ls_wait_exit(&sc);
		return 0;
	}
	ls_wait_push(&f, leave_queue, &c);
	int r = 0;
	for (;;) {
		/* acquire: pairs with the grant's release. */
		uint32_t s = atomic_load_explicit(&n->state, memory_order_acquire);
		if (s == N_GRANTED) {
			ls_qnode_put(n);
			break;
		}
		if (ls_park(&n->state, N_WAITING, clock, abstime) == ETIMEDOUT) {
			s = N_WAITING;
			if (atomic_compare_exchange_strong_explicit(&n->state, &s, N_ABANDONED,
			                                            memory_order_acquire,
			                                            memory_order_acquire)) {
				r = ETIMEDOUT; /* the releaser that meets it frees it */
				break;
			}
		}
	}
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	return r;
}

/* One poll of a newcomer: true to stop (taken, or a queue to join). */
static bool newcomer_step(struct ls_ces *l, bool *got)
{
	uint32_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (w == 0)
		return (*got = ls_ces_trylock(l) == 0);
	return (w & ~(uint32_t)(LS_CES_LOCKED | LS_CES_AWAY)) != 0;
}

int ls_ces_lock_slow(struct ls_ces *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_ces_trylock(l) == 0 ? 0 : ETIMEDOUT;
	/* A delegated section never waits on its delegate's thread. */
	ls_go_home(abstime ? LS_BACK_TIMEDLOCK : LS_BACK_LOCK);
	for (;;) {
		bool got = false;
		LS_SPIN_UNTIL(l, newcomer_step(l, &got));
		if (got)
			return 0;
		struct ls_qnode *n = ls_qnode_stamped(N_WAITING);
		if (!n)
			return LS_POLL_TRYLOCK(ls_ces_trylock(l), clock, abstime);
		/* Delegable: an untimed lock, cancellation not asynchronous,
		 * and no lock held that belongs to this kernel thread (our
		 * section could release it on another, home.h). */
		struct ls_home *h;
		if (!abstime && delegating() && !ls_wait_async && ls_home_pins == 0 &&
		    (h = ls_home_self()) != NULL) {
			if (wait_delegable(l, n, h) == 0)
				return 0;
			continue; /* a signal's handler ran: wait again */
		}
		return wait_parked(l, n, clock, abstime);
	}
}
