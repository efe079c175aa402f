#include "restrict.h"

#include <errno.h>
#include <stdbool.h>

#include "../runtime/timespec.h"
#include "../runtime/twa.h"
#include "../runtime/wait.h"

_Atomic unsigned ls_restrict_active = 2;
_Atomic unsigned ls_restrict_rotate = 1000;
_Atomic(ls_restrict_trace_fn) ls_restrict_trace;

#define GRANT_MASK (LS_RS_TICKET_MASK << LS_RS_GRANT_SHIFT)
#define NEXT_MASK (LS_RS_TICKET_MASK << LS_RS_NEXT_SHIFT)

static unsigned limit(void)
{
	unsigned n = atomic_load_explicit(&ls_restrict_active, memory_order_relaxed);
	return n == 0 ? 1 : n > LS_RS_MAX_ACTIVE ? LS_RS_MAX_ACTIVE : n;
}

static unsigned rotate(void)
{
	unsigned k = atomic_load_explicit(&ls_restrict_rotate, memory_order_relaxed);
	return k == 0 ? 1 : k > LS_RS_MAX_ROTATE ? LS_RS_MAX_ROTATE : k;
}

static void traced(struct ls_restrict *r, int ev, uint32_t t, uint32_t ahead)
{
	ls_restrict_trace_fn f = atomic_load_explicit(&ls_restrict_trace, memory_order_relaxed);
	if (f)
		f(r, ev, t, ahead);
}

static uint64_t with_grant(uint64_t w, uint32_t g)
{
	return (w & ~GRANT_MASK) | ((uint64_t)(g & LS_RS_TICKET_MASK) << LS_RS_GRANT_SHIFT);
}

static uint64_t with_next(uint64_t w, uint32_t n)
{
	return (w & ~NEXT_MASK) | ((uint64_t)(n & LS_RS_TICKET_MASK) << LS_RS_NEXT_SHIFT);
}

/* ---- fork ------------------------------------------------------------- */

/* Fork child: a fresh word holding only the inner lock's holder. */
static uint64_t renew(struct ls_restrict *r, const struct ls_lockable *in, void *inner,
                      uint64_t w)
{
	uint32_t e = ls_epoch_now(8);
	while (ls_restrict_epoch_of(w) != e) {
		uint64_t nw = ((uint64_t)e << LS_RS_EPOCH_SHIFT) |
		              (in->is_locked(inner) ? LS_RS_ACTIVE_ONE : 0);
		/* relaxed: orders no data (the inner lock does). */
		if (atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed))
			return nw;
	}
	return w;
}

/* ---- admission -------------------------------------------------------- */

static bool fast_open(uint64_t w, unsigned lim, unsigned k)
{
	return ls_restrict_active_of(w) < lim &&
	       !(ls_restrict_queue_of(w) && ls_restrict_count_of(w) >= k);
}

/* One fast admission if the restrictor is open now: true if admitted. */
static bool try_fast(struct ls_restrict *r, const struct ls_lockable *in, void *inner)
{
	unsigned lim = limit(), k = rotate();
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	for (;;) {
		if (ls_restrict_epoch_of(w) != ls_epoch_now(8))
			w = renew(r, in, inner, w);
		if (!fast_open(w, lim, k))
			return false;
		uint64_t nw = w + LS_RS_ACTIVE_ONE + (ls_restrict_queue_of(w) ? LS_RS_COUNT_ONE : 0);
		/* relaxed: orders no data (the inner lock does). */
		if (atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed)) {
			traced(r, LS_RS_TRACE_FAST, UINT32_MAX, 0);
			return true;
		}
	}
}

/* Arrive: a fast admission (returns false), or a passive ticket in *t
 * (returns true). */
static bool arrive(struct ls_restrict *r, const struct ls_lockable *in, void *inner, uint32_t *t)
{
	unsigned lim = limit(), k = rotate();
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	for (;;) {
		if (ls_restrict_epoch_of(w) != ls_epoch_now(8))
			w = renew(r, in, inner, w);
		uint32_t q = ls_restrict_queue_of(w);
		uint64_t nw;
		bool passive = !fast_open(w, lim, k);
		if (!passive)
			nw = w + LS_RS_ACTIVE_ONE + (q ? LS_RS_COUNT_ONE : 0);
		else
			nw = with_next(q ? w : w & ~LS_RS_COUNT_MASK, ls_restrict_next_of(w) + 1);
		/* relaxed: orders no data (the inner lock does). */
		if (atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed)) {
			*t = ls_restrict_next_of(w);
			traced(r, passive ? LS_RS_TRACE_QUEUED : LS_RS_TRACE_FAST,
			       passive ? *t : UINT32_MAX, q);
			return passive;
		}
	}
}

/* An admitted passive waiter joins the active set (even above LIMIT: its
 * slot may have gone to a fast arrival meanwhile). */
static void register_admitted(struct ls_restrict *r, uint32_t t)
{
	/* relaxed: orders no data; active never overflows its field. */
	atomic_fetch_add_explicit(&r->word, LS_RS_ACTIVE_ONE, memory_order_relaxed);
	traced(r, LS_RS_TRACE_ADMITTED, t, 0);
}

void ls_restrict_depart(struct ls_restrict *r)
{
	unsigned k = rotate();
	traced(r, LS_RS_TRACE_DEPART, UINT32_MAX, 0);
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	uint32_t from, to;
	do {
		uint32_t q = ls_restrict_queue_of(w);
		nw = w - LS_RS_ACTIVE_ONE;
		from = to = ls_restrict_grant_of(w);
		if (q && (ls_restrict_active_of(w) == 1 || ls_restrict_count_of(w) >= k ||
		          (w & LS_RS_GHOST))) {
			/* A passive admission: the head, or with abandoned tickets
			 * in the queue, everyone (the abandoned never register). */
			to = (w & LS_RS_GHOST) ? ls_restrict_next_of(w) : from + 1;
			nw = with_grant(nw & ~(LS_RS_COUNT_MASK | LS_RS_GHOST), to);
		}
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h): pairs with
		 * the waiter's seq_cst re-check of grant. */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	for (uint32_t i = from; ((to - i) & LS_RS_TICKET_MASK) != 0; i++) {
		traced(r, LS_RS_TRACE_GRANTED, i & LS_RS_TICKET_MASK, 0);
		ls_twa_wake(ls_twa_bucket(r, i & LS_RS_TICKET_MASK));
	}
}

/* A passive waiter gives up ticket t.  Returns 0 if t was admitted
 * meanwhile (the caller registers), ETIMEDOUT once the ticket is given
 * back (the last one) or abandoned (GHOST). */
static int give_back(struct ls_restrict *r, uint32_t t)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	do {
		if (ls_restrict_admitted(w, t))
			return 0;
		if (ls_restrict_next_of(w) == ((t + 1) & LS_RS_TICKET_MASK)) {
			nw = with_next(w, t);
			if (ls_restrict_queue_of(nw) == 0) /* the count is per queue */
				nw &= ~(LS_RS_COUNT_MASK | LS_RS_GHOST);
		} else {
			nw = w | LS_RS_GHOST;
		}
		/* relaxed: orders no data; a departure that races to admit t
		 * is ordered by this CAS (it fails, and t sees grant moved). */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_relaxed,
	                                                memory_order_relaxed));
	return ETIMEDOUT;
}

struct leave_ctx {
	struct ls_restrict *r;
	struct ls_twa_bucket *parked; /* between ls_twa_enter and _leave */
	uint32_t t;
	bool passive;    /* holds ticket t, not yet registered */
	bool registered; /* a member of the active set */
};

/* Cancelled: in the queue, give the ticket up as a timeout would (or,
 * admitted meanwhile, register and depart); registered (the inner lock's
 * own leave step has run), depart. */
static void leave_restrict(void *arg)
{
	struct leave_ctx *x = arg;
	if (x->parked)
		ls_twa_leave(x->parked);
	if (x->passive && give_back(x->r, x->t) == 0) {
		register_admitted(x->r, x->t);
		x->registered = true;
	}
	if (x->registered)
		ls_restrict_depart(x->r);
}

/* Park until ticket t is admitted: 0, or ETIMEDOUT (ticket given up). */
static int wait_admitted(struct leave_ctx *x, clockid_t clock, const struct timespec *abstime)
{
	bool expired = abstime && ls_timespec_negative(abstime);
	struct ls_twa_bucket *bk = ls_twa_bucket(x->r, x->t);
	for (;;) {
		uint32_t seq = ls_twa_enter(bk);
		x->parked = bk;
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h). */
		bool in = ls_restrict_admitted(atomic_load_explicit(&x->r->word, memory_order_seq_cst),
		                               x->t);
		if (!in && !expired && ls_park(&bk->seq, seq, clock, abstime) == ETIMEDOUT)
			expired = true;
		x->parked = NULL;
		ls_twa_leave(bk);
		if (in)
			return 0;
		if (expired)
			return give_back(x->r, x->t);
	}
}

int ls_restrict_acquire(struct ls_restrict *r, const struct ls_lockable *in, void *inner,
                        clockid_t clock, const struct timespec *abstime)
{
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx x = { .r = r };
	int ret = 0;
	ls_wait_enter(&sc);
	ls_wait_push(&f, leave_restrict, &x);
	x.passive = arrive(r, in, inner, &x.t);
	if (x.passive) {
		ret = wait_admitted(&x, clock, abstime);
		x.passive = false;
		if (ret == 0)
			register_admitted(r, x.t);
	}
	if (ret == 0) {
		x.registered = true;
		ret = abstime ? in->timedlock(inner, clock, abstime) : in->lock(inner);
		if (ret != 0)
			ls_restrict_depart(r);
	}
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	return ret;
}

int ls_restrict_trylock(struct ls_restrict *r, const struct ls_lockable *in, void *inner)
{
	if (!try_fast(r, in, inner))
		return EBUSY; /* full or rotating: do not overtake the queue */
	if (in->trylock(inner) != 0) {
		ls_restrict_depart(r);
		return EBUSY;
	}
	return 0;
}

void ls_restrict_unlock(struct ls_restrict *r, const struct ls_lockable *in, void *inner)
{
	/* Misuse (free, or already unlocked by a non-owner): nothing to do,
	 * and above all no second departure. */
	if (!in->is_locked(inner))
		return;
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (ls_restrict_epoch_of(w) != ls_epoch_now(8))
		renew(r, in, inner, w); /* counts us, the holder, as the one member */
	in->unlock(inner);
	ls_restrict_depart(r);
}
