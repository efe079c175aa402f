#include "ticket.h"

#include "../runtime/timespec.h"
#include "../runtime/twa.h"
#include "../runtime/wait.h"

static uint64_t with_epoch(uint64_t w, uint32_t e)
{
	return (w & ~LS_TICKET_EPOCH_MASK) | ((uint64_t)e << LS_TICKET_EPOCH_SHIFT);
}

/* Bring a word from an older fork epoch into this one (see ticket.h). */
static void renew(struct ls_ticket *l)
{
	uint32_t e = ls_epoch_now(8);
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	while (ls_ticket_epoch_of(w) != e) {
		uint64_t g = ls_ticket_grant(w);
		uint64_t n = ls_ticket_next(w) == g ? g : (uint16_t)(g + 1);
		uint64_t nw = g | (n << LS_TICKET_NEXT_SHIFT) | ((uint64_t)e << LS_TICKET_EPOCH_SHIFT);
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed))
			return;
	}
}

int ls_ticket_trylock(struct ls_ticket *l)
{
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	uint32_t e = ls_epoch_now(8);
	while (ls_ticket_next(w) == ls_ticket_grant(w)) {
		/* Free: the queue is empty, so stamping the epoch loses nothing. */
		uint64_t nw = with_epoch(w, e) + LS_TICKET_NEXT_ONE;
		/* acquire: pairs with the release CAS in unlock. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_acquire,
		                                          memory_order_relaxed))
			return 0;
	}
	return EBUSY;
}

/* Try to give up ticket t after a timeout.  Returns 0 if t was granted
 * meanwhile (we hold the lock), ETIMEDOUT once t is taken back or marked
 * abandoned, EAGAIN if t is too far from the head to be marked yet. */
static int abandon(struct ls_ticket *l, uint16_t t)
{
	/* acquire: if grant already reached t, we take over the lock. */
	uint64_t w = atomic_load_explicit(&l->word, memory_order_acquire);
	for (;;) {
		uint16_t g = ls_ticket_grant(w), n = ls_ticket_next(w);
		uint64_t nw;
		if (g == t)
			return 0;
		if ((uint16_t)(t + 1) == n) {
			/* Last ticket: take it back. */
			nw = (w & ~(0xffffull << LS_TICKET_NEXT_SHIFT)) |
			     ((uint64_t)t << LS_TICKET_NEXT_SHIFT);
		} else {
			uint16_t d = (uint16_t)(t - g); /* >= 1: t is behind the holder */
			if (d > LS_TICKET_ABANDON_BITS)
				return EAGAIN;
			nw = w | (1ull << (LS_TICKET_ABANDON_SHIFT + d - 1));
		}
		/* acquire on failure: if grant reached t we now own the lock, and
		 * the holder's release must be visible. */
		if (atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_acquire,
		                                          memory_order_acquire))
			return ETIMEDOUT;
	}
}

/* A monotonic deadline 1 ms from now, for re-trying a deferred abandon. */
static struct timespec soon(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 1000000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Distance from the ticket being served: 0 = ours, 1 = next, ... */
static uint16_t distance(struct ls_ticket *l, uint16_t t, memory_order mo)
{
	return (uint16_t)(t - ls_ticket_grant(atomic_load_explicit(&l->word, mo)));
}

struct leave_ctx {
	struct ls_ticket *l;
	uint16_t t;
};

/* Cancelled while waiting with ticket t: give it up as a timeout would,
 * and if it was granted meanwhile, pass the lock on. */
static void leave_ticket(void *arg)
{
	struct leave_ctx *c = arg;
	int r;
	/* Every cancellable park of ls_ticket_wait_slow is between
	 * ls_twa_enter and ls_twa_leave on t's bucket: leave it, or its
	 * parked count would cost every later wake of the bucket a syscall. */
	ls_twa_leave(ls_twa_bucket(c->l, c->t));
	while ((r = abandon(c->l, c->t)) == EAGAIN) {
		/* More than the abandon window behind the head: wait for the
		 * queue to move (plain park: we are already being cancelled). */
		struct ls_twa_bucket *b = ls_twa_bucket(c->l, c->t);
		struct timespec retry = soon();
		uint32_t seq = ls_twa_enter(b);
		ls_twa_park(b, seq, CLOCK_MONOTONIC, &retry);
		ls_twa_leave(b);
	}
	if (r == 0)
		ls_ticket_unlock(c->l);
}

/* How many waiters nearest the head may spin: as many as CPUs may. */
static uint16_t spin_window(void)
{
	unsigned w = ls_wait_spin_bound();
	return (uint16_t)(w < 2 ? 2 : w > 1024 ? 1024 : w);
}

/*
 * Waiting with ticket t (see ticket.h, "Waiting"): the waiters within the
 * spin window of the head spin for as long as the queue keeps moving, the
 * others park on their waiting-array bucket; the waiter that becomes next
 * (distance 1) wakes the ticket that enters the window, off the critical
 * path, so the next owners are usually already running when the lock is
 * released.  Correctness never depends on that early wake: the unlock
 * that grants t always wakes t's bucket.
 */
int ls_ticket_wait_slow(struct ls_ticket *l, uint16_t t, clockid_t clock,
                        const struct timespec *abstime)
{
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx ctx = { l, t };
	struct ls_twa_bucket *b = ls_twa_bucket(l, t);
	bool expired = false, woke_next = false;
	uint16_t win = spin_window();
	struct timespec retry;
	int r;
	ls_wait_enter(&sc);
	ls_wait_push(&f, leave_ticket, &ctx);
	for (;;) {
		/* acquire: pairs with the release CAS of the unlock that grants t. */
		uint16_t d = distance(l, t, memory_order_acquire);
		if (d == 0) {
			r = 0;
			break;
		}
		if (d == 1 && !woke_next) {
			if (ls_wait_cpu_free())
				ls_twa_wake(ls_twa_bucket(l, (uint16_t)(t + win - 1)));
			woke_next = true;
		}
		if (d <= win && !expired &&
		    LS_SPIN_UNTIL_MOVING(l, distance(l, t, memory_order_acquire) == 0,
		                         ls_ticket_grant(atomic_load_explicit(&l->word,
		                                                              memory_order_relaxed))))
			continue;
		uint32_t seq = ls_twa_enter(b);
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h); also
		 * acquire, pairing with the release CAS of unlock. */
		d = distance(l, t, memory_order_seq_cst);
		if (d == 0) {
			ls_twa_leave(b);
			r = 0;
			break;
		}
		if (expired) {
			r = abandon(l, t);
			if (r != EAGAIN) {
				ls_twa_leave(b);
				break;
			}
			retry = soon();
			ls_park(&b->seq, seq, CLOCK_MONOTONIC, &retry);
		} else if (d == 1 && !woke_next) {
			/* Became next since the check above: wake-ahead first. */
		} else if (ls_park(&b->seq, seq, clock, abstime) == ETIMEDOUT) {
			expired = true;
		}
		ls_twa_leave(b);
	}
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	return r;
}

int ls_ticket_lock_slow(struct ls_ticket *l, clockid_t clock, const struct timespec *abstime)
{
	if (abstime && ls_timespec_negative(abstime))
		return ls_ticket_trylock(l) == 0 ? 0 : ETIMEDOUT;
	struct ls_wait_scope sc;
	ls_wait_enter(&sc);
	uint64_t w = atomic_load_explicit(&l->word, memory_order_relaxed);
	if (ls_ticket_epoch_of(w) != ls_epoch_now(8))
		renew(l);
	/* acquire: pairs with the release CAS in unlock. */
	w = atomic_fetch_add_explicit(&l->word, LS_TICKET_NEXT_ONE, memory_order_acquire);
	int r = 0;
	if (ls_ticket_next(w) != ls_ticket_grant(w))
		r = ls_ticket_wait_slow(l, ls_ticket_next(w), clock, abstime);
	ls_wait_exit(&sc);
	return r;
}

static void release_ticket(struct ls_ticket *l, uint64_t w)
{
	uint32_t e = ls_epoch_now(8);
	uint64_t nw;
	uint16_t g;
	do {
		g = ls_ticket_grant(w);
		uint16_t n = ls_ticket_next(w);
		/* Unlocking a free lock is a tolerated misuse (glibc survives
		 * it): grant must not move ahead of next. */
		if (n == g)
			return;
		if (ls_ticket_epoch_of(w) != e) {
			/* Held since before a fork by this (the forking) thread:
			 * every waiter is a dead parent thread.  Release to free. */
			g = (uint16_t)(g + 1);
			nw = g | ((uint64_t)g << LS_TICKET_NEXT_SHIFT) |
			     ((uint64_t)e << LS_TICKET_EPOCH_SHIFT);
			continue;
		}
		/* Skip abandoned tickets; the bits stay relative to grant. */
		uint64_t bits = (w & LS_TICKET_ABANDON_MASK) >> LS_TICKET_ABANDON_SHIFT;
		bool skip;
		do {
			g = (uint16_t)(g + 1);
			skip = (bits & 1) && g != n;
			bits >>= 1;
		} while (skip);
		nw = (w & ~(LS_TICKET_GRANT_MASK | LS_TICKET_ABANDON_MASK)) | g |
		     (bits << LS_TICKET_ABANDON_SHIFT);
		/* seq_cst: release publishes the critical section to ticket g;
		 * seq_cst for the waiting array's protocol (core/runtime/twa.h). */
	} while (!atomic_compare_exchange_weak_explicit(&l->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	if (ls_ticket_next(nw) != g)
		ls_twa_wake(ls_twa_bucket(l, g));
}

/* Uncut by asynchronous cancellation (core/runtime/wait.h): a grant whose wake
 * were lost would leave the new owner asleep and the queue behind it. */
void ls_ticket_unlock_slow(struct ls_ticket *l, uint64_t w)
{
	struct ls_wait_scope sc;
	ls_wait_enter_quiet(&sc);
	release_ticket(l, w);
	ls_wait_exit(&sc);
}
