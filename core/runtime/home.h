/*
 * home.h - where a thread's own code runs: at home (its kernel thread) or
 * away (on another thread that runs its critical section for it, see
 * core/delegation/ces.h).
 *
 * Every thread that ever waits delegably, or runs others' sections, gets
 * one home block: the saved context of its own code while it waits, the
 * small stack its kernel thread parks on meanwhile, what a delegate needs
 * to run the context and take it back, and the signals kept for the
 * context while its kernel thread runs another's.  A block hangs off its
 * thread record (core/runtime/thread.h) and is never freed: the next
 * thread with that record reuses it.
 *
 * The rule that keeps delegation transparent: a context that is away never
 * blocks there, and never does anything whose effect belongs to a kernel
 * thread.  Anything that would sleep (a contended lock, a condvar wait, any
 * park through core/runtime/wait.h, a blocking call of the program's,
 * thread exit, fork) or act on "the calling thread" as the kernel sees it
 * (credentials, signal masks and sends, thread creation, names,
 * scheduling) first calls ls_go_home(): the context switches back to its
 * delegate, which stops its batch and wakes the context's own thread; the
 * context goes on from the same point at home, still holding the lock it
 * ran under.  The embedder lists those calls (interpose/away/).
 *
 * Signals (home_signal.h): a waiter parks with its own signal mask, and a
 * delegate runs a section only for a waiter whose mask equals its own, so
 * every section runs under its waiter's mask.  The embedder sends every
 * handled signal through ls_home_signal_route(), which runs the program's
 * handler in the context the signal is for, or keeps it until that
 * context is where it can run.
 */
#ifndef LS_CORE_HOME_H
#define LS_CORE_HOME_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fiber.h"
#include "sys.h"

struct ls_qnode;

/* Why a context came home before its critical section ended. */
enum ls_home_reason {
	LS_BACK_LOCK = 0,     /* a contended lock (second lock, or this one again) */
	LS_BACK_TIMEDLOCK,    /* a timed lock that had to wait */
	LS_BACK_CONDVAR,      /* a condvar wait (its mutex unlocked to wait) */
	LS_BACK_PARK,         /* any other wait that parks (rwlock, semaphore of core) */
	LS_BACK_EXIT,         /* the thread exits (pthread_exit, a returning start routine, exit) */
	LS_BACK_FORK,         /* fork, vfork, posix_spawn, system, popen, thread creation */
	LS_BACK_BLOCKING,     /* a call that may block: sleeps, I/O, waits (the cancellation points) */
	LS_BACK_THREAD_STATE, /* a change of what the kernel keeps per thread: mask, affinity, scheduling, name, stack */
	LS_BACK_SIGNAL,       /* the section sends a signal */
	LS_BACK_CREDENTIALS,  /* the setuid() family, setgroups */
	LS_BACK_KERNEL_LOCK,  /* a lock the kernel or glibc ties to the kernel thread (PI, robust, process-shared, stdio, spin) */
	LS_BACK_CANCEL,       /* cancellation state, type, or a cancellation point */
	LS_BACK_REASONS
};

/* How a context that was away came back to its delegate. */
enum { LS_AWAY_DONE = 1, LS_AWAY_BACK = 2 };

/* Signals kept for a context while its kernel thread runs another's:
 * one per signal number (the first 48 bytes of the siginfo are all the
 * kernel keeps, sys.h), delivered when the context is back. */
#define LS_HOME_SIGINFO_BYTES 48

struct ls_home {
	void *ctx;            /* the thread's own code, saved while it waits or runs away */
	void *delegate;       /* while away: the delegate's saved context */
	struct ls_home *host; /* while away: the delegate's own block */
	const void *lock;     /* the lock the context waits for or runs under */
	struct ls_qnode *node; /* while parked: the queue node it waits on */
	/* The lock's: take the parked waiter out of its queue if it still
	 * waits there (a CAS on its node); true if it did.  Called from a
	 * signal handler on the waiter's thread (home_signal.c). */
	bool (*withdraw)(struct ls_home *h);
	uint32_t result;      /* LS_AWAY_DONE / LS_AWAY_BACK, set before switching back */
	uint32_t reason;      /* enum ls_home_reason, with LS_AWAY_BACK */
	/* The context runs on a delegate now: set by the delegate before it
	 * switches to the context (release: `host` is written before it),
	 * cleared as soon as it is back, so that a signal never follows the
	 * context to a delegate it has left.  Read by the context itself and
	 * by signal handlers on other threads (home_signal.c, acquire). */
	_Atomic bool away;
	/* The embedder's leave_home ran (the context went away once in this
	 * wait): back_home is owed when it is home again. */
	bool left_home;
	/* The home thread runs on its parking stack: written by that thread
	 * only, read by its own signal handlers (same thread: no fence). */
	volatile bool parked;
	/* A signal took the parked waiter out of its queue: it retries. */
	volatile bool interrupted;
	/* A signal handler blocked a re-queued signal in this kernel thread's
	 * mask: the owner sets its mask again before it goes on. */
	volatile bool mask_dirty;
	/* This thread runs a batch of others' sections (a delegate): its own
	 * signals are kept until the batch has ended and its waiters are
	 * woken (home_signal.c).  Written by this thread only. */
	volatile bool hosting;
	int cancel_state;     /* the embedder's, kept while away (ls_home_hooks) */
	ls_sigmask_t mask;    /* the context's signal mask, read when it parks or hosts */
	/* The alternate signal stack of the context's thread: read when the
	 * block is made, kept up to date by the embedder's sigaltstack (the
	 * program's calls go home for it).  A delegate runs a section on the
	 * section's own (ls_home_use_altstack). */
	stack_t alt;
	long tid;             /* the kernel thread this context belongs to */
	_Atomic uint64_t kept;  /* signals kept for this context, bit s-1 = signal s */
	unsigned char kept_info[64][LS_HOME_SIGINFO_BYTES];
	char *stack_top;      /* the parking stack (16-byte aligned top) */
};

extern __thread struct ls_home *ls_home_current __attribute__((tls_model("initial-exec")));

/* A delegating lock was chosen (it sets this when it is prepared); the
 * embedder then puts its signal routing in place and calls
 * ls_home_start_delegation(), which sets ls_home_delegating: delegation
 * runs from then on. */
extern bool ls_home_delegation_wanted;
extern bool ls_home_delegating;
void ls_home_start_delegation(void);

/* Locks held by the running context whose owner is its kernel thread
 * (the embedder counts them: PI, robust and process-shared mutexes,
 * stdio locks, spin locks).  While it holds any, a context neither hosts
 * others' sections (a section could wait for one of them, which its own
 * delegate holds) nor waits delegably (its section could release one on
 * another kernel thread). */
extern __thread unsigned ls_home_pins __attribute__((tls_model("initial-exec")));

/* The calling thread's block, made on first use; NULL if there is no thread
 * record or no memory (then the caller waits without delegation). */
struct ls_home *ls_home_self(void);

/* The running context's thread pointer (glibc's TCB, whose first word
 * points at itself): where its initial-exec TLS is. */
static inline const void *ls_home_tp(void)
{
#if defined(__x86_64__)
	const void *tp;
	__asm__("movq %%fs:0, %0" : "=r"(tp));
	return tp;
#else
	return 0;
#endif
}

/* The running context is away from home.  One TLS load. */
static inline bool ls_away(void)
{
	struct ls_home *h = ls_home_current;
	return h && __builtin_expect(atomic_load_explicit(&h->away, memory_order_relaxed), 0);
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
/* fork(2)'s child step: the calling thread's block belongs to a new
 * kernel thread. */
void ls_home_after_fork(void);

/* Make this kernel thread's alternate signal stack `ss` (a raw call);
 * false if the kernel refused (the thread runs on its current one). */
bool ls_home_use_altstack(const stack_t *ss);

/* Whether two alternate stacks are the same for the kernel. */
static inline bool ls_home_same_altstack(const stack_t *a, const stack_t *b)
{
	bool off_a = a->ss_flags & SS_DISABLE, off_b = b->ss_flags & SS_DISABLE;
	return off_a == off_b && (off_a || (a->ss_sp == b->ss_sp && a->ss_size == b->ss_size));
}

/* The context just resumed at home (by its own thread): mark it home, give
 * the thread back its signal mask if a handler changed it and, if it had
 * been away, the embedder its state. */
void ls_home_arrived(struct ls_home *h);

/* The embedder's part (interpose/): what a context must not do while away.
 * leave_home runs in the context on the delegate right after it resumes
 * there; back_home runs at home.  The interposer turns cancellation off
 * in between, so that no cancellation point it cannot see (one inside
 * glibc) unwinds the waiter's stack on the delegate's thread. */
struct ls_home_hooks {
	void (*leave_home)(struct ls_home *h);
	void (*back_home)(struct ls_home *h);
};
extern const struct ls_home_hooks *ls_home_hooks;

const char *ls_home_reason_name(enum ls_home_reason why);

#endif
