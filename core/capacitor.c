#include "capacitor.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include "futex.h"
#include "spin.h"
#include "thread.h"
#include "timespec.h"
#include "twa.h"

_Atomic unsigned ls_capacitor_bypass = 4;
_Atomic unsigned ls_capacitor_sem = LS_CAP_SEM_TWA;
_Atomic unsigned ls_capacitor_skip;
_Atomic unsigned ls_capacitor_mode = LS_CAP_MODE_ALWAYS;
_Atomic(ls_capacitor_trace_fn) ls_capacitor_trace;

#define DEPART_MASK (0xffffull << LS_CAP_DEPART_SHIFT)
#define BASE_MASK (0xffffull << LS_CAP_BASE_SHIFT)

/* The ticket semaphore sleeps on the word's low 32 bits (base, depart),
 * which change whenever a platoon opens. */
static _Atomic uint32_t *low_half(struct ls_capacitor *c)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (_Atomic uint32_t *)(void *)&c->word;
#else
	return (_Atomic uint32_t *)(void *)((char *)&c->word + 4);
#endif
}

/* Fork child: reset to a fresh platoon holding only the current holder. */
void ls_capacitor_renew(struct ls_capacitor *c)
{
	uint32_t e = ls_capacitor_epoch_now();
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	while (ls_capacitor_epoch_of(w) != e) {
		uint64_t nw = (w & LS_CAP_HOLDER) | ((uint64_t)e << LS_CAP_EPOCH_SHIFT) |
		              ((w & LS_CAP_HOLDER) ? LS_CAP_TICKET_ONE : 0);
		if (atomic_compare_exchange_weak_explicit(&c->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed))
			return;
	}
}

/* The departure that completed a platoon (w: the word after it) opens
 * the next one(s) and wakes the tickets they admit. */
void ls_capacitor_open_platoon(struct ls_capacitor *c, uint64_t w, unsigned b)
{
	uint64_t nw;
	uint32_t n;
	do {
		/* Departures that raced past B (credit departures) belong to the
		 * next platoons: open as many whole platoons as are complete. */
		n = ls_capacitor_depart_of(w) / b;
		uint64_t base = (uint16_t)(ls_capacitor_base_of(w) + n * b);
		nw = (w & ~(DEPART_MASK | BASE_MASK | LS_CAP_WAITERS)) |
		     ((uint64_t)(ls_capacitor_depart_of(w) - n * b) << LS_CAP_DEPART_SHIFT) |
		     (base << LS_CAP_BASE_SHIFT);
		/* seq_cst: the waiting array's protocol (core/twa.h). */
	} while (!atomic_compare_exchange_weak_explicit(&c->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	if (w & LS_CAP_WAITERS)
		ls_futex_wake(low_half(c), INT_MAX);
	/* Tickets already handed out beyond the old platoon, now admitted. */
	uint16_t first = (uint16_t)(ls_capacitor_base_of(w) + b);
	uint32_t outstanding = (uint16_t)(ls_capacitor_ticket_of(nw) - ls_capacitor_base_of(w));
	if (outstanding <= b)
		return;
	uint32_t nwake = outstanding - b < n * b ? outstanding - b : n * b;
	for (uint32_t i = 0; i < nwake; i++)
		ls_twa_wake(ls_twa_bucket(c, (uint16_t)(first + i)));
}

/* Timed out waiting in the semaphore with ticket t.  Returns 0 if t was
 * admitted meanwhile (the caller proceeds), ETIMEDOUT once the ticket is
 * taken back or paid for. */
static int give_back(struct ls_capacitor *c, uint16_t t, unsigned b)
{
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	for (;;) {
		if (ls_capacitor_admitted(w, t, b))
			return 0;
		if (ls_capacitor_ticket_of(w) != (uint16_t)(t + 1))
			break;
		if (atomic_compare_exchange_weak_explicit(&c->word, &w, w - LS_CAP_TICKET_ONE,
		                                          memory_order_relaxed, memory_order_relaxed))
			return ETIMEDOUT;
	}
	ls_capacitor_depart(c); /* on credit: see capacitor.h */
	return ETIMEDOUT;
}

int ls_capacitor_take_slow(struct ls_capacitor *c, uint16_t t, unsigned b, clockid_t clock,
                           const struct timespec *abstime)
{
	bool expired = abstime && ls_timespec_negative(abstime);
	unsigned sem = atomic_load_explicit(&ls_capacitor_sem, memory_order_relaxed);
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	/* Bounded spin (LOCKSWAP_SPIN polls); with twa only for the next
	 * platoon: a thread further back will sleep for a whole platoon. */
	if (!expired && (sem == LS_CAP_SEM_TICKET || ls_capacitor_admitted(w, t, 2 * b))) {
		for (unsigned i = ls_spin_bound(); i; i--) {
			if (ls_capacitor_admitted(atomic_load_explicit(&c->word, memory_order_relaxed), t, b))
				return 0;
			ls_cpu_relax();
		}
	}
	if (sem == LS_CAP_SEM_TICKET) {
		for (;;) {
			w = atomic_fetch_or_explicit(&c->word, LS_CAP_WAITERS, memory_order_relaxed);
			if (ls_capacitor_admitted(w, t, b))
				return 0;
			if (expired)
				return give_back(c, t, b);
			/* The CAS that opens a platoon changes base (the low half)
			 * and sees our WAITERS, so the wait cannot miss it. */
			if (ls_futex_wait(low_half(c), (uint32_t)w, clock, abstime) ==
			    ETIMEDOUT)
				expired = true;
		}
	}
	struct ls_twa_bucket *bk = ls_twa_bucket(c, t);
	for (;;) {
		uint32_t seq = ls_twa_enter(bk);
		/* seq_cst: the waiting array's protocol (core/twa.h). */
		if (ls_capacitor_admitted(atomic_load_explicit(&c->word, memory_order_seq_cst), t, b)) {
			ls_twa_leave(bk);
			return 0;
		}
		if (expired) {
			ls_twa_leave(bk);
			return give_back(c, t, b);
		}
		if (ls_twa_park(bk, seq, clock, abstime) == ETIMEDOUT)
			expired = true;
		ls_twa_leave(bk);
	}
}

/* Fractional bypass: true with probability skip/1000 (per-thread
 * xorshift; the state is plain data, not a waiter node). */
bool ls_capacitor_skip_draw(unsigned p)
{
	static __thread uint32_t rng;
	uint32_t x = rng ? rng : (uint32_t)(uintptr_t)&rng | 1u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng = x;
	return x % 1000u < p;
}

int ls_capacitor_trylock(struct ls_capacitor *c, const struct ls_lock_ops *in, void *inner)
{
	if (ls_capacitor_contended_mode() || ls_capacitor_skip_now())
		return in->trylock(inner);
	if (ls_capacitor_epoch_of(atomic_load_explicit(&c->word, memory_order_relaxed)) !=
	    ls_capacitor_epoch_now())
		ls_capacitor_renew(c);
	unsigned b = ls_capacitor_b();
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	do {
		if (!ls_capacitor_admitted(w, ls_capacitor_ticket_of(w), b))
			return EBUSY; /* closed: do not overtake its waiters */
	} while (!atomic_compare_exchange_weak_explicit(&c->word, &w, w + LS_CAP_TICKET_ONE,
	                                                memory_order_relaxed, memory_order_relaxed));
	ls_capacitor_traced(c, ls_capacitor_ticket_of(w));
	if (in->trylock(inner) != 0) {
		ls_capacitor_depart(c);
		return EBUSY;
	}
	ls_capacitor_mark_holder(c);
	return 0;
}

int ls_capacitor_timedlock(struct ls_capacitor *c, const struct ls_lock_ops *in, void *inner,
                           clockid_t clock, const struct timespec *abstime)
{
	if (ls_capacitor_contended_mode()) {
		if (in->trylock(inner) == 0)
			return 0;
	} else if (ls_capacitor_skip_now()) {
		return in->timedlock(inner, clock, abstime);
	}
	if (ls_capacitor_arrive(c, clock, abstime) != 0)
		return ETIMEDOUT;
	int r = in->timedlock(inner, clock, abstime);
	if (r != 0) {
		ls_capacitor_depart(c);
		return r;
	}
	ls_capacitor_mark_holder(c);
	return 0;
}
