/*
 * slice.h - lock slices: long-term fairness at barging speed, around any
 * inner lock.
 *
 * Idea: Patel, Pande, Mukherjee, Arpaci-Dusseau and Arpaci-Dusseau,
 * "Avoiding Scheduler Subversion using Scheduler-Cooperative Locks"
 * (u-SCL, EuroSys 2020): fairness is owed over a window, not per
 * acquisition.  A contended lock is owned, one slice at a time, by one
 * thread, which re-acquires it with a hot cache and no competition; the
 * others park in FIFO order, and at the end of a slice the lock is handed
 * to the oldest waiter: one wake-up per slice instead of one per
 * acquisition.  Written from the paper's description, not from any code.
 * Our departures, each explained where slice.c does it:
 *   - a slice ends after LOCKSWAP_SLICE_US of HOLD time (usage, sampled
 *     with the time-stamp counter), 4x that of wall time, or 1x that of
 *     wall time for an owner that idles (ls_slice_spent);
 *   - slices are kept only where they pay: the owner comes back within
 *     LOCKSWAP_SLICE_GAP_NS on average, or no CPU was free anyway
 *     (LOCKSWAP_SLICE_BUSY); else the lock stays open ~64 ms (pays(),
 *     end_slice); a slice that nobody waited for rests the lock ~8 ms,
 *     and an unproven one (its owner has not passed its probe) whose owner
 *     went away is let go after one short watch period (watch);
 *   - slice:futex keeps a reservation bit in the lock word mirroring
 *     OWNED, so that its uncontended path is the futex lock's
 *     (slice_futex.h; ls_slice_mirror, ls_slice_take_reserved);
 *   - groups, where the lock is not the bottleneck but more threads wait
 *     than LOCKSWAP_SLICE_SEATS: the k oldest share the slice, seats
 *     rotating one at a time (end_slice, pass_seat), the concurrency
 *     restriction of Dice and Kogan's GCR and Malthusian locks rotated by
 *     time;
 *   - the watch: a stalled owner's slice is taken over by the head
 *     (watch);
 *   - a condvar wait ends its owner's slice as one that does not pay:
 *     the lock opens rather than going to the FIFO head
 *     (ls_slice_unlock_to_wait);
 *   - LOCKSWAP_SLICE_SHARES=nice scales each slice by its owner's CFS
 *     weight (slice_share.h);
 *   - LOCKSWAP_SLICE_WAKE_US (off by default): the owner of a spent slice
 *     wakes the head and keeps the slice until the head runs, so that the
 *     lock goes to a thread on a CPU (call_head, spin_for_hand_over).
 *
 * Mutual exclusion is always the inner lock's: this word only decides who
 * may try.  Every mistake it can make under races (a stale owner, two
 * threads that both believe they own the slice, a waiter let go early)
 * costs fairness or speed for a moment, never exclusion.
 *
 * State: the 8-byte slice word, then the inner lock (<= 8 bytes,
 * backends/slice.c).  All-zero = open, nobody queued.
 *   bits  0..13  grant   tickets below grant have been served (14-bit
 *                        wrapping; "t < grant" is a signed difference)
 *   bits 14..27  next    the next ticket; queue = next - grant
 *   bit  28      OWNED   a slice is in progress: arrivals queue
 *   bit  29      GHOST   a queued ticket was abandoned in the middle
 *   bit  30      QUIET   slices are off until `quiet` (below); while
 *                        OWNED: PROVEN, the owner passed its probe
 *   bit  31      RUN     the slice's owner has acquired at least once
 *   bits 32..39  gen     slice generation, +1 at every slice start
 *   bits 40..46  epoch   low 7 bits of ls_fork_epoch
 *   bit  47      GROUP   the slice is a group's (OWNED set too)
 *   bits 48..55  quiet   coarse time (units of 2^20 ns) the quiet ends;
 *                        while OWNED, bit 49 is CALLED: the slice is
 *                        spent and its owner has woken the head; bits
 *                        50..55 the owner's CPU then (+1, modulo 63; 0:
 *                        unknown); bit 48 AWAKE: that head runs
 *                        (slice.c call_head)
 *   bits 56..62  mark    coarse time (units of 2^20 ns, 7 bits) a waiter
 *                        began to watch the owner
 *   bit  63      MARKED  a waiter watches: the owner clears it (and the
 *                        mark) at its next acquisition
 * At most 8191 threads may queue on one lock at once.
 *
 * Transitions are written at the code that makes them (slice.c: arrive,
 * end_slice, pass_seat, watch, give_back), as
 *     (grant, next, FLAGS) -> (grant', next', FLAGS')
 * with g = grant, n = next, k = the group size, gen+1 for a new
 * generation, and the flags that are not named left as they were.  Each
 * is one CAS on the word, except the owner's RUN (a fetch_or) and its
 * clearing of MARKED (a fetch_and, only when a waiter has set it).
 *
 * Who owns the slice is thread-local (ls_slice_self): the lock, the
 * generation, whether it is a group's.  A thread owns the slice of r iff
 * OWNED is set and its record names r and the word's generation (a
 * member of an earlier group goes on while GROUP is set, until its own
 * seat's end).  An owner of one lock's slice never queues for, or opens,
 * a slice of another: it takes that lock's inner lock directly
 * (owns_another).
 *
 * Fairness: while a slice runs, arrivals queue FIFO and every slice end
 * serves the head, so a waiter with q tickets ahead is served within
 * q+1 slices (in groups: once q+1 tickets were served), each at most
 * 4 x LOCKSWAP_SLICE_US of wall time (plus at most
 * 2 x LS_SLICE_SAMPLE_EVERY - 1 untimed acquisitions of under
 * LS_SLICE_DENSE_NS each, and wake latency).  Outside slices (open,
 * quiet) the inner lock's fairness applies.
 * Progress: the head is awake or parked with a timeout while a slice
 * runs, and the watch's mark lives in the word, so an owner that exits,
 * is cancelled or stops calling strands the queue for about two watch
 * periods at most.
 *
 * trylock: the inner trylock, slice or not (a trylock never waits in
 * line: refusing it during slices would starve a thread that spins on
 * trylock); the owner's counts as an acquisition of its slice.  A holder
 * about to block in a condvar wait ends its slice at once
 * (ls_slice_unlock_to_wait).
 *
 * Memory order: the word protects no data (the inner lock does): its
 * RMWs are relaxed except the waiting array's pair (core/runtime/twa.h):
 * every CAS that moves grant, and the waiter's re-check, are seq_cst.
 *
 * fork: every slow path compares the epoch; on a mismatch the word is
 * reset to open with no queue (renew: the forking thread may hold the
 * inner lock; dead threads' tickets are forgotten).
 */
#ifndef LS_CORE_SLICE_H
#define LS_CORE_SLICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lockable.h"
#include "../runtime/ticks.h"

#define LS_SL_TICKET_BITS 14
#define LS_SL_TICKET_MASK ((1ull << LS_SL_TICKET_BITS) - 1)
#define LS_SL_NEXT_SHIFT 14
#define LS_SL_OWNED (1ull << 28)
#define LS_SL_GHOST (1ull << 29)
#define LS_SL_QUIET (1ull << 30)
#define LS_SL_PROVEN LS_SL_QUIET /* the same bit, while OWNED (slice.c prove) */
#define LS_SL_RUN (1ull << 31)
#define LS_SL_GEN_SHIFT 32
#define LS_SL_GEN_MASK (0xffull << LS_SL_GEN_SHIFT)
#define LS_SL_EPOCH_SHIFT 40
#define LS_SL_EPOCH_MASK (0x7full << LS_SL_EPOCH_SHIFT)
#define LS_SL_GROUP (1ull << 47)
#define LS_SL_QUIET_SHIFT 48
#define LS_SL_QUIET_MASK (0xffull << LS_SL_QUIET_SHIFT)
#define LS_SL_AWAKE (1ull << LS_SL_QUIET_SHIFT)        /* while OWNED (slice.c call_head) */
#define LS_SL_CALLED (1ull << (LS_SL_QUIET_SHIFT + 1)) /* while OWNED (slice.c call_head) */
#define LS_SL_CALLER_SHIFT (LS_SL_QUIET_SHIFT + 2)
#define LS_SL_CALLER_MASK (0x3full << LS_SL_CALLER_SHIFT) /* while OWNED: the caller's CPU */
#define LS_SL_MARK_SHIFT 56
#define LS_SL_MARK_MASK (0x7full << LS_SL_MARK_SHIFT)
#define LS_SL_MARKED (1ull << 63)

#define LS_SLICE_PROBE_N 32u      /* acquisitions before the gap probe */
#define LS_SLICE_GAP_CLIP 4u      /* a gap counts for at most this many bars */
#define LS_SLICE_WALL_FACTOR 4u   /* wall limit = factor x hold budget */
#define LS_SLICE_IDLE_FACTOR 16u  /* an owner holding <= 1/16 of its slice idles */
#define LS_SLICE_WATCH_FACTOR 4u  /* head watch period = factor x budget */
#define LS_SLICE_QUIET_UNITS 64u  /* quiet period, units of 2^20 ns */
#define LS_SLICE_CLOSE_QUIET_UNITS 8u /* after a slice that nobody waited for */
#define LS_SLICE_SAMPLE_EVERY 64u /* after the probe, one hold in ~64 is timed... */
#define LS_SLICE_DENSE_NS 1000u   /* ...while acquisitions come more often than this */
#define LS_SLICE_GROUP_RENEW 8u  /* about one seat's end in 8 starts a new group */
#define LS_SLICE_SEATS_AUTO 0xffffffffu /* ls_slice_seats: the CPUs the process may use, + 1 */

/* Option targets (the settings in the backend's file, backends/). */
extern _Atomic unsigned ls_slice_us;     /* LOCKSWAP_SLICE_US: hold budget */
extern _Atomic unsigned ls_slice_gap_ns; /* LOCKSWAP_SLICE_GAP_NS: the probe's bar */
extern _Atomic unsigned ls_slice_busy_pays; /* LOCKSWAP_SLICE_BUSY: no free CPU, slices pay */
extern _Atomic unsigned ls_slice_seats;  /* LOCKSWAP_SLICE_SEATS: a group slice's members (0: off) */
extern _Atomic unsigned ls_slice_wake_us; /* LOCKSWAP_SLICE_WAKE_US: keep a spent slice while the head wakes */

/* Members of a group slice (LOCKSWAP_SLICE_SEATS resolved); 0: groups off. */
unsigned ls_slice_group_size(void);

struct ls_slice {
	_Atomic uint64_t word;
};

/* The calling thread's slice, if it owns one (one at a time: a thread
 * handed a second lock's slice forgets the first, whose waiters then
 * take it back through the head watch). */
struct ls_slice_self {
	const struct ls_slice *lock; /* NULL: none */
	uint32_t gen;                /* its generation (bits 32..39) */
	uint64_t expect;             /* OWNED | gen, as the word has them while it owns
	                              * the slice and no waiter has marked it */
	uint32_t n;                  /* acquisitions in the slice, accounted at timed releases */
	uint32_t gaps;               /* gaps timed (the first LS_SLICE_PROBE_N) */
	uint64_t gap_sum;            /* their sum, ticks, each at most LS_SLICE_GAP_CLIP bars */
	uint32_t left;               /* acquisitions to the next timed one, itself included */
	uint32_t stand;              /* acquisitions the next timed hold stands for */
	uint32_t rng;                /* xorshift32 state: where the next sample falls */
	bool timed;                  /* the current acquisition's hold is timed */
	bool group;                  /* a member of a group slice, not its only owner */
	bool called;                 /* the head was called (or will not be: call_head) */
	uint64_t start;              /* ticks: the slice began */
	uint64_t acq;                /* ticks: the current acquisition began */
	uint64_t rel;                /* ticks: the last release */
	uint64_t hold;               /* ticks held so far */
	uint64_t budget;             /* ticks of hold the slice may use */
	uint64_t wall;               /* ticks the slice may last */
	uint64_t bar;                /* LOCKSWAP_SLICE_GAP_NS in ticks */
	uint64_t dense;              /* LS_SLICE_DENSE_NS in ticks */
	uint64_t entry;              /* ticks of a lock call, not counted as hold */
	uint64_t called_at;          /* ticks: the head was called */
	uint64_t wake_limit;         /* LOCKSWAP_SLICE_WAKE_US in ticks */
	struct ls_cpu_use {
		uint64_t cpu_us;     /* CPU time, user + system */
		uint64_t preempted;  /* involuntary context switches */
	} cpu0;                      /* the thread's, at the start */
};
extern __thread struct ls_slice_self ls_slice_self;

/* Test hook: told each slice start (ticket = UINT32_MAX for a slice an
 * open arrival opened), each hand-over (the ticket served), each flush
 * (why: LS_SL_TRACE_FLUSH_*).  NULL in production: one relaxed load per
 * slice event, none on the owner's fast path. */
enum {
	LS_SL_TRACE_OPENED,    /* an open arrival owns a new slice */
	LS_SL_TRACE_HANDOVER,  /* ticket `t` is handed the slice */
	LS_SL_TRACE_FLUSH_GAP, /* the probe: slices do not pay here */
	LS_SL_TRACE_TAKEOVER,  /* the head took the slice of a stalled owner */
	LS_SL_TRACE_FLUSH_GHOST, /* an abandoned ticket in the queue */
	LS_SL_TRACE_CLOSED,    /* a slice ended with nobody queued */
	LS_SL_TRACE_QUEUED,    /* ticket `t` taken, `ahead` tickets before it */
	LS_SL_TRACE_SERVED,    /* ticket `t`'s waiter saw it served */
	LS_SL_TRACE_GROUP,     /* tickets t..t+ahead-1 are handed a group slice */
	LS_SL_TRACE_SEAT,      /* a leaving member passes its seat to ticket `t` */
	LS_SL_TRACE_FLUSH_SHARED, /* the owner waits behind shared holders: all let go */
	LS_SL_TRACE_CALLED,    /* the owner of a spent slice woke its head `t` (call_head) */
};
typedef void (*ls_slice_trace_fn)(const void *r, int event, uint32_t t, uint32_t ahead);
extern _Atomic(ls_slice_trace_fn) ls_slice_trace;

/* LOCKSWAP_SLICE_COUNTS (backends/slice.c): what the slices did in this
 * process, summed over every lock, printed at exit: where they ran, how
 * they ended, how long they lasted.  Counted only when on, and only at
 * slice events (relaxed adds on these shared counters: a few per slice,
 * never on an owner's acquisition). */
struct ls_slice_counts {
	_Atomic uint64_t opened;      /* slices opened by an arrival that found the lock held */
	_Atomic uint64_t queued;      /* tickets taken (arrivals that waited in line) */
	_Atomic uint64_t quiet;       /* arrivals sent to the inner lock by a quiet period */
	_Atomic uint64_t handovers;   /* slices handed to the oldest waiter */
	_Atomic uint64_t closed;      /* slices that ended with nobody waiting */
	_Atomic uint64_t not_paying;  /* slices given up as not paying (queue let go, quiet) */
	_Atomic uint64_t cond_ends;   /* ...of which ended by the owner's condvar wait */
	_Atomic uint64_t takeovers;   /* stalled owners' slices taken over by the head */
	_Atomic uint64_t flushes;     /* queues let go for an abandoned ticket or behind sharers */
	_Atomic uint64_t groups;      /* group slices started */
	_Atomic uint64_t seats;       /* seats passed in groups */
	_Atomic uint64_t backed_out;  /* free but reserved locks let go by a non-owner */
	_Atomic uint64_t acqs;        /* acquisitions inside ended slices */
	_Atomic uint64_t us;          /* wall time of ended slices, microseconds */
	_Atomic uint64_t probes;      /* probes completed (LS_SLICE_PROBE_N acquisitions) */
	_Atomic uint64_t probes_short; /* ...whose mean gap was within the bar */
	_Atomic uint64_t probe_gap_ns; /* sum over probes of the mean gap, ns */
	_Atomic uint64_t gap_ns;      /* hand-over to the new owner's first acquisition, ns */
	_Atomic uint64_t gaps;        /* ...hand-overs timed so */
	_Atomic uint64_t last_handover; /* ticks of the latest hand-over (while counting) */
	_Atomic uint64_t called;      /* heads woken before their hand-over (call_head) */
	_Atomic uint64_t awake;       /* ...that ran in time: handed over awake */
};
extern _Atomic unsigned ls_slice_counts_on;
extern struct ls_slice_counts ls_slice_counts;

static inline uint32_t ls_slice_grant_of(uint64_t w)
{
	return (uint32_t)(w & LS_SL_TICKET_MASK);
}
static inline uint32_t ls_slice_next_of(uint64_t w)
{
	return (uint32_t)((w >> LS_SL_NEXT_SHIFT) & LS_SL_TICKET_MASK);
}
static inline uint32_t ls_slice_queue_of(uint64_t w)
{
	return (ls_slice_next_of(w) - ls_slice_grant_of(w)) & LS_SL_TICKET_MASK;
}
static inline uint32_t ls_slice_gen_of(uint64_t w)
{
	return (uint32_t)((w & LS_SL_GEN_MASK) >> LS_SL_GEN_SHIFT);
}
static inline uint32_t ls_slice_epoch_of(uint64_t w)
{
	return (uint32_t)((w & LS_SL_EPOCH_MASK) >> LS_SL_EPOCH_SHIFT);
}

/* Open: no slice, nobody queued; arrivals go straight to the inner lock. */
static inline bool ls_slice_open(uint64_t w)
{
	return (w & LS_SL_OWNED) == 0 && ls_slice_queue_of(w) == 0;
}

/* The caller owns the slice of r in state w, or is a member of a group
 * slice of r: of the current group, or of an earlier one while groups go
 * on (a new group does not stop the members of the old one; each leaves
 * at its own seat's end, see pass_seat in slice.c). */
static inline bool ls_slice_mine(const struct ls_slice *r, uint64_t w)
{
	const struct ls_slice_self *s = &ls_slice_self;
	return (w & LS_SL_OWNED) && s->lock == r &&
	       (s->gen == ls_slice_gen_of(w) || (s->group && (w & LS_SL_GROUP)));
}

/* The owner is about to take the inner lock again.  The first
 * LS_SLICE_PROBE_N acquisitions of a slice are all timed: the probe counts
 * whether the owner came back within the bar (the share of short gaps, so
 * one preemption outside the lock does not condemn a slice).  After the
 * probe only about one in LS_SLICE_SAMPLE_EVERY is timed, at a random
 * place (no workload's period can line up with it), and its hold stands
 * for the untimed ones since the last: a clock read costs as much as the
 * lock's own atomic instruction (~10 ns on the project's VM).  With two
 * reads per acquisition an owner ran MutexBench's short section at 13.5 M
 * acquisitions/s (8 threads on 2 CPUs; one thread alone: 31 M/s), with
 * one hold in 16 timed at 23-24 M/s.  One in 64 (issue 45) gained another
 * 4% at 8 and 32 threads on the short and shorter sections, min share
 * unchanged within 0.02 (15 interleaved rounds each, docs/results.md
 * section 23): a timed acquisition and release cost about 150
 * instructions under callgrind, two ordered clock reads among them,
 * against about 26 for an untimed pair's steps beyond the open lock's.
 * The reads are ordered (see
 * entry_ticks in slice.c for why). */
static inline void ls_slice_owner_enter(void)
{
	struct ls_slice_self *s = &ls_slice_self;
	/* An untimed acquisition is this one decrement, and its release a
	 * test of `timed` (ls_slice_owner_release): the timed one that
	 * follows accounts for it.  left is 1 through the probe: own() sets
	 * it, and only a timed release past the probe sets more. */
	if (__builtin_expect(--s->left != 0, 1))
		return;
	/* 1: a second enter before the release (a shared holder's) times
	 * again instead of wrapping the count. */
	s->left = 1;
	s->acq = ls_ticks_ordered();
	s->timed = true;
	if (s->n < LS_SLICE_PROBE_N) {
		s->gaps++;
		uint64_t gap = ls_ticks_since(s->rel, s->acq);
		s->gap_sum += gap < LS_SLICE_GAP_CLIP * s->bar ? gap : LS_SLICE_GAP_CLIP * s->bar;
	}
}

/* The owner got the inner lock: if a waiter has begun to watch it, show
 * progress by clearing the mark (relaxed: a progress sign, orders
 * nothing).  The load is of the line the inner lock shares, which the
 * owner has just written: no RMW unless a waiter marked it. */
static inline void ls_slice_owner_acquired(struct ls_slice *r)
{
	if (atomic_load_explicit(&r->word, memory_order_relaxed) & LS_SL_MARKED)
		atomic_fetch_and_explicit(&r->word, ~(LS_SL_MARKED | LS_SL_MARK_MASK),
		                          memory_order_relaxed);
}

int ls_slice_acquire(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                     clockid_t clock, const struct timespec *abstime);
int ls_slice_trylock(struct ls_slice *r, const struct ls_lockable *in, void *inner);
/* The owner's unlock once its budget is spent or the probe is due. */
void ls_slice_unlock_end(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                         uint64_t now);
/* The same after the owner has released the inner lock itself. */
void ls_slice_released_end(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                           uint64_t now);

/* The holder is about to block (a condvar wait): it will not be back
 * soon, so its slice, if it owns one, ends with the unlock (as one that
 * does not pay: the queue goes to the inner lock and the lock opens)
 * instead of stalling the queue until the watch. */
void ls_slice_unlock_to_wait(struct ls_slice *r, const struct ls_lockable *in, void *inner);

static inline int ls_slice_lock(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (ls_slice_mine(r, w)) {
		ls_slice_owner_enter();
		int ret = in->lock(inner);
		ls_slice_owner_acquired(r);
		return ret;
	}
	if (ls_slice_open(w) && in->trylock(inner) == 0)
		return 0;
	return ls_slice_acquire(r, in, inner, CLOCK_MONOTONIC, NULL);
}

static inline int ls_slice_timedlock(struct ls_slice *r, const struct ls_lockable *in,
                                     void *inner, clockid_t clock,
                                     const struct timespec *abstime)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (ls_slice_open(w) && in->trylock(inner) == 0) /* open: nobody owns a slice */
		return 0;
	return ls_slice_acquire(r, in, inner, clock, abstime);
}

/* The caller's slice is spent at `now`: it has held the lock for its
 * budget; or it has lasted its wall limit (LS_SLICE_WALL_FACTOR times
 * that); or it has lasted the budget in wall time while the owner held
 * the lock for at most 1/LS_SLICE_IDLE_FACTOR of it: the owner idles, it
 * does not use the lock it keeps from the others, so its waiters should
 * not wait the full wall limit for it.  Measured hold fractions of whole
 * slices: LevelDB's readers, whose locks sit off their critical path, under 5%;
 * MutexBench's owners 25-40% (10-step sections, the owner's own lock and
 * unlock calls outside the hold) and 70% (100-step sections).  An eighth
 * kept a factor of 2 from both, but MutexBench's shorter section (4 steps
 * in, 20 out), as lock-bound as the others, holds about 12%: its slices
 * ended as idle after 300-600 us, and the hand-overs cost it 6-12%.  A
 * sixteenth (issue 45): 1.057 and 1.062 of an eighth at 8 and 32 threads
 * there, min share 0.95-0.98 against 0.90-0.95, LevelDB readrandom 1.003
 * [0.991, 1.010] (21 interleaved rounds; docs/results.md section 23). */
static inline bool ls_slice_spent(const struct ls_slice_self *s, uint64_t now)
{
	uint64_t lasted = ls_ticks_since(s->start, now);
	/* A group member's seat lasts the wall limit: members hold the lock
	 * for a small part of their time by definition (groups form where the
	 * lock is not the bottleneck), so the idle rule ended every seat after
	 * a quarter of it, and the extra seat passes and wake-ups cost LevelDB
	 * readrandom at 32 threads 0.88x glibc against 0.93x (15 interleaved
	 * rounds on 2 CPUs; MutexBench's moderate section the same). */
	if (s->group)
		return lasted >= s->wall;
	return s->hold >= s->budget || lasted >= s->wall ||
	       (lasted >= s->budget && lasted >= s->hold * LS_SLICE_IDLE_FACTOR);
}

/* How long the owner has held the lock at `now`: since its clock read
 * before the lock call, less the call's own cost (entry_ticks in
 * slice.c); never negative. */
static inline uint64_t ls_slice_held(const struct ls_slice_self *s, uint64_t now)
{
	return ls_ticks_since(s->acq + s->entry, now);
}

/* The owner's next pseudo-random number (xorshift32). */
static inline uint32_t ls_slice_rand(struct ls_slice_self *s)
{
	uint32_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	s->rng = x;
	return x;
}

/* The next sample falls 1..2 x LS_SLICE_SAMPLE_EVERY - 1 acquisitions on
 * (uniform: mean LS_SLICE_SAMPLE_EVERY). */
static inline uint32_t ls_slice_next_sample(struct ls_slice_self *s)
{
	return 1 + ls_slice_rand(s) % (2 * LS_SLICE_SAMPLE_EVERY - 1);
}

/* The owner releases.  A timed acquisition: account its hold, for itself
 * and the untimed acquisitions it stands for, and return now.  Untimed:
 * return 0 (no clock read; the next timed hold accounts for this one).
 * Budgets and limits are checked at timed releases only, so holds are
 * sampled only while the owner's acquisitions come more often than
 * LS_SLICE_DENSE_NS on average since the last timed release (where two
 * clock reads cost a few percent at most, each is timed): a slice then
 * overruns its budget or wall limit by at most 2 x LS_SLICE_SAMPLE_EVERY
 * - 1 acquisitions of about that length, ~127 us, not 127 long holds. */
static inline uint64_t ls_slice_owner_release(void)
{
	struct ls_slice_self *s = &ls_slice_self;
	if (__builtin_expect(!s->timed, 1))
		return 0;
	uint64_t now = ls_ticks_ordered();
	bool dense = ls_ticks_since(s->rel, now) < s->stand * s->dense;
	s->hold += ls_slice_held(s, now) * s->stand;
	s->n += s->stand;
	s->rel = now;
	s->timed = false;
	s->left = s->stand = s->n >= LS_SLICE_PROBE_N && dense ? ls_slice_next_sample(s) : 1;
	return now;
}

/* An owner_enter whose acquisition did not happen (a failed trylock):
 * undone, so that accounting stays exact. */
static inline void ls_slice_owner_unenter(void)
{
	struct ls_slice_self *s = &ls_slice_self;
	if (s->timed)
		s->timed = false; /* left is 1: the next acquisition is timed */
	else
		s->left++;
}

static inline void ls_slice_unlock(struct ls_slice *r, const struct ls_lockable *in, void *inner)
{
	/* Misuse (free, or already unlocked by a non-owner): nothing to do. */
	if (!in->is_locked(inner))
		return;
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (ls_slice_mine(r, w)) {
		struct ls_slice_self *s = &ls_slice_self;
		uint64_t now = ls_slice_owner_release();
		bool queued = ls_slice_queue_of(w) != 0;
		if (queued && (now == 0 || (s->n != LS_SLICE_PROBE_N && !ls_slice_spent(s, now)))) {
			in->unlock(inner);
			return;
		}
		ls_slice_unlock_end(r, in, inner, now ? now : ls_ticks());
		return;
	}
	in->unlock(inner);
}

/* ---- an inner lock that keeps the reservation (lockable.h `reserve`) ----
 * Its own fast path takes and releases it, and reads its reservation to
 * learn that a slice runs (slice_futex.h); these are the slice's part. */

/* Set the inner lock's reservation to the slice word's OWNED: after every
 * change of OWNED, by the thread that made it, and wherever a slow path
 * finds the two disagree.  Re-checks OWNED after its own change, so that
 * of two threads that change OWNED one after the other, the later one's
 * value stays (a few rounds at most; what a race leaves wrong costs a
 * moment's fairness or speed: slice_futex.h). */
void ls_slice_mirror(struct ls_slice *r, const struct ls_lockable *in, void *inner);

/* The caller owns a slice of a lock other than r (slice.c owns_another). */
bool ls_slice_owns_another(const struct ls_slice *r);

/* Past ls_slice_take_reserved's common case: an owner whose word is
 * marked, a group's member, or not the owner (keep the lock or let it go). */
int ls_slice_take_reserved_slow(struct ls_slice *r, const struct ls_lockable *in, void *inner,
                                uint64_t w, bool try);

/* The common case of ls_slice_mine on an owner's own lock: its record
 * names r, and the word is OWNED, of its generation, unmarked (one mask
 * and compare; a group's member, a marked word or anything else goes to
 * the full test). */
static inline bool ls_slice_owner_fast(const struct ls_slice *r, uint64_t w)
{
	const struct ls_slice_self *s = &ls_slice_self;
	return s->lock == r && ((w ^ s->expect) & (LS_SL_OWNED | LS_SL_GEN_MASK | LS_SL_MARKED)) == 0;
}

/* The caller has just taken the free inner lock of r and found it
 * reserved: a slice runs.  0: it keeps the lock: it owns the slice (an
 * acquisition of the slice, accounted as ls_slice_lock's owner path does,
 * with the clock read after the take rather than before the call), owns
 * another lock's slice (it never queues here: owns_another), is a trylock
 * (a trylock never waits in line), or no slice runs after all (the
 * reservation was stale: cleared).  EBUSY: it has released the lock
 * again and must wait its turn (ls_slice_acquire). */
static inline int ls_slice_take_reserved(struct ls_slice *r, const struct ls_lockable *in,
                                         void *inner, bool try)
{
	uint64_t w = atomic_load_explicit(&r->word, memory_order_relaxed);
	if (__builtin_expect(ls_slice_owner_fast(r, w), 1)) {
		ls_slice_owner_enter();
		return 0;
	}
	return ls_slice_take_reserved_slow(r, in, inner, w, try);
}

/* Past ls_slice_released_reserved's common case (below). */
void ls_slice_released_reserved_slow(struct ls_slice *r, const struct ls_lockable *in, void *inner);

/* The caller has just released the inner lock of r and found it reserved:
 * if it owns the slice, the release is accounted as ls_slice_unlock's
 * owner path does, and the slice ends when that would end it. */
static inline void ls_slice_released_reserved(struct ls_slice *r, const struct ls_lockable *in,
                                              void *inner)
{
	/* The owner's untimed release: nothing to account (the next timed
	 * one does), nothing to decide (budgets, limits and an empty queue
	 * are looked at on timed releases: about one in
	 * LS_SLICE_SAMPLE_EVERY, every one through the probe). */
	const struct ls_slice_self *s = &ls_slice_self;
	if (__builtin_expect(s->lock == r && !s->timed, 1))
		return;
	ls_slice_released_reserved_slow(r, in, inner);
}

#endif
