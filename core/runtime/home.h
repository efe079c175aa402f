/*
 * home.h - where a thread's own code runs: at home (its kernel thread) or
 * away (on another thread that runs its critical section for it, see
 * core/delegation/ces.h).
 *
 * Every thread that ever waits delegably gets one home block: the saved
 * context of its own code while it waits, the small stack its kernel
 * thread parks on meanwhile, and what a delegate needs to run the context
 * and take it back.  A block hangs off its thread record
 * (core/runtime/thread.h) and is never freed: the next thread with that
 * record reuses it.
 *
 * The rule that keeps delegation transparent: a context that is away never
 * blocks there.  Anything that would sleep (a contended lock, a condvar
 * wait, any park through core/runtime/wait.h, thread exit, fork) first
 * calls ls_go_home(): the context switches back to its delegate, which
 * stops its batch and wakes the context's own thread; the context goes on
 * from the same point at home, still holding the lock it ran under.
 *
 * Signals: a thread blocks every signal (but glibc's SIGSETXID) before it
 * parks delegably, and gets its mask back at home; a delegate blocks them
 * for the length of its batch.  So no handler ever runs in a context that
 * is away, or on a thread whose context is away: signals to either are
 * deferred until both are home again.
 */
#ifndef LS_CORE_HOME_H
#define LS_CORE_HOME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fiber.h"

/* Why a context came home before its critical section ended. */
enum ls_home_reason {
	LS_BACK_LOCK = 0,     /* a contended lock (second lock, or this one again) */
	LS_BACK_TIMEDLOCK,    /* a timed lock that had to wait */
	LS_BACK_CONDVAR,      /* a condvar wait (its mutex unlocked to wait) */
	LS_BACK_PARK,         /* any other wait that parks (rwlock, semaphore of core) */
	LS_BACK_EXIT,         /* the thread exits (pthread_exit, thread key destructors) */
	LS_BACK_FORK,         /* fork */
	LS_BACK_BLOCKING,     /* a sleep, poll, semaphore, join or signal wait (interpose/blocking.c) */
	LS_BACK_THREAD_STATE, /* a change of the thread's signal mask, affinity or scheduling (interpose/thread_state.c) */
	LS_BACK_REASONS
};

/* How a context that was away came back to its delegate. */
enum { LS_AWAY_DONE = 1, LS_AWAY_BACK = 2 };

struct ls_home {
	void *ctx;            /* the thread's own code, saved while it waits or runs away */
	void *delegate;       /* while away: the delegate's saved context */
	const void *lock;     /* the lock the context waits for or runs under */
	uint32_t result;      /* LS_AWAY_DONE / LS_AWAY_BACK, set before switching back */
	uint32_t reason;      /* enum ls_home_reason, with LS_AWAY_BACK */
	bool away;            /* the context runs on a delegate now */
	int cancel_state;     /* the embedder's, kept while away (ls_home_hooks) */
	ls_sigmask_t mask;    /* the thread's signal mask before it parked */
	char *stack_top;      /* the parking stack (16-byte aligned top) */
};

extern __thread struct ls_home *ls_home_current __attribute__((tls_model("initial-exec")));

/* The calling thread's block, made on first use; NULL if there is no thread
 * record or no memory (then the caller waits without delegation). */
struct ls_home *ls_home_self(void);

/* The running context is away from home.  One TLS load. */
static inline bool ls_away(void)
{
	struct ls_home *h = ls_home_current;
	return h && __builtin_expect(h->away, 0);
}

/* If away: go home (see above) and return there.  Otherwise nothing. */
void ls_go_home_slow(enum ls_home_reason why);
static inline void ls_go_home(enum ls_home_reason why)
{
	if (ls_away())
		ls_go_home_slow(why);
}

/* fork(2)'s prepare step (the embedder registers it): a context that is
 * away forks from its own thread, so the child is a copy of the thread
 * the context belongs to, not of its delegate in the middle of a batch. */
void ls_home_before_fork(void);

/* The context just resumed at home (by its own thread): mark it home, give
 * the thread back its signal mask and, if it had been away, the embedder
 * its state. */
void ls_home_arrived(struct ls_home *h);

/* The embedder's part (interpose/): what a context must not do while away.
 * leave_home runs in the context on the delegate right after it resumes
 * there; back_home runs at home.  The interposer turns cancellation off
 * in between, so that no cancellation point inside a delegated section
 * unwinds the waiter's stack on the delegate's thread. */
struct ls_home_hooks {
	void (*leave_home)(struct ls_home *h);
	void (*back_home)(struct ls_home *h);
};
extern const struct ls_home_hooks *ls_home_hooks;

/* ---- what delegation did (statistics, tests) ------------------------- */

#define LS_BATCH_BUCKETS 8 /* batch sizes 1, 2-3, 4-7, ..., 128+ */

struct ls_delegation_counts {
	uint64_t sections;           /* critical sections run by a delegate */
	uint64_t batches;            /* batches with at least one section */
	uint64_t batch_hist[LS_BATCH_BUCKETS];
	uint64_t handbacks[LS_BACK_REASONS];
	uint64_t granted;            /* hand-overs to a waiter's own thread */
	uint32_t batch_bound;        /* the delegating lock's bound on sections per batch */
};

/* Set by the delegating lock (core/delegation/ces.c) when it is chosen. */
extern uint32_t ls_delegation_batch_bound;

/* Counted once per batch by the delegate (relaxed adds): sums since start. */
void ls_delegation_counts(struct ls_delegation_counts *out);
void ls_delegation_count_batch(uint32_t sections, bool back, enum ls_home_reason why,
                               bool granted);
const char *ls_home_reason_name(enum ls_home_reason why);

#endif
