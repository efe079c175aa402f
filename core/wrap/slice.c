#include "slice.h"
#include "slice_share.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>

#include "../runtime/probes.h"
#include "../runtime/thread.h"
#include "../runtime/timespec.h"
#include "../runtime/twa.h"
#include "../runtime/wait.h"

_Atomic unsigned ls_slice_us = 250;
_Atomic unsigned ls_slice_gap_ns = 300;
_Atomic unsigned ls_slice_busy_pays = 1;
_Atomic unsigned ls_slice_seats = 0;
_Atomic unsigned ls_slice_wake_us = 0;
_Atomic(ls_slice_trace_fn) ls_slice_trace;
_Atomic unsigned ls_slice_counts_on;
struct ls_slice_counts ls_slice_counts;
__thread struct ls_slice_self ls_slice_self __attribute__((tls_model("initial-exec")));

#define NEXT_MASK (LS_SL_TICKET_MASK << LS_SL_NEXT_SHIFT)
/* What a slice's end clears: no owner, no group, no watch. */
#define SLICE_BITS                                                                       \
	(LS_SL_OWNED | LS_SL_GROUP | LS_SL_RUN | LS_SL_MARKED | LS_SL_MARK_MASK | CALL_BITS)
/* The call (call_head): cleared at every slice's start and end. */
#define CALL_BITS (LS_SL_AWAKE | LS_SL_CALLED | LS_SL_CALLER_MASK)

unsigned ls_slice_group_size(void)
{
	unsigned k = atomic_load_explicit(&ls_slice_seats, memory_order_relaxed);
	if (k == LS_SLICE_SEATS_AUTO)
		k = ls_wait_cpus() + 1;
	return k >= 2 ? k : 0;
}

/* LOCKSWAP_SLICE_COUNTS: add d to counter c (relaxed: a report, read at exit). */
static void count(_Atomic uint64_t *c, uint64_t d)
{
	if (atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed))
		atomic_fetch_add_explicit(c, d, memory_order_relaxed);
}

/* A new owner's first acquisition: the time since the latest hand-over
 * (of any lock: with one hot lock, its own), if that was recent enough to
 * be its own (under 100 ms). */
static void count_handover_gap(void)
{
	uint64_t then = atomic_exchange_explicit(&ls_slice_counts.last_handover, 0,
	                                         memory_order_relaxed);
	if (!then)
		return;
	uint64_t ns = ls_ticks_since(then, ls_ticks()) * 1000u / ls_ticks_per_us();
	if (ns < 100000000u) {
		count(&ls_slice_counts.gap_ns, ns);
		count(&ls_slice_counts.gaps, 1);
	}
}

static void counted_event(int ev)
{
	struct ls_slice_counts *c = &ls_slice_counts;
	switch (ev) {
	case LS_SL_TRACE_OPENED: count(&c->opened, 1); break;
	case LS_SL_TRACE_QUEUED: count(&c->queued, 1); break;
	case LS_SL_TRACE_HANDOVER: count(&c->handovers, 1); break;
	case LS_SL_TRACE_CLOSED: count(&c->closed, 1); break;
	case LS_SL_TRACE_FLUSH_GAP: count(&c->not_paying, 1); break;
	case LS_SL_TRACE_TAKEOVER: count(&c->takeovers, 1); break;
	case LS_SL_TRACE_FLUSH_GHOST:
	case LS_SL_TRACE_FLUSH_SHARED: count(&c->flushes, 1); break;
	case LS_SL_TRACE_GROUP: count(&c->groups, 1); break;
	case LS_SL_TRACE_SEAT: count(&c->seats, 1); break;
	}
}

static void traced(struct ls_slice *r, int ev, uint32_t t, uint32_t ahead)
{
	ls_slice_trace_fn f = atomic_load_explicit(&ls_slice_trace, memory_order_relaxed);
	if (f)
		f(r, ev, t, ahead);
	if (atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed))
		counted_event(ev);
}

static uint64_t with_grant(uint64_t w, uint32_t g)
{
	return (w & ~LS_SL_TICKET_MASK) | (g & LS_SL_TICKET_MASK);
}

static uint64_t with_next(uint64_t w, uint32_t n)
{
	return (w & ~NEXT_MASK) | ((uint64_t)(n & LS_SL_TICKET_MASK) << LS_SL_NEXT_SHIFT);
}

/* Ticket t served: t < grant as a signed 14-bit difference. */
static bool served(uint64_t w, uint32_t t)
{
	uint32_t d = (t - ls_slice_grant_of(w)) & LS_SL_TICKET_MASK;
	return d >= (1u << (LS_SL_TICKET_BITS - 1));
}

/* ---- time ------------------------------------------------------------- */

static uint32_t coarse_now(void)
{
	return (uint32_t)(ls_now_ns(CLOCK_MONOTONIC) >> 20) & 0xffu;
}

/* In the quiet period: QUIET set and `quiet` still ahead (a signed 8-bit
 * difference; a quiet left unexamined for over ~130 ms may be misread
 * once, for at most one more period). */
static bool quiet(uint64_t w)
{
	if (!(w & LS_SL_QUIET))
		return false;
	uint32_t end = (uint32_t)((w & LS_SL_QUIET_MASK) >> LS_SL_QUIET_SHIFT);
	return (int8_t)(uint8_t)(end - coarse_now()) > 0;
}

static uint64_t with_quiet(uint64_t w, uint32_t units)
{
	uint64_t end = (coarse_now() + units) & 0xffu;
	return (w & ~LS_SL_QUIET_MASK) | LS_SL_QUIET | (end << LS_SL_QUIET_SHIFT);
}

/* The next slice generation (8 bits, wrapping inside its field). */
static uint64_t with_next_gen(uint64_t w)
{
	uint64_t g = (ls_slice_gen_of(w) + 1) & 0xffu;
	return (w & ~LS_SL_GEN_MASK) | (g << LS_SL_GEN_SHIFT);
}

/* The slice passed on to the tickets below `to` as a new generation:
 * its owner has not run yet, nobody watches it or has been called for it,
 * and it is unproven (end_slice, watch, spin_for_hand_over; GROUP and the
 * rest as they were). */
static uint64_t passed_on(uint64_t w, uint32_t to)
{
	return with_next_gen(with_grant(w, to)) &
	       ~(LS_SL_RUN | LS_SL_MARKED | LS_SL_MARK_MASK | LS_SL_PROVEN | CALL_BITS);
}

/* Flush: everyone queued is let go, no slice. */
static uint64_t flushed(uint64_t w)
{
	return with_grant(w, ls_slice_next_of(w)) & ~(SLICE_BITS | LS_SL_GHOST | LS_SL_PROVEN);
}

/* A slice's end that serves nobody in particular: with nobody queued it
 * closes; with an abandoned ticket among those queued (GHOST) it lets
 * everyone go.  Sets *nw, *to (the tickets to wake end) and *ev, or
 * returns false: there is a head to serve. */
static bool end_without_turn(uint64_t w, uint64_t *nw, uint32_t *to, int *ev)
{
	if (ls_slice_queue_of(w) == 0) {
		*nw = w & ~(SLICE_BITS | LS_SL_PROVEN);
		*ev = LS_SL_TRACE_CLOSED;
		return true;
	}
	if (w & LS_SL_GHOST) {
		*nw = flushed(w);
		*to = ls_slice_next_of(w);
		*ev = LS_SL_TRACE_FLUSH_GHOST;
		return true;
	}
	return false;
}

/* Wake the buckets of tickets from..to-1. */
static void wake_range(struct ls_slice *r, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; ((to - i) & LS_SL_TICKET_MASK) != 0; i++)
		ls_twa_wake(ls_twa_bucket(r, i & LS_SL_TICKET_MASK));
}

/* ---- fork ------------------------------------------------------------- */

/* Fork child: open, nobody queued, this epoch (and the inner lock's
 * reservation cleared). */
static uint64_t renew(struct ls_slice *r, const struct ls_lockable *in, void *inner, uint64_t w)
{
	uint32_t e = ls_epoch_now(7);
	while (ls_slice_epoch_of(w) != e) {
		uint64_t nw = (uint64_t)e << LS_SL_EPOCH_SHIFT;
		/* relaxed: orders no data (the inner lock does). */
		if (atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed)) {
			ls_slice_mirror(r, in, inner);
			return nw;
		}
	}
	return w;
}

void ls_slice_mirror(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	if (!in->reserve)
		return;
	/* seq_cst loads around the reserve's seq_cst RMW: in their single
	 * order, the last reserve made is followed by its own re-check, so
	 * it matches OWNED as of then, and a later change of OWNED brings a
	 * later mirror. */
	for (int round = 0; round < 4; round++) {
		bool on = atomic_load_explicit(&r->word, memory_order_seq_cst) & LS_SL_OWNED;
		in->reserve(inner, on);
		if (((atomic_load_explicit(&r->word, memory_order_seq_cst) & LS_SL_OWNED) != 0) == on)
			return;
	}
}

/* The calling thread's CPU time and involuntary context switches (it was
 * preempted: something else wanted its CPU).  One getrusage per slice,
 * and only where the gaps alone do not make the slice pay. */
static struct ls_cpu_use cpu_use(void)
{
	struct rusage ru;
	struct ls_cpu_use u = { 0, 0 };
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		u.cpu_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
		           (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
		u.preempted = (uint64_t)ru.ru_nivcsw;
	}
	return u;
}

/* ---- slices ----------------------------------------------------------- */

/* What an owner's lock call costs between its clock read and holding the
 * lock: an ordered clock read (ls_ticks_ordered) and an uncontended
 * atomic RMW, the least of 64 tries, measured once.  Each timed hold is
 * shortened by this much; otherwise, with MutexBench's 10-step sections,
 * the call counts about as much as the section, and threads with short
 * sections get less of the lock than threads with long ones (0.77 of an
 * equal hold share, not 0.8-1.25).  The reads are ordered because a
 * timed hold stands for the untimed ones around it: an unordered read
 * times however much of the section the CPU got through out of order (a
 * 10-step section measured 8 ticks, a 100-step one 388, against 52 and
 * 474 ordered), and short sections, seeming idle, lost their slices
 * (0.73 of an equal hold share). */
static uint64_t entry_ticks(void)
{
	static _Atomic uint64_t measured; /* + 1; 0 = not yet */
	uint64_t e = atomic_load_explicit(&measured, memory_order_relaxed);
	if (e)
		return e - 1;
	_Atomic uint32_t word = 0;
	e = UINT64_MAX;
	for (int i = 0; i < 64; i++) {
		uint64_t t0 = ls_ticks_ordered();
		uint32_t expect = 0;
		atomic_compare_exchange_strong(&word, &expect, 1);
		uint64_t t = ls_ticks_since(t0, ls_ticks_ordered());
		atomic_store_explicit(&word, 0, memory_order_relaxed);
		if (t < e)
			e = t;
	}
	/* relaxed: racing threads store equally good results. */
	atomic_store_explicit(&measured, e + 1, memory_order_relaxed);
	return e;
}

/* The caller now owns generation gen of r: alone, or (group) as one of
 * its members. */
static void own(struct ls_slice *r, uint32_t gen, bool group)
{
	struct ls_slice_self *s = &ls_slice_self;
	uint64_t per_us = ls_ticks_per_us();
	uint64_t us = atomic_load_explicit(&ls_slice_us, memory_order_relaxed);
	s->lock = r;
	s->gen = gen;
	s->expect = LS_SL_OWNED | (uint64_t)gen << LS_SL_GEN_SHIFT;
	s->n = 0;
	s->gaps = 0;
	s->gap_sum = 0;
	s->left = 1;
	s->stand = 1;
	s->timed = false;
	s->group = group;
	s->hold = 0;
	/* Equal slices, or scaled by the thread's nice value (slice_share.h). */
	s->budget = ls_slice_share_budget(us * per_us);
	s->wall = s->budget * LS_SLICE_WALL_FACTOR;
	s->bar = atomic_load_explicit(&ls_slice_gap_ns, memory_order_relaxed) * per_us / 1000u;
	s->dense = LS_SLICE_DENSE_NS * per_us / 1000u;
	s->entry = entry_ticks();
	s->wake_limit = atomic_load_explicit(&ls_slice_wake_us, memory_order_relaxed) * per_us;
	/* A group's members pass seats, not slices: no head to call. */
	s->called = group || s->wake_limit == 0;
	s->start = s->rel = s->acq = ls_ticks();
	s->rng = (uint32_t)s->start | 1u; /* xorshift32: any state but 0 */
	/* Only an owner alone asks pays() whether it was preempted. */
	s->cpu0 = group ? (struct ls_cpu_use){ 0, 0 } : cpu_use();
}

/* The owner got the inner lock for the first time in its slice. */
static void owner_running(struct ls_slice *r)
{
	/* relaxed: a progress sign for the head watch, orders nothing. */
	atomic_fetch_or_explicit(&r->word, LS_SL_RUN, memory_order_relaxed);
	ls_slice_owner_acquired(r);
}

/* The owner's returns to the lock (the probe's gaps: the first
 * acquisition of a slice has none, and only the probe's are timed) took no
 * longer than the bar on average, each counted for at most
 * LS_SLICE_GAP_CLIP bars (so that one preemption outside the lock does not
 * condemn a slice: with 31 gaps of 100 ns and one of 1 ms the mean is
 * 134 ns).  The mean, not the share of short gaps it replaced (issue 45):
 * a slice pays when its owner's next acquisition comes sooner than the
 * lock could reach another CPU (the bar), which is a statement about the
 * mean cycle; a workload whose gaps alternate between short and long
 * (LevelDB's readers take the DB mutex twice per read, a few microseconds
 * apart, and again within a few hundred nanoseconds for the next read)
 * passed the share rule with half its gaps short, while its owner's mean
 * cycle is several bars long (docs/algorithms-locks.md, "Only where it
 * pays"). */
static bool short_gaps(const struct ls_slice_self *s)
{
	return s->gaps == 0 || s->gap_sum <= s->gaps * s->bar;
}

/* Does the slice pay?  Yes with short gaps.  If not, the parallel work the
 * slice forfeits is only real if a CPU was free for it: a slice whose owner
 * was preempted and got less than half of a CPU over its wall time ran on a
 * machine with no CPU to spare (other processes, or more threads than
 * CPUs), and it still pays (LOCKSWAP_SLICE_BUSY; an owner that slept
 * outside the lock was not preempted for it).  At the probe, long gaps end
 * the slice at once if the owner was never preempted; if it was, the
 * decision waits for the slice's end (`final`), since the CPU share needs
 * the slice's length to mean anything. */
static bool pays(const struct ls_slice_self *s, uint64_t now, bool final)
{
	if (short_gaps(s))
		return true;
	if (!atomic_load_explicit(&ls_slice_busy_pays, memory_order_relaxed))
		return false;
	struct ls_cpu_use u = cpu_use();
	if (u.preempted == s->cpu0.preempted)
		return false; /* never preempted: a CPU was there for the owner */
	uint64_t wall_us = ls_ticks_since(s->start, now) / ls_ticks_per_us();
	return !final || 2 * (u.cpu_us - s->cpu0.cpu_us) < wall_us;
}

/* The slice went to tickets t..t+n-1 (ev: HANDOVER to one, GROUP to n):
 * the USDT probe, and for one owner the time its first acquisition's gap
 * counts from (LOCKSWAP_SLICE_COUNTS). */
static void handed_over(struct ls_slice *r, int ev, uint32_t t, uint32_t n)
{
	if (ev == LS_SL_TRACE_HANDOVER &&
	    atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed))
		atomic_store_explicit(&ls_slice_counts.last_handover, ls_ticks(), memory_order_relaxed);
	LS_PROBE3(slice_handover, r, t & LS_SL_TICKET_MASK, n);
}

/* End the caller's slice of r (it no longer holds the inner lock).
 * `paying`: the owner's returns to the lock say a slice of one pays (see
 * pays()).  If not, and at least k threads wait (k = ls_slice_group_size,
 * LOCKSWAP_SLICE_SEATS), the next slice is a group: the lock is not the
 * bottleneck, so one owner would leave CPUs idle, but the waiters are
 * more than the CPUs, so letting them all go would leave the shares to
 * the CPU scheduler (MutexBench's moderate section at 32 threads on 2
 * CPUs: min share 0.66-0.74, as glibc's); a group keeps the CPUs busy and
 * rotates the rest in FIFO order (off by default: groups cost LevelDB
 * readrandom 3-12% at 8-32 threads on 2 CPUs).  Otherwise the queue is
 * flushed and slices rest for ~64 ms (QUIET, LS_SLICE_QUIET_UNITS).
 * Each clears RUN, MARKED and the mark (SLICE_BITS):
 *   nobody queued   (g, g, OWNED)       -> (g, g, QUIET)       closed, quiet = now + ~8 ms
 *   a ghost queued  (g, n, OWNED|GHOST) -> (n, n, -)           flushed, wake g..n-1
 *   paying          (g, n, OWNED)       -> (g+1, n, OWNED)     gen+1: the head owns it;
 *                                                              wake g and the new head g+1
 *   not paying,     (g, n, OWNED)       -> (g+k, n, OWNED|GROUP)  gen+1: the k oldest
 *     n-g >= k                                                    share it; wake g..g+k
 *   not paying      (g, n, OWNED)       -> (n, n, QUIET)       flushed, quiet = now + ~64 ms;
 *                                                              wake g..n-1 */
static void end_slice(struct ls_slice *r, const struct ls_lockable *in, void *inner, bool paying,
                      bool hot)
{
	uint32_t gen = ls_slice_self.gen;
	bool member = ls_slice_self.group;
	ls_slice_self.lock = NULL;
	if (atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed)) {
		count(&ls_slice_counts.acqs, ls_slice_self.n);
		count(&ls_slice_counts.us,
		      ls_ticks_since(ls_slice_self.start, ls_ticks()) / ls_ticks_per_us());
	}
	uint32_t k = ls_slice_group_size();
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	uint32_t from, to, served_n;
	int ev;
	do {
		if (ls_slice_epoch_of(w) != ls_epoch_now(7)) {
			renew(r, in, inner, w);
			return;
		}
		/* Taken from this owner while it was on its way here (it was
		 * descheduled in its release): by the watch, or by a head it
		 * had called (spin_for_hand_over).  The slice now in the word is
		 * the taker's, not this owner's to end (a member of an earlier
		 * group goes on while GROUP is set, as ls_slice_mine says). */
		if ((w & LS_SL_OWNED) && ls_slice_gen_of(w) != gen && !(member && (w & LS_SL_GROUP)))
			return;
		uint32_t queue = ls_slice_queue_of(w);
		bool group = !paying && k != 0 && queue >= k && !(w & LS_SL_GHOST);
		from = to = ls_slice_grant_of(w);
		served_n = 1;
		if (!paying && !group) {
			nw = with_quiet(flushed(w), LS_SLICE_QUIET_UNITS);
			to = ls_slice_next_of(w);
			ev = LS_SL_TRACE_FLUSH_GAP;
		} else if (end_without_turn(w, &nw, &to, &ev)) {
			/* Nobody waited for the slice at this release: the
			 * contention that opened it is over, so slices rest a
			 * little (LS_SLICE_CLOSE_QUIET_UNITS), as the lock does
			 * for a slice that does not pay, only shorter: a lock
			 * contended now and then otherwise opened a slice at
			 * almost every contended arrival (LevelDB readrandom, 8
			 * threads on 2 CPUs: about 1,500 a second, 85% of them
			 * closed at their owner's first release, and 750-1,100
			 * arrivals a second queued behind them for a wake-up,
			 * where the futex lock would have let them spin).  A
			 * lock that is the bottleneck never closes a slice: its
			 * queue is never empty. */
			if (ev == LS_SL_TRACE_CLOSED)
				nw = with_quiet(nw, LS_SLICE_CLOSE_QUIET_UNITS);
		} else {
			/* Hand over to the head (or, as a group, to the k
			 * oldest); wake them and the new head, which takes up
			 * the watch. */
			served_n = group ? k : 1;
			nw = passed_on(w, from + served_n) & ~LS_SL_GROUP;
			if (group)
				nw |= LS_SL_GROUP;
			else if (hot)
				nw |= LS_SL_PROVEN; /* see ls_slice_released_end */
			to = from + served_n + (queue > served_n);
			ev = group ? LS_SL_TRACE_GROUP : LS_SL_TRACE_HANDOVER;
		}
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h): pairs
		 * with the waiter's seq_cst re-check of grant. */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	/* Before the wake-ups: a woken waiter let go should find the lock
	 * open, not reserved for a slice that has ended. */
	if (!(nw & LS_SL_OWNED))
		ls_slice_mirror(r, in, inner);
	traced(r, ev, from & LS_SL_TICKET_MASK, ev == LS_SL_TRACE_GROUP ? served_n : 0);
	if (ev == LS_SL_TRACE_HANDOVER || ev == LS_SL_TRACE_GROUP)
		handed_over(r, ev, from, served_n);
	wake_range(r, from, to);
}

/* A member of a group slice leaves: at its seat's end, or before (it is
 * about to block, timed out, or was cancelled):
 *   nobody queued  (g, g, OWNED|GROUP)       -> (g, g, -)            closed
 *   a ghost        (g, n, OWNED|GROUP|GHOST) -> (n, n, -)            flushed, wake g..n-1
 *   else           (g, n, OWNED|GROUP)       -> (g+1, n, OWNED|GROUP)  same gen: ticket g takes
 *                                                                      the seat; wake g, g+1
 *   another gen, or not OWNED: no change (a later group took the seat).  Its seat goes to the
 * head, in the same generation: seats rotate one at a time, so the other
 * members keep the CPUs busy while the new one wakes (a whole group
 * changing at once left a CPU idle for each wake-up: 0.78x glibc against
 * 0.83x on MutexBench's moderate section, 32 threads on 2 CPUs).  A
 * member of an earlier group passes nothing: the group that followed took
 * its seat.  With nobody queued the group closes (the members left go on
 * as in an open lock: there is nobody to restrict them for).  Each member
 * leaves at its own seat's end (the wall limit, ls_slice_spent); about
 * one seat's end in LS_SLICE_GROUP_RENEW starts a new group instead (the k
 * oldest again, ls_slice_unlock_end), which bounds how long a seat can
 * stay lost to a member that went elsewhere. */
static void pass_seat(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	uint32_t gen = ls_slice_self.gen;
	ls_slice_self.lock = NULL;
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	uint32_t from, to;
	int ev;
	do {
		if (ls_slice_epoch_of(w) != ls_epoch_now(7)) {
			renew(r, in, inner, w);
			return;
		}
		if (!(w & LS_SL_OWNED) || ls_slice_gen_of(w) != gen)
			return; /* a later group, or none: the seat is gone */
		from = to = ls_slice_grant_of(w);
		if (!end_without_turn(w, &nw, &to, &ev)) {
			nw = with_grant(w, from + 1);
			to = from + 1 + (ls_slice_queue_of(w) > 1);
			ev = LS_SL_TRACE_SEAT;
		}
		/* seq_cst: moves grant (core/runtime/twa.h). */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	if (!(nw & LS_SL_OWNED))
		ls_slice_mirror(r, in, inner);
	traced(r, ev, from & LS_SL_TICKET_MASK, 0);
	wake_range(r, from, to);
}

/* The caller's slice of r ends before its time (it released the inner
 * lock at `now`, or 0: it does not hold it): a member passes its seat, an
 * only owner hands the slice on (or lets go, as end_slice decides). */
static void leave_early(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                        uint64_t now)
{
	if (ls_slice_self.group)
		pass_seat(r, in, inner);
	else
		end_slice(r, in, inner, now == 0 || pays(&ls_slice_self, now, true), false);
}

/* The owner of generation gen passed its probe: mark the slice PROVEN, so
 * that the waiters' watch, should the owner stall, takes the slice over
 * rather than letting the queue go (watch).  relaxed: a hint to the watch,
 * orders nothing; a slice ended meanwhile is left alone. */
static void prove(struct ls_slice *r, uint32_t gen)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	while ((w & LS_SL_OWNED) && !(w & (LS_SL_PROVEN | LS_SL_GROUP)) &&
	       ls_slice_gen_of(w) == gen)
		if (atomic_compare_exchange_weak_explicit(&r->word, &w, w | LS_SL_PROVEN,
		                                          memory_order_relaxed,
		                                          memory_order_relaxed))
			return;
}

/* The calling thread's CPU as 6 bits, 1..63 (0: unknown): a hint (two
 * CPUs 63 apart share a tag; the thread may move). */
static uint32_t cpu_tag(void)
{
	int cpu = sched_getcpu();
	return cpu < 0 ? 0 : 1u + (uint32_t)cpu % 63u;
}

/* The slice is spent and goes to the head (a paying hand-over): true if
 * the owner keeps it a little longer, until the head runs.  A hand-over
 * to a parked head costs a wake-up, during which nobody holds the lock:
 * 20-46 us on the project's 2-vCPU VM (ns_per_handover of
 * LOCKSWAP_SLICE_COUNTS, MutexBench's shorter section at 8 and 32
 * threads, slices of 300-600 us: 8-12% of the lock's time), about 7 us
 * on a many-core machine.  So the owner marks the slice CALLED, wakes the
 * head and goes on using the lock; the head, running, sets AWAKE and
 * spins (spin_for_hand_over); the owner's next timed release (about
 * LS_SLICE_SAMPLE_EVERY acquisitions later) sees AWAKE and hands over to
 * a thread already on a CPU: ShflLock's lesson, and the waiting policy's
 * (core/runtime/wait.h, "Who waits awake?").  The slice grows by the
 * wake-up, at most LOCKSWAP_SLICE_WAKE_US; every slice grows alike, so
 * the shares do not move.  An owner that stops calling the lock once it
 * has called is not waited for: its head takes the slice over when its
 * spin runs out (spin_for_hand_over).  CALLED is seq_cst, before the
 * wake, so that the woken head, which reads the word seq_cst, finds it
 * (the waiting array's pairing, core/runtime/twa.h); AWAKE is a hint and
 * relaxed. */
static bool call_head(struct ls_slice *r, struct ls_slice_self *s, uint64_t now)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (w & LS_SL_AWAKE) {
		count(&ls_slice_counts.awake, 1);
		return false; /* the head runs: hand over */
	}
	if (s->called)
		return ls_ticks_since(s->called_at, now) < s->wake_limit;
	s->called = true;
	s->called_at = now;
	if (w & LS_SL_GHOST)
		return false; /* the end flushes: nobody in particular to call */
	w = atomic_fetch_or_explicit(&r->word, LS_SL_CALLED | (uint64_t)cpu_tag() << LS_SL_CALLER_SHIFT,
	                             memory_order_seq_cst);
	count(&ls_slice_counts.called, 1);
	traced(r, LS_SL_TRACE_CALLED, ls_slice_grant_of(w), 0);
	ls_twa_wake(ls_twa_bucket(r, ls_slice_grant_of(w)));
	return true;
}

void ls_slice_unlock_end(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                         uint64_t now)
{
	in->unlock(inner);
	ls_slice_released_end(r, in, inner, now);
}

void ls_slice_released_end(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                           uint64_t now)
{
	struct ls_slice_self *s = &ls_slice_self;
	bool spent = ls_slice_spent(s, now);
	bool waited = ls_slice_queue_of(atomic_load_explicit(&r->word, memory_order_relaxed));
	if (s->group) {
		/* A member's gaps are long (that is why it is in a group):
		 * its probe only decides, at its seat's end, whether the next
		 * slice has one owner (the lock became the bottleneck). */
		if (!spent && waited)
			return;
		struct ls_wait_scope sc;
		ls_wait_enter_quiet(&sc); /* as below */
		uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
		if (ls_slice_gen_of(w) != s->gen)
			s->lock = NULL; /* an earlier group's seat: a later group took it */
		else if (short_gaps(s))
			end_slice(r, in, inner, true, false);
		else if (ls_slice_rand(s) % LS_SLICE_GROUP_RENEW == 0)
			end_slice(r, in, inner, false, false); /* a new group (see LS_SLICE_GROUP_RENEW) */
		else
			pass_seat(r, in, inner);
		ls_wait_exit(&sc);
		return;
	}
	if (s->n == LS_SLICE_PROBE_N && s->gaps &&
	    atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed)) {
		count(&ls_slice_counts.probes, 1);
		count(&ls_slice_counts.probe_gap_ns,
		      s->gap_sum * 1000u / ls_ticks_per_us() / s->gaps);
		count(&ls_slice_counts.probes_short, short_gaps(s));
	}
	bool paying = pays(s, now, spent || !waited);
	if (!spent && paying && waited) {
		/* The probe passed, someone waits: the slice goes on. */
		if (s->n == LS_SLICE_PROBE_N)
			prove(r, s->gen);
		return;
	}
	if (spent && paying && waited && call_head(r, s, now))
		return;
	struct ls_wait_scope sc;
	/* Quiet: an unlock is no cancellation point, and a wake must not be
	 * cut from the grant it announces. */
	ls_wait_enter_quiet(&sc);
	/* hot: the slice spent its budget with its owner coming back sooner
	 * than the bar, so the lock is the bottleneck; the slice handed on
	 * starts PROVEN, and a new owner that then goes away (sysbench
	 * threads: it finished its 1,000 acquisitions mid-slice and moved to
	 * another lock) is taken over by the head rather than flushed into a
	 * quiet period.  Short-section slices spend their budget before the
	 * probe's LS_SLICE_PROBE_N acquisitions when the section blocks or
	 * yields (sysbench threads: ~25 a slice), so without this no slice of
	 * such a lock was ever proven: 33-54 flushes and 64 ms quiet periods a
	 * second on 8 locks, 1.06x glibc where takeovers gave 1.24x (11
	 * interleaved rounds, 8 threads on 2 vCPUs). */
	end_slice(r, in, inner, paying, spent && s->gaps != 0 && short_gaps(s));
	ls_wait_exit(&sc);
}

void ls_slice_unlock_to_wait(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	if (!in->is_locked(inner))
		return; /* misuse: as ls_slice_unlock */
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (!ls_slice_mine(r, w)) {
		/* A slice of r that ended meanwhile (a group closed behind a
		 * member): forget it, so that the thread, blocked, does not
		 * count as owning a slice (owns_another). */
		if (ls_slice_self.lock == r)
			ls_slice_self.lock = NULL;
		in->unlock(inner);
		return;
	}
	(void)ls_slice_owner_release(); /* the usage accounting of this release */
	in->unlock(inner);
	struct ls_wait_scope sc;
	ls_wait_enter_quiet(&sc); /* as ls_slice_unlock_end */
	/* A condvar wait ends the slice as one that does not pay: the lock
	 * opens (and rests from slices, end_slice) instead of going to the
	 * FIFO head.  The owner sleeps until another thread changes the
	 * state the lock guards, and the head is as likely to need the same
	 * change (a producer behind a producer on a full queue): handing it
	 * the slice buys a wake-up that does nothing, and the waiters convoy
	 * one wake-up at a time.  MutexBench's condvar mode on 2 CPUs went
	 * from 0.49x / 0.19x glibc at 8 / 32 threads to 2.85x / 1.76x
	 * (min share 0.94 at 32; docs/results.md, "The default"). */
	count(&ls_slice_counts.cond_ends, 1);
	if (ls_slice_self.group)
		pass_seat(r, in, inner);
	else
		end_slice(r, in, inner, false, false);
	ls_wait_exit(&sc);
}

/* ---- waiting ---------------------------------------------------------- */

enum { TURN_OWNER, TURN_PLAIN };
/* What a called head does after its spin (spin_for_hand_over), besides
 * TURN_OWNER. */
enum { LOOK_AGAIN = -2, PARK = -1 };

struct leave_ctx {
	struct ls_slice *r;
	const struct ls_lockable *in; /* the inner lock, for the watch */
	void *inner;
	struct ls_twa_bucket *parked; /* between ls_twa_enter and _leave */
	uint32_t t;
	bool queued; /* holds ticket t, not served yet */
	bool owner;  /* owns the slice (registered) */
	bool marked; /* this waiter's watch has marked the word (watch) */
};

/* A queued waiter gives up ticket t (a timeout, a cancellation).  Returns
 * true if t was served meanwhile (w then holds the word that says how):
 *   served (t < g)    no change; turn_of says what t got (an owner's
 *                     timed lock that fails then ends that slice)
 *   the last ticket   (g, t+1)        -> (g, t)         taken back
 *   the head,         (t, n)          -> (t+1, n)       the watch passes on;
 *     RUN or GROUP set                                  wake t+1
 *   elsewhere         (g, n)          -> (g, n, GHOST)  the next slice end
 *                                                       flushes; wake t+1 */
static bool give_back(struct ls_slice *r, uint32_t t, uint64_t *served_w)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	bool head;
	do {
		if (served(w, t)) {
			*served_w = w;
			return true;
		}
		/* The head passes the watch on by moving grant, but not while a
		 * handed-over slice waits for its owner to pick it up (RUN
		 * clear): that owner recognises itself by grant == its ticket
		 * + 1.  Then, as in the middle, it marks GHOST.  A group's
		 * members recognise themselves by GROUP and a ticket below
		 * grant, not by grant's value, so there the head always moves
		 * it: a GHOST head of a group whose members had not run yet
		 * stayed queued after everyone behind it had left, and the
		 * members, seeing a queue, kept their seats (tests/unit
		 * test_slice test_groups, about 1 run in 60). */
		head = t == ls_slice_grant_of(w) && (w & (LS_SL_RUN | LS_SL_GROUP));
		if (ls_slice_next_of(w) == ((t + 1) & LS_SL_TICKET_MASK))
			nw = with_next(w, t); /* the last: take it back */
		else if (head)
			nw = with_grant(w, t + 1); /* the head: pass the watch on */
		else
			nw = w | LS_SL_GHOST;
		/* seq_cst: moving grant follows the waiting array's protocol. */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	/* The next ticket becomes the head, or (GHOST) must keep the watch
	 * for a head that may be gone: wake it to take the watch up. */
	if (ls_slice_next_of(nw) != ((t + 1) & LS_SL_TICKET_MASK) || (nw & LS_SL_GHOST))
		ls_twa_wake(ls_twa_bucket(r, (t + 1) & LS_SL_TICKET_MASK));
	return false;
}

/* Served ticket t in word w (t < grant): the slice's new owner (OWNED and
 * grant == t+1), a member of its group (OWNED and GROUP), or let go
 * (flushed or skipped: the inner lock once, as in an open lock).  A slice of one owner is the head's only while grant
 * is just past it (a later hand-over or flush moved on without it).  In a
 * group, any served waiter is a member: seats pass one at a time, so a
 * waiter that the CPU scheduler keeps from running for a few passes (on 2
 * CPUs with a group of 3 running, 1-3 ms is common) would otherwise take
 * its seat for a let-go and the group would lose it; counting on "the
 * last k tickets served" lost about one seat per group and left the CPUs
 * idle 9% of the time.  A waiter let go by a flush that comes back to a
 * later group joins it one too many; both kinds of error end at the next
 * group (LS_SLICE_GROUP_RENEW), and neither touches exclusion, which is
 * the inner lock's. */
static int turn_of(struct ls_slice *r, uint64_t w, uint32_t t)
{
	if (!(w & LS_SL_OWNED))
		return TURN_PLAIN;
	bool group = (w & LS_SL_GROUP) != 0;
	if (group || ls_slice_grant_of(w) == ((t + 1) & LS_SL_TICKET_MASK)) {
		own(r, ls_slice_gen_of(w), group);
		return TURN_OWNER;
	}
	return TURN_PLAIN;
}

/* Cancelled while queued: give the ticket up as a timeout would (served
 * meanwhile as owner: end that slice at once).  Cancelled as the owner
 * in the inner lock (its own leave step has run): end the slice. */
static void leave_slice(void *arg)
{
	struct leave_ctx *x = arg;
	uint64_t w;
	if (x->parked)
		ls_twa_leave(x->parked);
	if (x->queued && give_back(x->r, x->t, &w) && turn_of(x->r, w, x->t) == TURN_OWNER)
		x->owner = true;
	if (x->owner)
		leave_early(x->r, x->in, x->inner, 0);
}

/* Coarse time now, 7 bits (units of 2^20 ns). */
static uint64_t mark_now(void)
{
	return (ls_now_ns(CLOCK_MONOTONIC) >> 20) & 0x7fu;
}

/* The longest watch period, in coarse units (~34 ms).  The mark is 7 bits
 * of coarse time, and watch() reads an age of 64 units or more as a mark
 * from the future: with a period past that window no age ever qualified,
 * and a slice of more than ~15 ms (LOCKSWAP_SLICE_US goes to 1 s) whose
 * owner stalled stranded its queue for good.  A watch that fires sooner
 * than 4 budgets costs only fairness (the inner lock still decides who
 * holds).  With periods of at most half the window, a head whose checks
 * come a period apart lands in [units, 64) within two checks. */
#define WATCH_MAX_UNITS 32u

/* The watch period in coarse units, rounded up, plus one: a mark that old
 * was set at least a whole period ago. */
static uint64_t watch_units(void)
{
	uint64_t us = atomic_load_explicit(&ls_slice_us, memory_order_relaxed);
	uint64_t units = (us * 1000u * LS_SLICE_WATCH_FACTOR + (1u << 20) - 1) / (1u << 20) + 1;
	return units < WATCH_MAX_UNITS ? units : WATCH_MAX_UNITS;
}

/* Ticket t's waiter has taken the slice (word nw), with the n - 1 tickets
 * after it as the other members of a group: from a stalled owner (ev
 * TAKEOVER, the watch), or as the hand-over a spent slice's owner called
 * for and did not come back to make (ev HANDOVER, spin_for_hand_over).
 * Wake the other members and the new head, and own it. */
static int took_over(struct ls_slice *r, uint32_t t, uint32_t n, uint64_t nw, int ev)
{
	traced(r, ev, t, 0);
	if (ev == LS_SL_TRACE_HANDOVER)
		handed_over(r, ev, t, 1);
	wake_range(r, t + 1, t + n + (ls_slice_queue_of(nw) != 0));
	own(r, ls_slice_gen_of(nw), (nw & LS_SL_GROUP) != 0);
	return TURN_OWNER;
}

/* The watch, by ticket t's waiter after a timed park: the head (t ==
 * grant), and every waiter while GHOST is set, parks with a timeout of a
 * watch period (LS_SLICE_WATCH_FACTOR x LOCKSWAP_SLICE_US).  The first
 * watcher marks the word; the owner clears the mark at its next
 * acquisition; a mark still there a whole period later means the owner
 * stalled (descheduled, exited, cancelled, or stopped calling), and the
 * head (a waiter that runs: ShflLock's lesson) takes the slice over, or,
 * with GHOST, anyone flushes.  The mark lives in the word, so a waiter
 * whose timed lock gives up before a whole period can still complete a
 * watch that another waiter, or its own earlier attempt, began:
 *   owner ran, no mark   (g, n, OWNED|RUN)        -> (g, n, OWNED|RUN|MARKED)  mark = now
 *   mark a period old,   (g, n, OWNED|RUN|MARKED) -> (g+1, n, OWNED)  gen+1, the head owns it
 *     t == g                                        (a group's: g+min(k, n-g), GROUP kept);
 *                                                   wake the other members and the new head
 *   mark a period old,   (g, n, OWNED|...)        -> (n, n, -)        flushed, wake g..n-1
 *     GHOST, or the owner never ran behind sharers
 *   otherwise            no change: keep waiting  An owner that has not run
 * yet while the inner lock is held shared (x->in->shared: readers of an
 * rwlock) is flushed too: the holders may be waiting for a thread queued
 * here.  Returns TURN_OWNER, TURN_PLAIN (flushed), or -1 (keep waiting). */
static int watch(struct leave_ctx *x)
{
	struct ls_slice *r = x->r;
	uint32_t t = x->t;
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	uint32_t n = 1; /* tickets served: t, and in a group the next members */
	int flush_ev = 0; /* why the queue was let go, if it was */
	do {
		/* An owner that has not run yet in its slice waits for the inner
		 * lock, or to be scheduled after its hand-over: taking its slice
		 * would not get the lock sooner.  Unless others hold the inner
		 * lock shared: then the owner (a writer) waits for readers, who
		 * may wait for a reader queued here (glibc's default rwlock kind
		 * lets that reader in), so the queue is flushed. */
		if (!(w & LS_SL_OWNED))
			return -1;
		bool behind_sharers = !(w & LS_SL_RUN) && x->in->shared && x->in->shared(x->inner);
		if (!(w & LS_SL_RUN) && !behind_sharers)
			return -1;
		bool unproven = !(w & (LS_SL_PROVEN | LS_SL_GROUP));
		if (!(w & LS_SL_MARKED)) {
			nw = w | LS_SL_MARKED | (mark_now() << LS_SL_MARK_SHIFT);
		} else if (unproven && x->marked && ls_slice_grant_of(w) == t && !(w & LS_SL_GHOST) &&
		           !behind_sharers && !x->in->is_locked(x->inner)) {
			/* An owner that has not passed its probe, has not come
			 * back for a whole (short) period since this head marked
			 * the word, and does not hold the lock now (it is away,
			 * not in a long critical section): the lock is not hot
			 * enough for a slice.  Everyone goes to the inner lock,
			 * and slices rest, as for a slice that does not pay. */
			nw = with_quiet(flushed(w), LS_SLICE_QUIET_UNITS);
			flush_ev = LS_SL_TRACE_FLUSH_GAP;
		} else {
			uint64_t age = (mark_now() - ((w & LS_SL_MARK_MASK) >> LS_SL_MARK_SHIFT)) & 0x7fu;
			if (age < watch_units() || age >= 0x40u) /* young, or from the future */
				return -1;
			if ((w & LS_SL_GHOST) || behind_sharers) {
				nw = flushed(w);
				flush_ev = w & LS_SL_GHOST ? LS_SL_TRACE_FLUSH_GHOST
				                           : LS_SL_TRACE_FLUSH_SHARED;
			}
			else if (ls_slice_grant_of(w) == t) {
				uint32_t k = ls_slice_group_size(), queue = ls_slice_queue_of(w);
				n = (w & LS_SL_GROUP) && k ? (queue < k ? queue : k) : 1;
				nw = passed_on(w, t + n);
			} else
				return -1;
		}
		/* seq_cst: may move grant (core/runtime/twa.h). */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	if (!(w & LS_SL_MARKED)) {
		x->marked = true;
		return -1; /* the watch has begun */
	}
	/* Flushed: no slice now; taken over: the new owner's (a missing
	 * reservation, lost to a race, comes back here too). */
	ls_slice_mirror(r, x->in, x->inner);
	/* Flushed: a ghost, an owner that never ran behind sharers, or an
	 * unproven one that stalled (nw has no owner). */
	if (flush_ev) {
		traced(r, flush_ev, t, 0);
		wake_range(r, ls_slice_grant_of(w), ls_slice_next_of(w));
		return TURN_PLAIN;
	}
	return took_over(r, t, n, nw, LS_SL_TRACE_TAKEOVER);
}

/* The earlier of a watch period from now and the caller's deadline, on
 * the deadline's clock; *watching tells which it is. */
static struct timespec park_until(clockid_t clock, const struct timespec *abstime,
                                  unsigned factor, bool *watching)
{
	uint64_t us = atomic_load_explicit(&ls_slice_us, memory_order_relaxed);
	uint64_t period = us * 1000u * factor;
	if (period > (uint64_t)WATCH_MAX_UNITS << 20)
		period = (uint64_t)WATCH_MAX_UNITS << 20; /* see WATCH_MAX_UNITS */
	uint64_t at = ls_now_ns(clock) + period;
	struct timespec w = { (time_t)(at / 1000000000u), (long)(at % 1000000000u) };
	*watching = !abstime || abstime->tv_sec > w.tv_sec ||
	            (abstime->tv_sec == w.tv_sec && abstime->tv_nsec > w.tv_nsec);
	return *watching ? w : *abstime;
}

/* Spin while the bucket's sequence is still seq, as long as the waiting
 * policy lets the caller (a CPU free for it, the queue waiter's time
 * budget: core/runtime/wait.h).  True: it moved. */
static bool spin_on_bucket(const struct ls_slice *r, struct ls_twa_bucket *bk, uint32_t seq)
{
	bool moved = false;
	struct ls_spin sp;
	if (!ls_spin_start_queued(&sp, r))
		return false;
	while (ls_spin_more(&sp))
		if ((moved = atomic_load_explicit(&bk->seq, memory_order_acquire) != seq))
			break;
	ls_spin_stop(&sp, moved);
	return moved;
}

/* The head t, called by the owner of a spent slice (word w: CALLED,
 * call_head), entered in its bucket at seq: say that it runs (AWAKE) and
 * spin until the bucket moves (the hand-over moves it, since the head
 * stays entered: ls_twa_wake increments it while anyone is).  It polls
 * the bucket, not the slice word: the word shares its cache line with the
 * inner lock, and every poll of it would cost the owner, still taking
 * that lock, a miss.  If the spin runs out while the slice that called is
 * still on and the inner lock is free, the owner has had a spin budget's
 * worth of releases to see AWAKE and did not come: it went away, or
 * stopped running, after its slice was spent: the head takes the
 * hand-over it was called for (traced and counted as one), as the watch
 * would take the slice over a period later:
 *   CALLED, t == g, inner lock free  (g, n, OWNED|CALLED)  -> (g+1, n, OWNED)
 *                                    gen+1: the head owns it; wake g+1
 * Otherwise it clears AWAKE (the owner then stops waiting for it) and
 * parks.  Returns TURN_OWNER (taken over), LOOK_AGAIN (the bucket moved)
 * or PARK. */
static int spin_for_hand_over(struct leave_ctx *x, struct ls_twa_bucket *bk, uint32_t seq,
                              uint64_t w)
{
	struct ls_slice *r = x->r;
	uint32_t t = x->t, gen = ls_slice_gen_of(w);
	/* relaxed: a hint to the owner; the hand-over is end_slice's CAS. */
	if (!(w & LS_SL_AWAKE))
		atomic_fetch_or_explicit(&r->word, LS_SL_AWAKE, memory_order_relaxed);
	/* The wake-up put the head on the CPU its owner called from (on the
	 * project's 2-vCPU VM, about half the calls): a spin there would keep
	 * the owner from the release that hands over.  AWAKE still tells the
	 * owner to hand over now, to a head that will run once it leaves the
	 * CPU, as before there was a call. */
	uint32_t caller = (uint32_t)((w & LS_SL_CALLER_MASK) >> LS_SL_CALLER_SHIFT);
	if (caller != 0 && caller == cpu_tag())
		return PARK;
	if (spin_on_bucket(r, bk, seq))
		return LOOK_AGAIN;
	w = atomic_load_explicit(&r->word, memory_order_relaxed);
	uint64_t nw;
	do {
		if (!(w & LS_SL_OWNED) || ls_slice_gen_of(w) != gen)
			return LOOK_AGAIN; /* the slice ended meanwhile */
		if ((w & LS_SL_GHOST) || ls_slice_grant_of(w) != t || x->in->is_locked(x->inner))
			nw = w & ~LS_SL_AWAKE;
		else
			nw = passed_on(w, t + 1);
		/* seq_cst: may move grant (core/runtime/twa.h). */
	} while (!atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_seq_cst,
	                                                memory_order_relaxed));
	if (ls_slice_gen_of(nw) == gen)
		return PARK;
	ls_slice_mirror(r, x->in, x->inner);
	return took_over(r, t, 1, nw, LS_SL_TRACE_HANDOVER);
}

/* Park until ticket t is served: TURN_OWNER, TURN_PLAIN, or ETIMEDOUT
 * (ticket given up). */
static int wait_turn(struct leave_ctx *x, clockid_t clock, const struct timespec *abstime)
{
	struct ls_slice *r = x->r;
	bool expired = abstime && ls_timespec_negative(abstime);
	struct ls_twa_bucket *bk = ls_twa_bucket(r, x->t);
	uint32_t spun_gen = UINT32_MAX; /* the slice whose call this head answered */
	for (;;) {
		uint32_t seq = ls_twa_enter(bk);
		x->parked = bk;
		int sp = PARK; /* a called head's spin: TURN_OWNER, LOOK_AGAIN or PARK */
		/* seq_cst: the waiting array's protocol (core/runtime/twa.h). */
		uint64_t w = atomic_load_explicit(&r->word, memory_order_seq_cst);
		bool in = served(w, x->t), watching = false;
		bool head = x->t == ls_slice_grant_of(w) || (w & LS_SL_GHOST); /* keeps the watch */
		bool forked = ls_slice_epoch_of(w) != ls_epoch_now(7);
		int pr = 0;
		if (!in && !expired && !forked) {
			if (head) {
				/* An unproven slice (its owner has not passed its
				 * probe) is watched with a period of
				 * LOCKSWAP_SLICE_US, a proven one with
				 * LS_SLICE_WATCH_FACTOR times that (watch). */
				bool unproven = (w & LS_SL_OWNED) &&
				                !(w & (LS_SL_PROVEN | LS_SL_GROUP));
				struct timespec until =
					park_until(clock, abstime,
					           unproven ? 1 : LS_SLICE_WATCH_FACTOR, &watching);
				/* Called (call_head): answer once per slice.  Not a
				 * timed lock: a spin would not watch its deadline. */
				if ((w & (LS_SL_CALLED | LS_SL_GROUP | LS_SL_GHOST)) == LS_SL_CALLED &&
				    x->t == ls_slice_grant_of(w) && !abstime &&
				    ls_slice_gen_of(w) != spun_gen) {
					spun_gen = ls_slice_gen_of(w);
					sp = spin_for_hand_over(x, bk, seq, w);
				}
				if (sp == PARK)
					pr = ls_park(&bk->seq, seq, clock, &until);
			} else {
				pr = ls_park(&bk->seq, seq, clock, abstime);
			}
		}
		x->parked = NULL;
		ls_twa_leave(bk);
		if (sp == TURN_OWNER)
			return TURN_OWNER; /* took the hand-over it was called for */
		if (in) {
			traced(r, LS_SL_TRACE_SERVED, x->t, 0);
			return turn_of(r, w, x->t);
		}
		if (forked) {
			renew(r, x->in, x->inner, w);
			return TURN_PLAIN;
		}
		if (head && pr == ETIMEDOUT) {
			/* Before a timed lock gives up too: the mark it finds may
			 * be an earlier attempt's. */
			int turn = watch(x);
			if (turn >= 0)
				return turn;
		}
		if (pr == ETIMEDOUT && !watching)
			expired = true;
		if (expired) {
			if (!give_back(r, x->t, &w))
				return ETIMEDOUT;
			return turn_of(r, w, x->t);
		}
	}
}

/* The caller owns a slice of another lock (by its own record: the slice
 * may since have been taken over, but not if it began less than its wall
 * limit plus a watch period ago).  Such a thread never waits in r's queue
 * and never opens a slice of r: it goes to r's inner lock directly.
 * Otherwise two slices could wait for each other (the owner of r's slice,
 * between two acquisitions of r, needs the other lock, whose owner is
 * queued on r: each owner parked in the other's queue until a watch takes
 * one over), and a second slice would make the thread forget the first
 * (its waiters then waiting for the watch).  Measured on LevelDB, whose
 * threads go through the DB mutex and several cache-shard mutexes per
 * read: 13k reads/s without this rule, 1.1-1.4M with it (glibc 1.1-1.5M). */
static bool owns_another(const struct ls_slice *r)
{
	const struct ls_slice_self *s = &ls_slice_self;
	if (!s->lock || s->lock == r)
		return false;
	/* The waiters' watch period is 4 x LOCKSWAP_SLICE_US whatever this
	 * thread's share (slice_share.h scales only its own slice). */
	uint64_t watch = (uint64_t)atomic_load_explicit(&ls_slice_us, memory_order_relaxed) *
	                 ls_ticks_per_us() * LS_SLICE_WATCH_FACTOR;
	return ls_ticks_since(s->start, ls_ticks()) < s->wall + watch;
}

/* Arrive on the slow path (the inner lock was found held): own a new
 * slice (TURN_OWNER), go to the inner lock as in an open lock
 * (TURN_PLAIN), or queue (-1, ticket in x->t):
 *   open, not quiet  (g, g, -)  -> (g, g, OWNED)  gen+1, QUIET, RUN and GROUP cleared:
 *                                                 the caller owns the new slice
 *   open, quiet      no change: the inner lock
 *   a slice or queue (g, n)     -> (g, n+1)       ticket n: park on the waiting-array
 *                                                 bucket (r, n) until n < grant */
static int arrive(struct leave_ctx *x)
{
	struct ls_slice *r = x->r;
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed), nw;
	for (;;) {
		if (ls_slice_epoch_of(w) != ls_epoch_now(7))
			w = renew(r, x->in, x->inner, w);
		if (ls_slice_mine(r, w))
			return TURN_OWNER;
		if (ls_slice_self.lock == r)
			ls_slice_self.lock = NULL; /* a slice of r taken over or ended */
		if (owns_another(r))
			return TURN_PLAIN;
		int turn = -1;
		if (ls_slice_open(w)) {
			if (quiet(w)) {
				count(&ls_slice_counts.quiet, 1);
				return TURN_PLAIN;
			}
			nw = with_next_gen(w | LS_SL_OWNED) &
			     ~(LS_SL_QUIET | LS_SL_RUN | LS_SL_GROUP | CALL_BITS);
			turn = TURN_OWNER;
		} else {
			nw = with_next(w, ls_slice_next_of(w) + 1);
		}
		/* relaxed: orders no data (the inner lock does); grant does
		 * not move here. */
		if (atomic_compare_exchange_weak_explicit(&r->word, &w, nw, memory_order_relaxed,
		                                          memory_order_relaxed)) {
			if (turn == TURN_OWNER) {
				own(r, ls_slice_gen_of(nw), false);
				ls_slice_mirror(r, x->in, x->inner);
				traced(r, LS_SL_TRACE_OPENED, UINT32_MAX, 0);
			} else {
				x->t = ls_slice_next_of(w);
				traced(r, LS_SL_TRACE_QUEUED, x->t, ls_slice_queue_of(w));
			}
			return turn;
		}
	}
}

int ls_slice_acquire(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                     clockid_t clock, const struct timespec *abstime)
{
	struct ls_wait_scope sc;
	struct ls_wait_frame f;
	struct leave_ctx x = { .r = r, .in = in, .inner = inner };
	ls_wait_enter(&sc);
	ls_wait_push(&f, leave_slice, &x);
	int turn = arrive(&x);
	if (turn < 0) {
		x.queued = true;
		turn = wait_turn(&x, clock, abstime);
		x.queued = false;
	}
	int ret = turn == ETIMEDOUT ? ETIMEDOUT : 0;
	if (ret == 0) {
		x.owner = turn == TURN_OWNER;
		ret = abstime ? in->timedlock(inner, clock, abstime) : in->lock(inner);
		if (ret == 0 && x.owner) {
			if (ls_slice_self.n != 0) {
				ls_slice_owner_enter(); /* (timed lock) the owner came back */
				ls_slice_owner_acquired(r);
			} else {
				/* The slice's first acquisition: no gap to count,
				 * and its hold starts now, not at own(): waiting
				 * for the inner lock (a thread let go may hold it)
				 * is not holding. */
				ls_slice_self.acq = ls_ticks_ordered();
				ls_slice_self.stand = 1;
				ls_slice_self.timed = true;
				owner_running(r);
				if (atomic_load_explicit(&ls_slice_counts_on, memory_order_relaxed))
					count_handover_gap();
			}
		} else if (ret != 0 && x.owner) {
			leave_early(r, in, inner, 0); /* a timed-out owner passes the slice on */
		}
	}
	ls_wait_pop(&f);
	ls_wait_exit(&sc);
	return ret;
}

int ls_slice_trylock(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (ls_slice_mine(r, w)) {
		ls_slice_owner_enter();
		if (in->trylock(inner) != 0) {
			ls_slice_owner_unenter(); /* not an acquisition */
			return EBUSY;
		}
		ls_slice_owner_acquired(r);
		return 0;
	}
	/* A slice or a queue does not stop a trylock: it never waits in line,
	 * so refusing it while slices follow each other would starve a thread
	 * that spins on trylock for as long as the lock stays contended.  It
	 * gets the lock whenever the inner lock is free (the owner is away),
	 * as with glibc; exclusion stays the inner lock's. */
	return in->trylock(inner) == 0 ? 0 : EBUSY;
}

/* ---- an inner lock that keeps the reservation (slice.h) --------------- */

bool ls_slice_owns_another(const struct ls_slice *r)
{
	return owns_another(r);
}

int ls_slice_take_reserved_slow(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                                uint64_t w, bool try)
{
	if (ls_slice_mine(r, w)) {
		ls_slice_owner_enter();
		ls_slice_owner_acquired(r);
		return 0;
	}
	if (ls_slice_open(w) && ls_slice_epoch_of(w) == ls_epoch_now(7)) {
		/* No slice runs: the reservation is stale (a race between
		 * two mirrors).  Clear it and keep the lock, as in an open
		 * lock. */
		ls_slice_mirror(r, in, inner);
		return 0;
	}
	/* A trylock gets the lock whenever it is free (ls_slice_trylock);
	 * the owner of another lock's slice never queues here (arrive
	 * would send it to the inner lock, which it holds). */
	if (try || owns_another(r))
		return 0;
	in->unlock(inner);
	count(&ls_slice_counts.backed_out, 1);
	return EBUSY;
}

void ls_slice_released_reserved_slow(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (!ls_slice_mine(r, w)) {
		if (ls_slice_open(w))
			ls_slice_mirror(r, in, inner); /* stale: no slice runs */
		return;
	}
	struct ls_slice_self *s = &ls_slice_self;
	uint64_t now = ls_slice_owner_release();
	if (ls_slice_queue_of(w) != 0 &&
	    (now == 0 || (s->n != LS_SLICE_PROBE_N && !ls_slice_spent(s, now)))) {
		return;
	}
	ls_slice_released_end(r, in, inner, now ? now : ls_ticks());
}
