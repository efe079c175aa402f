#include "capacitor.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include "../runtime/probes.h"
#include "../runtime/thread.h"
#include "../runtime/ticks.h"
#include "../runtime/timespec.h"
#include "../runtime/twa.h"
#include "../runtime/wait.h"

_Atomic unsigned ls_capacitor_bypass = 4;
_Atomic unsigned ls_capacitor_sem = LS_CAP_SEM_TWA;
_Atomic unsigned ls_capacitor_skip;
_Atomic unsigned ls_capacitor_mode = LS_CAP_MODE_ALWAYS;
_Atomic(ls_capacitor_trace_fn) ls_capacitor_trace;

static void traced(struct ls_capacitor *c, uint16_t t)
{
	ls_capacitor_trace_fn f = atomic_load_explicit(&ls_capacitor_trace, memory_order_relaxed);
	if (f)
		f(c, t);
}

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

/* Whether the current holder came through the semaphore (it holds one
 * credit of the current platoon). */
static bool holder_came_through(uint64_t w, const struct ls_lockable *in, void *inner)
{
	return ls_capacitor_marks_holder() ? (w & LS_CAP_HOLDER) != 0 : in->is_locked(inner);
}

/* A holder that came through the semaphore says so, where some do not. */
static void mark_holder(struct ls_capacitor *c)
{
	/* relaxed: only the inner lock's holder touches this bit; the inner
	 * lock orders the set/clear of successive holders. */
	if (ls_capacitor_marks_holder())
		atomic_fetch_or_explicit(&c->word, LS_CAP_HOLDER, memory_order_relaxed);
}

/* Fork child: reset to a fresh platoon holding only the current holder. */
__attribute__((noinline)) static void renew(struct ls_capacitor *c,
                                            const struct ls_lockable *in, void *inner)
{
	uint32_t e = ls_epoch_now(8);
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	while (ls_capacitor_epoch_of(w) != e) {
		bool held = holder_came_through(w, in, inner);
		uint64_t nw = (w & LS_CAP_HOLDER) | ((uint64_t)e << LS_CAP_EPOCH_SHIFT) |
		              (held ? LS_CAP_TICKET_ONE : 0);
		if (atomic_compare_exchange_weak_explicit(&c->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed))
			return;
	}
}

static inline void renew_if_forked(struct ls_capacitor *c, const struct ls_lockable *in,
                                   void *inner)
{
	if (__builtin_expect(ls_capacitor_epoch_of(atomic_load_explicit(&c->word,
	                                                                memory_order_relaxed)) !=
	                             ls_epoch_now(8),
	                     0))
		renew(c, in, inner);
}

/* Tickets that may spin: the admitted platoon, the next one, and as many
 * more as CPUs may spin (core/runtime/wait.h). */
static uint32_t spin_window(unsigned b)
{
	return b + ls_wait_spin_bound();
}

static bool in_window(uint64_t w, uint16_t t, unsigned b)
{
	return (uint16_t)(t - ls_capacitor_base_of(w)) < b + spin_window(b);
}

/* Wake the tickets base+from .. base+from+moved-1 among the `outstanding`
 * handed out from base (TWA: only buckets with a sleeper cost a syscall). */
static void wake_range(struct ls_capacitor *c, uint16_t base, uint32_t from,
                       uint32_t outstanding, uint32_t moved)
{
	if (outstanding <= from)
		return;
	uint32_t n = outstanding - from < moved ? outstanding - from : moved;
	for (uint32_t i = 0; i < n; i++)
		ls_twa_wake(ls_twa_bucket(c, (uint16_t)(base + from + i)));
}

/* Fractional bypass: true with probability LOCKSWAP_CAPACITOR_SKIP/1000. */
static bool skip_now(void)
{
	unsigned p = atomic_load_explicit(&ls_capacitor_skip, memory_order_relaxed);
	return p && ls_capacitor_skip_draw(p);
}

/* The departure that completed a platoon (w: the word after it) opens
 * the next one(s) and wakes the tickets they admit. */
void ls_capacitor_open_platoon(struct ls_capacitor *c, uint64_t w, unsigned b)
{
	uint64_t nw, base;
	uint32_t n;
	do {
		/* Departures that raced past B (credit departures) belong to the
		 * next platoons: open as many whole platoons as are complete. */
		n = ls_capacitor_depart_of(w) / b;
		base = (uint16_t)(ls_capacitor_base_of(w) + n * b);
		nw = (w & ~(LS_CAP_DEPART_MASK | LS_CAP_BASE_MASK | LS_CAP_WAITERS)) |
		     ((uint64_t)(ls_capacitor_depart_of(w) - n * b) << LS_CAP_DEPART_SHIFT) |
		     (base << LS_CAP_BASE_SHIFT);
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h). */
	} while (!atomic_compare_exchange_weak_explicit(&c->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	LS_PROBE3(capacitor_platoon, c, base, n);
	if (w & LS_CAP_WAITERS)
		ls_unpark(low_half(c), INT_MAX);
	/* Tickets already handed out beyond the old platoon: those now
	 * admitted, then (wake-ahead) those that now enter the spin window.
	 * Each wake costs a syscall only if its bucket has a sleeper. */
	uint32_t outstanding = (uint16_t)(ls_capacitor_ticket_of(nw) - ls_capacitor_base_of(w));
	if (outstanding <= b)
		return; /* nobody beyond the old platoon: the common uncontended case */
	wake_range(c, ls_capacitor_base_of(w), b, outstanding, n * b);
	if (ls_wait_cpu_free())
		wake_range(c, ls_capacitor_base_of(w), b + spin_window(b), outstanding, n * b);
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

/* A waiter in the spin window spins while the platoons keep moving (each
 * departure changes the word's low half) and the policy allows. */
static bool spin_admitted(struct ls_capacitor *c, uint16_t t, unsigned b)
{
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	return in_window(w, t, b) &&
	       LS_SPIN_UNTIL_MOVING(c,
	                            ls_capacitor_admitted(atomic_load_explicit(&c->word,
	                                                                       memory_order_relaxed),
	                                                  t, b),
	                            atomic_load_explicit(low_half(c), memory_order_relaxed));
}

/* Threads inside the capacitor: tickets handed out since base, less the
 * departures of the current platoon (holders, admitted members on their
 * way to the inner lock, and waiters). */
static uint32_t inside(uint64_t w)
{
	int32_t n = (int32_t)(uint16_t)(ls_capacitor_ticket_of(w) - ls_capacitor_base_of(w)) -
	            (int32_t)ls_capacitor_depart_of(w);
	return n > 0 ? (uint32_t)n : 0;
}

/* Departures still needed before ticket t is admitted (t not admitted:
 * t - base >= b): the rest of the current platoon, then b per platoon
 * between it and t's. */
static uint32_t departures_ahead(uint64_t w, uint16_t t, unsigned b)
{
	uint32_t d = (uint16_t)(t - ls_capacitor_base_of(w));
	uint32_t left = b - ls_capacitor_depart_of(w);
	return left + b * ((d - b) / b);
}

/*
 * The case the Capacitors paper measures: no more threads inside than
 * CPUs.  Each waiter has a CPU of its own then, so parking saves nobody
 * anything and costs the platoon hand-over a wake-up (~7 us on a 2-CPU VM,
 * against ~40 ns per short critical section).  So while every thread
 * inside has a CPU, a waiter spins until admitted without taking a place
 * in the policy's shared spinner count: with 2 CPUs that count admits one
 * spinner, which the member of the admitted platoon spinning on the inner
 * lock usually holds at the instant the next platoon's member arrives, so
 * the latter parked between nearly every pair of platoons (measured:
 * ~1 park per 50 acquisitions of capacitor:tts at 2 threads).
 *
 * Polls back off in proportion to the departures still ahead
 * (LS_CAP_POLL_NS of the time-stamp counter each, at most LS_CAP_POLL_AHEAD
 * counted).  Two reasons.  The word shares its cache line with the inner
 * lock, and each read of it after a holder's write takes the line from
 * the holder, whose next ticket, inner-lock and departure writes then
 * each wait for it.  And a waiter that stays away a little past its
 * admission lets the thread that holds the inner lock run its remaining
 * tickets of the platoon with the lines in its own cache: at 2 threads on
 * 2 CPUs, capacitor:futex ran at 0.39x futex polling every 2 pauses,
 * 0.64x every 16 (211 ns on the project's Intel VM, where a pause takes
 * 13 ns), 0.87-1.06x every 300-400 ns, and slower again from 600 ns
 * (docs/results.md section 11).  Time, not a count of pauses: a pause
 * takes a few cycles on some x86 CPUs and over a hundred on others, so
 * the same count was a different back-off on each machine (16 pauses had
 * suited the earlier AMD VM).  The wait this adds to an admission is
 * short and seldom on the critical path: while threads <= CPUs, the
 * members already admitted keep the inner lock busy.
 *
 * Bounds: it stops when more threads are inside than CPUs (the policy's
 * counted spin, then parking, take over: oversubscribed, a spinner would
 * take the CPU of a thread that can make progress), when the word has not
 * moved for LS_CAP_STALL_NS (LS_SPIN_QUEUE_MIN_NS, above the cost of a
 * hand-over to a parked thread: a member it waits for was preempted, most
 * likely by another process; it parks and the platoon change wakes it), and at the
 * deadline, if any (the clock is read every 8 polls, 3.2 us or more).
 * Admission is decided by the word alone, so the B-1 bound does not
 * depend on who spins.
 */
#define LS_CAP_POLL_NS 400u
#define LS_CAP_POLL_AHEAD 8u

/* The stall bound above.  A build may set another: scripts/manycore/
 * capacitor.sh builds one at 200 us to test, on a many-core VM, whether
 * wake-ups slower than the bound keep the waiters parked (each platoon
 * opening then waits for wake-ups, the waiters of the next platoons see
 * no progress meanwhile and park too; docs/results.md, "The capacitor
 * beyond 9 threads"). */
#ifndef LS_CAP_STALL_NS
#define LS_CAP_STALL_NS LS_SPIN_QUEUE_MIN_NS
#endif

static bool spin_own_cpu(struct ls_capacitor *c, uint16_t t, unsigned b, clockid_t clock,
                         const struct timespec *abstime)
{
	uint32_t n = ls_wait_cpus();
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	uint32_t mark = (uint32_t)w; /* base and depart: move at every departure */
	uint64_t step = 0;
	uint64_t poll_ticks = ls_ticks_per_us() * LS_CAP_POLL_NS / 1000;
	for (uint32_t polls = 1;; polls++) {
		if (ls_capacitor_admitted(w, t, b))
			return true;
		if (inside(w) > n)
			return false;
		/* At least one departure (a credit departure can leave depart
		 * at b or past it until the platoon opens), at most the cap. */
		uint32_t ahead = departures_ahead(w, t, b);
		if (ahead - 1 >= LS_CAP_POLL_AHEAD)
			ahead = ahead ? LS_CAP_POLL_AHEAD : 1;
		/* The counter, not the clock: no system call, no shared line. */
		uint64_t until = ls_ticks() + ahead * poll_ticks;
		while (ls_ticks() < until)
			ls_cpu_relax();
		/* relaxed: admission orders no data (the inner lock does). */
		w = atomic_load_explicit(&c->word, memory_order_relaxed);
		if (polls & 7)
			continue;
		if (ls_timespec_passed(clock, abstime))
			return false;
		uint64_t now = ls_now_ns(CLOCK_MONOTONIC);
		if ((uint32_t)w != mark || !step) {
			mark = (uint32_t)w;
			step = now;
		} else if (now - step > LS_CAP_STALL_NS) {
			return false;
		}
	}
}

/* Awake until admitted, if either spin allows it. */
static bool spin(struct ls_capacitor *c, uint16_t t, unsigned b, clockid_t clock,
                 const struct timespec *abstime)
{
	return spin_own_cpu(c, t, b, clock, abstime) || spin_admitted(c, t, b);
}

int ls_capacitor_take_slow(struct ls_capacitor *c, uint16_t t, unsigned b, clockid_t clock,
                           const struct timespec *abstime)
{
	bool expired = abstime && ls_timespec_negative(abstime);
	unsigned sem = atomic_load_explicit(&ls_capacitor_sem, memory_order_relaxed);
	if (!expired && spin(c, t, b, clock, abstime))
		return 0;
	if (sem == LS_CAP_SEM_TICKET) {
		for (;;) {
			uint64_t w = atomic_fetch_or_explicit(&c->word, LS_CAP_WAITERS,
			                                      memory_order_relaxed);
			if (ls_capacitor_admitted(w, t, b))
				return 0;
			if (expired)
				return give_back(c, t, b);
			/* The CAS that opens a platoon changes base (the low half)
			 * and sees our WAITERS, so the wait cannot miss it. */
			if (ls_park(low_half(c), (uint32_t)w, clock, abstime) == ETIMEDOUT)
				expired = true;
			else if (spin(c, t, b, clock, abstime))
				return 0;
		}
	}
	struct ls_twa_bucket *bk = ls_twa_bucket(c, t);
	for (;;) {
		uint32_t seq = ls_twa_enter(bk);
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h). */
		if (ls_capacitor_admitted(atomic_load_explicit(&c->word, memory_order_seq_cst), t, b)) {
			ls_twa_leave(bk);
			return 0;
		}
		if (expired) {
			ls_twa_leave(bk);
			return give_back(c, t, b);
		}
		if (ls_park(&bk->seq, seq, clock, abstime) == ETIMEDOUT)
			expired = true;
		ls_twa_leave(bk);
		/* Woken: admitted, or woken ahead into the spin window. */
		if (!expired && spin(c, t, b, clock, abstime))
			return 0;
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

int ls_capacitor_trylock(struct ls_capacitor *c, const struct ls_lockable *in, void *inner)
{
	if (ls_capacitor_contended_mode() || skip_now())
		return in->trylock(inner);
	renew_if_forked(c, in, inner);
	unsigned b = ls_capacitor_b();
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	do {
		if (!ls_capacitor_admitted(w, ls_capacitor_ticket_of(w), b))
			return EBUSY; /* closed: do not overtake its waiters */
	} while (!atomic_compare_exchange_weak_explicit(&c->word, &w, w + LS_CAP_TICKET_ONE,
	                                                memory_order_relaxed, memory_order_relaxed));
	traced(c, ls_capacitor_ticket_of(w));
	if (in->trylock(inner) != 0) {
		ls_capacitor_depart(c);
		return EBUSY;
	}
	mark_holder(c);
	return 0;
}

struct leave_ctx {
	struct ls_capacitor *c;
	uint16_t t;
	unsigned b;
	bool admitted;
};

/* Cancelled while waiting: give the ticket back as a timeout would, or,
 * once admitted (the inner lock's own leave step has run), depart. */
static void leave_capacitor(void *arg)
{
	struct leave_ctx *x = arg;
	if (x->admitted || give_back(x->c, x->t, x->b) == 0)
		ls_capacitor_depart(x->c);
}

/* Arrive (take a ticket, wait for its platoon), then the inner lock. */
int ls_capacitor_arrive(struct ls_capacitor *c, const struct ls_lockable *in, void *inner,
                        clockid_t clock, const struct timespec *abstime)
{
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	ls_wait_enter(&sc);
	renew_if_forked(c, in, inner);
	struct leave_ctx x = { .c = c, .b = ls_capacitor_b() };
	/* relaxed: the semaphore orders no data (the inner lock does). */
	uint64_t w = atomic_fetch_add_explicit(&c->word, LS_CAP_TICKET_ONE, memory_order_relaxed);
	x.t = ls_capacitor_ticket_of(w);
	traced(c, x.t);
	ls_wait_push(&f, leave_capacitor, &x);
	int r = 0;
	if (!ls_capacitor_admitted(w, x.t, x.b))
		r = ls_capacitor_take_slow(c, x.t, x.b, clock, abstime);
	if (r == 0) {
		x.admitted = true;
		r = abstime ? in->timedlock(inner, clock, abstime) : in->lock(inner);
		if (r != 0)
			ls_capacitor_depart(c);
		else
			mark_holder(c);
	}
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	return r;
}

int ls_capacitor_admit_then_lock(struct ls_capacitor *c, const struct ls_lockable *in,
                                 void *inner, uint16_t t, unsigned b)
{
	ls_capacitor_take_slow(c, t, b, CLOCK_MONOTONIC, NULL); /* 0: no deadline */
	return in->lock(inner);
}

int ls_capacitor_acquire(struct ls_capacitor *c, const struct ls_lockable *in, void *inner,
                         clockid_t clock, const struct timespec *abstime)
{
	if (ls_capacitor_contended_mode()) {
		if (in->trylock(inner) == 0)
			return 0;
	} else if (skip_now()) {
		return abstime ? in->timedlock(inner, clock, abstime) : in->lock(inner);
	}
	return ls_capacitor_arrive(c, in, inner, clock, abstime);
}
