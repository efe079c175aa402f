/*
 * thread.h - per-thread records: identity, a park/unpark event, queue links.
 *
 * Queue-based locks and the condition variable link waiting threads
 * together.  Those links must not live on thread stacks or in static TLS:
 * after fork() glibc recycles every other thread's stack for the child's new
 * threads (docs/glibc.md, section 4), and a waiter node there
 * would be overwritten by foreign data.  So every thread gets one record,
 * carved out of mmap'ed slabs that are never unmapped ("type-stable"):
 *
 *   - a record is reused only after its thread exited (ls_thread_release);
 *     a stale pointer to it therefore still points at a valid record, and
 *     the worst a late writer can do is a spurious wake-up, which every
 *     wait loop tolerates by re-checking its condition;
 *   - in a fork child, ls_thread_after_fork() marks every record except the
 *     caller's dead and bumps ls_fork_epoch; dead records are never reused
 *     (locks they held stay held, as with glibc) and structures that hold
 *     waiter links compare a saved epoch to discard links from before fork.
 *
 * Identity: rec->id is a small integer (1..), unique among live records.
 * It survives fork for the forking thread (the child's TLS is a copy), which
 * is what recursive and error-checking mutexes need.
 *
 * core/ knows nothing of pthreads: whoever embeds it sets ls_thread_hook so
 * that it learns about new records (the interposer uses a pthread key whose
 * destructor calls ls_thread_release).
 */
#ifndef LS_CORE_THREAD_H
#define LS_CORE_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define LS_THREAD_RECORD_BYTES 256

enum {
	LS_THREAD_FREE = 0,  /* on the free list (or never handed out) */
	LS_THREAD_ALIVE = 1, /* attached to a running thread */
	LS_THREAD_DEAD = 2,  /* belonged to a parent thread before fork: never reused */
};

struct ls_home; /* core/runtime/home.h */
struct ls_cv_morph; /* core/condvar/morph.h */

struct ls_thread {
	/* Park/unpark event (futex word).  Its meaning belongs to whichever
	 * structure the thread is waiting in; a thread waits in one place at
	 * a time, so one word suffices. */
	_Atomic uint32_t event;
	uint32_t id;               /* 1.., stable for the record's life */
	_Atomic uint32_t state;    /* LS_THREAD_FREE / _ALIVE / _DEAD */
	uint32_t incarnation;      /* times the record was handed out (see ls_thread_tag) */
	/* Links for the condition variable's wait queue (core/condvar/condvar.h). */
	struct ls_thread *cv_next;
	struct ls_thread *cv_prev;
	struct ls_thread *cv_wake_next; /* broadcast baton chain */
	void *cv_owner;                 /* the cond this record is linked in */
	uint32_t cv_broadcast;          /* woken by broadcast (not signal) */
	/* Wait morphing (core/condvar/morph.h), relaxed atomics: a baton's
	 * passer reads a woken waiter's while it may run. */
	_Atomic uint32_t cv_morphed;    /* a signal moved it to its lock's word */
	void *_Atomic cv_lock;          /* the lock it takes back, or NULL */
	const struct ls_cv_morph *_Atomic cv_morph; /* that lock's morph verbs */
	/* Links for the lock algorithms in core/ (one queue at a time). */
	_Atomic(struct ls_thread *) q_next;
	_Atomic(struct ls_thread *) q_prev;
	_Atomic uintptr_t q_word[4];
	/* The embedder's per-thread statistics (lockswap's: stats/thread.c)
	 * live elsewhere; this only anchors them. */
	void *stats;
	/* The delegation home block (core/runtime/home.h), made on the first
	 * delegable wait and kept for the next thread with this record. */
	struct ls_home *home;
	struct ls_thread *free_next;    /* free list, guarded by the allocator */
};

_Static_assert(sizeof(struct ls_thread) <= LS_THREAD_RECORD_BYTES,
               "ls_thread outgrew its slot");

/* The calling thread's record (allocated on first use; NULL only if mmap
 * failed, which callers treat as ENOMEM/EAGAIN). */
struct ls_thread *ls_thread_self_slow(void);

extern __thread struct ls_thread *ls_thread_current
        __attribute__((tls_model("initial-exec")));

static inline struct ls_thread *ls_thread_self(void)
{
	struct ls_thread *t = ls_thread_current;
	return __builtin_expect(t != 0, 1) ? t : ls_thread_self_slow();
}

/* Identity as recorded in objects that may outlive the thread (the owner
 * of a recursive or error-checking mutex): the id plus the record's
 * incarnation, so a thread that reuses an exited thread's record is not
 * taken for it.  Ids are at most 2^20 (core/runtime/thread.c), below
 * 2^LS_THREAD_ID_BITS; the 11-bit incarnation wraps after 2048 reuses of
 * one record. */
#define LS_THREAD_ID_BITS 21
static inline uint32_t ls_thread_tag(const struct ls_thread *t)
{
	return t->id | (t->incarnation << LS_THREAD_ID_BITS);
}

/* The record with this id, or NULL.  Lock-free; valid ids only. */
struct ls_thread *ls_thread_by_id(uint32_t id);

/* Return the calling thread's record for reuse (thread exit). */
void ls_thread_release(struct ls_thread *t);

/* Called by the embedder once a record is attached to the calling thread. */
extern void (*ls_thread_hook)(struct ls_thread *t);

static inline bool ls_thread_alive(struct ls_thread *t)
{
	return atomic_load_explicit(&t->state, memory_order_relaxed) == LS_THREAD_ALIVE;
}

/* Fork child: mark all other records dead, bump the epoch. */
void ls_thread_after_fork(void);

/* Incremented in every fork child; read by structures that keep waiter
 * links, to notice "this queue was built before a fork". */
extern _Atomic uint32_t ls_fork_epoch;

/* The fork epoch's low `bits` bits (1..32), as a lock word or a queue node
 * keeps it.  Relaxed: the child bumps it while it is single-threaded, so
 * the child itself and every thread it creates later read the new value.
 * bits is a constant at every call, so this is one load and one mask. */
static inline uint32_t ls_epoch_now(unsigned bits)
{
	uint32_t e = atomic_load_explicit(&ls_fork_epoch, memory_order_relaxed);
	return bits >= 32 ? e : e & ((1u << bits) - 1u);
}

/* Records attached to live threads: the threads that ever waited or
 * owned, an upper bound of those that can spin at once. */
unsigned ls_thread_live(void);

/* Number of records ever created (for tests). */
uint32_t ls_thread_count(void);

#endif
