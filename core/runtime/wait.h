/*
 * wait.h - the waiting policy: how every algorithm in core/ spins, parks,
 * wakes, and lets a waiter that is cancelled give up its place.
 *
 * No algorithm keeps its own spin constants.  Each asks this module three
 * questions:
 *
 *   1. May I spin, and for how long?  (ls_spin_start / ls_spin_more)
 *      - Spinning pays only while a CPU is free for the spinner: a
 *        process-wide count of spinning threads is kept against the CPUs
 *        the process may run on (sched_getaffinity).  A waiter that
 *        would exceed it parks at once.  The count never exceeds the
 *        bound (a CAS admits each spinner).
 *        The bound is CPUs - 2 (one CPU for the holder, one for a thread
 *        that is handed the lock), or 1 with 2 CPUs.
 *      - The budget is time, not polls, and it adapts: each lock address
 *        hashes to an estimate of how long a successful spin on it lasts
 *        (an exponentially weighted mean of recent successful spins);
 *        the budget is a few times that, clamped to
 *        [LS_SPIN_MIN_NS, LS_SPIN_MAX_NS] (for a waiter in a FIFO queue
 *        the lower clamp is LS_SPIN_QUEUE_MIN_NS, above the ~7 us a
 *        hand-over to a parked thread costs, and the budget restarts
 *        whenever the queue moves: LS_SPIN_UNTIL_MOVING).  A spin that
 *        ran out halves the estimate, so on a lock held for long, waiters
 *        quickly stop burning CPU; the lower clamp keeps probing.
 *      - LOCKSWAP_SPIN=N (an override) replaces the time budget by N
 *        polls; the spinner bound still applies.
 *
 *   2. Who waits awake?  That is each algorithm's decision, made with
 *      ls_spin_*: queue locks let the waiters nearest the head spin
 *      and wake the next ones ahead of the hand-over (see each
 *      algorithm's header), so the next owner is already running when the
 *      lock is released, whenever a CPU is free for it.
 *
 *   3. How do I sleep?  ls_park() (a futex wait); see "the one door"
 *      below for its variants and ls_unpark().  While a lock call runs
 *      for a thread that had asynchronous cancellation enabled, its parks
 *      are the only places where it can be cancelled, and a cancellation
 *      there runs the "leave" steps that the algorithm registered with
 *      ls_wait_push() (innermost first): each gives up the thread's queue
 *      position exactly as a timeout would, so a cancelled waiter never
 *      blocks the threads behind it.  Outside parks the thread runs with
 *      cancellation deferred (ls_wait_enter/ls_wait_exit around every slow
 *      path), so it is never cancelled half-way through a queue update.
 *      core/ knows nothing of pthreads: the embedder installs the hooks
 *      (ls_wait_cancel_hooks); without them parks are plain futex waits.
 */
#ifndef LS_CORE_WAIT_H
#define LS_CORE_WAIT_H

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "futex.h"
#include "spin.h"
#include "sys.h"
#include "timespec.h"

#define LS_SPIN_MIN_NS 3000u        /* a spin always gets this long */
#define LS_SPIN_QUEUE_MIN_NS 20000u /* a queue waiter's step, see below */
#define LS_SPIN_MAX_NS 200000u      /* and never longer than this */
#define LS_SPIN_INIT_NS 5000u   /* starting estimate of a successful spin */

/* One waiter's spin phase. */
struct ls_spin {
	uint64_t start_ns;    /* start of the current step */
	uint64_t first_ns;    /* start of the phase */
	uint32_t budget;      /* ns per step, or polls with the override */
	uint32_t polls;       /* in the current step */
	uint32_t steps;       /* progress seen (ls_spin_progress) */
	bool counted;         /* holds a place in the spinner count */
	_Atomic uint32_t *est; /* the lock's estimate slot */
};

/* Begin spinning for lock `lock`.  False: no CPU is free, park at once
 * (nothing to stop).  True: call ls_spin_more() between polls, and
 * ls_spin_stop() once done, whatever the outcome. */
bool ls_spin_start(struct ls_spin *s, const void *lock);

/* The same for a waiter in a FIFO queue: its step budget is at least
 * LS_SPIN_QUEUE_MIN_NS, above the cost of one hand-over to a parked
 * thread, because a queue waiter that gives up makes every later
 * hand-over a wake-up, while a barging waiter that gives up costs only
 * itself. */
bool ls_spin_start_queued(struct ls_spin *s, const void *lock);

/* The same for a queue waiter while every thread of the process has a
 * CPU of its own (ls_thread_live() <= ls_wait_cpus(), the caller checks):
 * no place in the spinner count is taken, because no thread of the
 * process is waiting for the CPU this one spins on, and a waiter that
 * parks there makes its hand-over wait for a wake-up (issue 38: bcs at 16
 * threads on 16 CPUs).  Only bcs uses it; no other caller's policy
 * changes.  LOCKSWAP_SPIN=N still replaces the budget by N polls. */
bool ls_spin_start_own_cpu(struct ls_spin *s, const void *lock);

/* Pause once; false when the budget is spent (then call ls_spin_stop). */
bool ls_spin_more(struct ls_spin *s);

/* The structure moved (a queue advanced): the budget starts again, so a
 * waiter far back spins for as long as every step stays within it. */
void ls_spin_progress(struct ls_spin *s);

/* End of the phase; `won`: the awaited condition came true. */
void ls_spin_stop(struct ls_spin *s, bool won);

/* Spin until COND holds or the policy says park; evaluates to COND's last
 * value (true: no need to park).  COND is re-evaluated after each pause. */
#define LS_SPIN_UNTIL(lock, COND) LS_SPIN_UNTIL_FROM(ls_spin_start, lock, COND)

/* LS_SPIN_UNTIL with the phase begun by START, one of the ls_spin_start*
 * functions or an expression that yields one; START is evaluated only when
 * COND is false at first. */
#define LS_SPIN_UNTIL_FROM(START, lock, COND)                            \
	__extension__({                                                  \
		bool ls_won_ = (COND);                                   \
		struct ls_spin ls_s_;                                    \
		if (!ls_won_ && (START)(&ls_s_, (lock))) {               \
			while (ls_spin_more(&ls_s_))                     \
				if ((ls_won_ = (COND)))                  \
					break;                           \
			ls_spin_stop(&ls_s_, ls_won_);                   \
		}                                                        \
		ls_won_;                                                 \
	})

/* LS_SPIN_UNTIL for a waiter in a queue: MARK is a value that changes
 * whenever the queue moves (a grant counter, a lock word); it is read
 * every 8 polls, and each change restarts the budget.  The estimate then
 * learns the time per step, whatever the waiter's position. */
#define LS_SPIN_UNTIL_MOVING(lock, COND, MARK)                           \
	__extension__({                                                  \
		bool ls_won_ = (COND);                                   \
		struct ls_spin ls_s_;                                    \
		if (!ls_won_ && ls_spin_start_queued(&ls_s_, (lock))) {         \
			uint64_t ls_m_ = (uint64_t)(MARK);               \
			while (ls_spin_more(&ls_s_)) {                   \
				if ((ls_won_ = (COND)))                  \
					break;                           \
				if (ls_s_.polls & 7)                     \
					continue;                        \
				uint64_t ls_m2_ = (uint64_t)(MARK);      \
				if (ls_m2_ != ls_m_) {                   \
					ls_m_ = ls_m2_;                  \
					ls_spin_progress(&ls_s_);        \
				}                                        \
			}                                                \
			ls_spin_stop(&ls_s_, ls_won_);                   \
		}                                                        \
		ls_won_;                                                 \
	})

/* The last resort of a queue lock that got no node (out of memory): poll
 * TRY (a trylock expression, 0 = taken) until it takes the lock or
 * `abstime` passes on `clock`, yielding the CPU between polls.  Evaluates
 * to 0 or ETIMEDOUT. */
#define LS_POLL_TRYLOCK(TRY, clock, abstime)                             \
	__extension__({                                                  \
		int ls_r_ = 0;                                           \
		while ((TRY) != 0) {                                     \
			if (ls_timespec_passed((clock), (abstime))) {    \
				ls_r_ = ETIMEDOUT;                       \
				break;                                   \
			}                                                \
			ls_sys_yield();                                  \
		}                                                        \
		ls_r_;                                                   \
	})

/* ---- parking: the one door ------------------------------------------ */

/* Every sleep and wake-up in core/ goes through these calls or, for the
 * allocators' lock (alloc_lock.h), through the primitive under them
 * (park.h), and only these reach futex.h: a change to how waiters sleep (a
 * probe, a different kernel primitive, a time-out policy) is made here, in
 * wait.c and in park.c.  All but ls_park_parked return what ls_futex_wait
 * returns: 0 when woken (or spuriously), EAGAIN when *word already
 * differed, ETIMEDOUT, EINTR; callers re-check.
 *
 * Each of them (and park.h's) first sends a delegated critical section
 * home (core/runtime/home.h), so that no park of core/ ever sleeps a
 * delegate's thread for another thread's code; ls_park_parked alone does
 * not, because its caller is at home by construction (the thread of a
 * parked waiter). */

/* Wait while *word == expected.  Cancellable inside an ls_wait_enter()
 * scope of an asynchronously cancellable thread (the leave steps then
 * run); elsewhere a plain wait.  A lock's waiters park here. */
int ls_park(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
            const struct timespec *abstime);

/* The same, never a cancellation point: for waits that must finish once
 * begun (a dequeued waiter awaiting its verdict, a reply already owed, a
 * short internal lock such as the allocators', alloc_lock.h). */
int ls_park_uncancellable(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                          const struct timespec *abstime);

/* The sleep of a delegable waiter's own thread on its parking stack while
 * its context may run on a delegate (core/delegation/ces.c): raw, so that
 * it writes no errno into the context's TLS, and never a go-home (the
 * thread is home; its context is what may be away).  No timeout. */
static inline void ls_park_parked(const _Atomic uint32_t *word, uint32_t expected)
{
	ls_futex_wait_raw(word, expected);
}

/* A wait that is a cancellation point whatever the thread's cancellation
 * type, as pthread_cond_wait is: a cancellation inside it runs the
 * caller's own cleanup handlers (the condvar's), not leave steps.
 * Without the embedder's hooks, a plain wait. */
int ls_park_cancel_point(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
                         const struct timespec *abstime);

/* Wake up to n threads parked on word; returns how many were woken. */
static inline int ls_unpark(const _Atomic uint32_t *word, int n)
{
	return ls_futex_wake(word, n);
}

/* Move, without waking it, one thread parked on `from` while *from is still
 * `expected` to `to`, whose wake then wakes it; returns how many moved
 * (0 or 1).  A condvar's signal to a waiter whose mutex the signaller
 * holds (core/condvar/morph.h). */
static inline int ls_unpark_to(const _Atomic uint32_t *from, uint32_t expected,
                               const _Atomic uint32_t *to)
{
	return ls_futex_requeue(from, expected, to);
}

/* ---- cancellation ----------------------------------------------------- */

/* A leave step: gives up what the waiter holds in one structure (a queue
 * position, a semaphore credit, the lock itself if it was granted
 * meanwhile).  Frames live on the waiter's stack, linked innermost first;
 * they are only linked while the thread is cancellable, so pushing costs
 * one TLS load otherwise. */
struct ls_wait_frame {
	void (*leave)(void *arg);
	void *arg;
	struct ls_wait_frame *up;
	bool linked;
};

/* A slow path's scope: entered before the first shared-state change the
 * path makes, exited on every return. */
struct ls_wait_scope {
	bool held; /* this scope turned asynchronous cancellation off */
};

/* Per thread: the embedder saw this thread turn asynchronous cancellation
 * on (and not back off).  Set by the embedder only (interpose/entry/cancel.c
 * tracks pthread_setcanceltype).  While it is false, which is every
 * thread that never asks for asynchronous cancellation, a lock call
 * cannot be cut anywhere, so scopes and frames cost this one
 * thread-local test and parks are plain futex waits. */
extern __thread bool ls_wait_async;

void ls_wait_enter_async(struct ls_wait_scope *sc);
void ls_wait_enter_quiet_async(struct ls_wait_scope *sc);
void ls_wait_exit_async(struct ls_wait_scope *sc);
void ls_wait_push_async(struct ls_wait_frame *f, void (*leave)(void *arg), void *arg);
void ls_wait_pop_linked(struct ls_wait_frame *f);

static inline void ls_wait_enter(struct ls_wait_scope *sc)
{
	sc->held = false;
	if (__builtin_expect(ls_wait_async, 0))
		ls_wait_enter_async(sc);
}
/* The same, for a path that is no cancellation point but must not be cut
 * half-way (an unlock that serves other threads' requests): parks inside
 * stay uncancellable. */
static inline void ls_wait_enter_quiet(struct ls_wait_scope *sc)
{
	sc->held = false;
	if (__builtin_expect(ls_wait_async, 0))
		ls_wait_enter_quiet_async(sc);
}
static inline void ls_wait_exit(struct ls_wait_scope *sc)
{
	if (__builtin_expect(sc->held, 0))
		ls_wait_exit_async(sc);
}
static inline void ls_wait_push(struct ls_wait_frame *f, void (*leave)(void *arg), void *arg)
{
	f->linked = false;
	if (__builtin_expect(ls_wait_async, 0))
		ls_wait_push_async(f, leave, arg);
}
static inline void ls_wait_pop(struct ls_wait_frame *f)
{
	if (__builtin_expect(f->linked, 0))
		ls_wait_pop_linked(f);
}

/* The embedder's side (the interposer: interpose/entry/cancel.c). */
struct ls_wait_cancel_hooks {
	/* Turn asynchronous cancellation off for the calling thread; true if
	 * it was on (and cancellation enabled), i.e. it must be restored. */
	bool (*hold)(void);
	void (*restore)(void);
	/* Futex wait with asynchronous cancellation on, the thread's
	 * cancellation type restored after it, and `cleanup(arg)` run if the
	 * thread is cancelled inside it. */
	int (*park)(const _Atomic uint32_t *word, uint32_t expected, clockid_t clock,
	            const struct timespec *abstime, void (*cleanup)(void *), void *arg);
};
extern _Atomic(const struct ls_wait_cancel_hooks *) ls_wait_cancel_hooks;

/* ---- introspection (tests, lockswap list) ----------------------------- */

unsigned ls_wait_spinners(void);   /* threads spinning now */
unsigned ls_wait_spin_bound(void); /* the most that may spin at once */
unsigned ls_wait_cpus(void);        /* the CPUs the process may run on */

/* Whether a thread woken ahead of its turn could spin now: wake-ahead is
 * skipped when it could not (it would only cost the woken thread a
 * futile trip through the scheduler). */
static inline bool ls_wait_cpu_free(void)
{
	return ls_wait_spinners() < ls_wait_spin_bound();
}
/* Test hook: pretend the process may use n CPUs (0 = measure again). */
void ls_wait_set_cpus(unsigned n);

#endif
