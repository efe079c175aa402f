/*
 * watch.h - lock-order checking and the hang watchdog: what the shim
 * tells them (docs/deadlock.md).  One way, as the statistics' hooks
 * (hooks.h): the shim (interpose/) calls these around the calls it
 * serves, and nothing here calls the shim.
 *
 * While both are off (LOCKSWAP_DEADLOCK=off and no hang watchdog), the
 * shim never reaches this code: its gates go straight to the backend, as
 * with statistics off (interpose/start/active.h ls_hooked, interpose/start/gate.h).
 * While either is on, every thread keeps a record (struct
 * ls_watch_thread): the locks it holds, in the order it took them, with
 * the return address of each lock call, and the lock it waits for, if
 * any.  From those:
 *   - lock order (LOCKSWAP_DEADLOCK=report|abort, order.c): a blocking
 *     acquisition of B while A is the newest lock held adds the edge
 *     A -> B to a graph over every mutex, rwlock and mtx_t; a new edge
 *     that closes a cycle is reported (watch_report.c);
 *   - hangs (LOCKSWAP_HANG_MS, watchdog.c): a thread of lockswap's own
 *     looks at the waiting threads every few hundred milliseconds and
 *     reports a wait longer than the limit, with the wait-for graph
 *     (waiter -> lock -> holder -> the lock the holder waits for ...).
 *
 * The record is reached through a thread-local pointer, so that under
 * `ces` a critical section run on a releasing thread (with the waiter's
 * TLS, docs/delegation.md) updates the waiter's record: the holder a
 * report names is the thread that logically holds the lock.
 *
 * The API the rest of lockswap may call (the `ces` safety work included)
 * is at the end: ls_watch_on, ls_watch_hang_ms, ls_watch_wait_begin/end,
 * ls_watch_holder, ls_watch_check_now.
 */
#ifndef LS_STATS_WATCH_H
#define LS_STATS_WATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* LOCKSWAP_DEADLOCK: the option's choice index. */
enum { LS_ORDER_OFF = 0, LS_ORDER_REPORT = 1, LS_ORDER_ABORT = 2 };

/* The configuration, given once by start-up (interpose/start/init.c) before
 * any other call here, and only when something is on.  `backend` must
 * stay valid for the process's life. */
struct ls_watch_settings {
	unsigned order;       /* LS_ORDER_* */
	unsigned hang_ms;     /* 0: no hang watchdog */
	const char *backend;  /* the mutex backend's name, for the reports */
	/* Start the watchdog with the program's second thread, not in the
	 * constructor: set when only the backend's default turned it on
	 * (ces), whose hangs need two threads, so that a single-threaded
	 * program keeps glibc's single-threaded shortcuts. */
	bool with_threads;
};
void ls_watch_configure(const struct ls_watch_settings *s);

/* Life cycle, each only while something is on. */
void ls_watch_constructor(void); /* the library's constructor: starts the watchdog */
void ls_watch_exit(void);        /* the library's destructor: pending reports */
void ls_watch_after_fork(void);  /* fork child: this thread's record only */
void ls_watch_thread_exit(void); /* thread exit (the thread-record key's destructor) */
void ls_watch_thread_create(void); /* pthread_create, before the new thread exists */

/* ---- the per-thread record ---- */

/* Locks a record keeps, innermost last; deeper nesting is counted, not
 * recorded (a lock taken beyond it has no edges and names no holder). */
#define LS_WATCH_HELD 32
/* Lock orders a record remembers as known (a direct-mapped cache). */
#define LS_WATCH_KNOWN 32

/* What a held lock (or a wait) is, in the low bits of its address (every
 * pthread_mutex_t, pthread_rwlock_t and mtx_t is 8-aligned). */
#define LS_WATCH_RWLOCK 1u /* an rwlock; else a mutex (or mtx_t) */
#define LS_WATCH_READ 2u   /* an rwlock held or wanted for reading */
#define LS_WATCH_TIMED 4u  /* (a request) a timed lock */
#define LS_WATCH_BITS 7u

struct ls_watch_held {
	_Atomic uintptr_t lock; /* address | LS_WATCH_RWLOCK | LS_WATCH_READ */
	_Atomic uintptr_t site; /* the return address of the lock call */
};

/* Written by its thread only (or, under ces, by whoever runs that
 * thread's context); read racily by the watchdog and by the reports,
 * hence atomics, relaxed but for `n`, stored with release after the
 * entry it covers. */
struct ls_watch_thread {
	_Atomic uint32_t n;     /* entries of held[] in use */
	uint32_t lost;          /* locks held beyond LS_WATCH_HELD */
	struct ls_watch_held held[LS_WATCH_HELD];
	/* The wait in progress: lock (0: none), the call's site, its start
	 * (CLOCK_MONOTONIC ns), and a count of waits begun, stored last
	 * (release), so that the watchdog reports each wait once. */
	_Atomic uintptr_t wait_lock;
	_Atomic uintptr_t wait_site;
	_Atomic uint64_t wait_ns;
	_Atomic uint32_t wait_seq;
	uint32_t reported_seq;  /* the watchdog's: the wait it reported last */
	_Atomic int32_t tid;
	_Atomic uint32_t state; /* LS_WATCH_T_* (watch_thread.c) */
	char name[16];          /* the thread's name, as last read (order.c) */
	uint64_t name_ns;       /* when: read again after 100 ms */
	/* The lock orders this thread found known lately (order.c), so that
	 * a nesting it repeats asks the graph nothing: valid in the forget
	 * epoch they were found in. */
	struct ls_watch_known {
		uintptr_t from, to;
		uint32_t epoch;
	} known[LS_WATCH_KNOWN];
	struct ls_watch_thread *all_next;  /* every record ever made */
	struct ls_watch_thread *free_next; /* records free for reuse */
};

/* The calling thread's record; a shared one that holds nothing and
 * never changes (ls_watch_nobody, n = UINT32_MAX) until the thread's
 * first lock call that the slow path serves, which gives it its own. */
extern __thread struct ls_watch_thread *ls_watch_me __attribute__((tls_model("initial-exec")));

/* The calling thread's own record, made on first use; NULL where none
 * can be had (no memory, or the thread is exiting): the call is then
 * served without being watched. */
struct ls_watch_thread *ls_watch_self(void);

/* ---- what the shim calls: in order, for one acquisition ----
 *
 *   ls_watch_request    before a lock that can block (lock, timed lock,
 *                       an rwlock's rdlock/wrlock, a condvar's
 *                       re-acquisition), while the thread holds another
 *                       lock: adds the lock-order edge (not for a try)
 *   ls_watch_wait_begin after the first try failed, before blocking
 *   ls_watch_wait_end   when the blocking call returned
 *   ls_watch_acquired   after any successful acquisition, tries included
 *   ls_watch_released   before the release (a condvar wait's too)
 *   ls_watch_forget     init or destroy: the address is a new lock
 *
 * `lock` is the object's address with its LS_WATCH_RWLOCK / _READ bits;
 * `site` the program's return address.  The gate's own table
 * (interpose/counting/watching.c) does the common cases inline: the first lock of
 * a thread that holds none, the release of the only lock held. */
void ls_watch_request(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site);
void ls_watch_acquired(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site);
bool ls_watch_released(struct ls_watch_thread *t, uintptr_t lock); /* true: it was held */
void ls_watch_forget(const void *addr);

/* The inline cases (the gate's table).  First: the thread holds nothing
 * (t->n == 0, which the caller tested). */
static inline void ls_watch_first(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site)
{
	atomic_store_explicit(&t->held[0].lock, lock, memory_order_relaxed);
	atomic_store_explicit(&t->held[0].site, site, memory_order_relaxed);
	atomic_store_explicit(&t->n, 1, memory_order_release);
}

/* The release of `lock` when it is the only lock held; false: the caller
 * calls ls_watch_released (ls_watch_nobody's n never matches). */
static inline bool ls_watch_release_only(struct ls_watch_thread *t, uintptr_t lock)
{
	if (atomic_load_explicit(&t->n, memory_order_relaxed) != 1 ||
	    atomic_load_explicit(&t->held[0].lock, memory_order_relaxed) != lock)
		return false;
	atomic_store_explicit(&t->n, 0, memory_order_release);
	return true;
}

/* ---- the API for the rest of lockswap ---- */

/* Whether the watchdog watches waits, and its limit (0: off).  Both are
 * fixed at start-up (LOCKSWAP_HANG_MS; its default is 2000 ms while
 * LOCKSWAP_DEADLOCK is on, else the backend's own, 1000 ms for `ces`). */
bool ls_watch_on(void);
unsigned ls_watch_hang_ms(void);

/* A wait the shim's lock paths do not see (a delegation wait, a wait of
 * the backend's own): the calling thread waits for `lock` (with its
 * LS_WATCH_* bits) from `site`; the watchdog reports it once if it lasts
 * longer than the limit, naming the lock's holder.  No-ops while the
 * watchdog is off.  Not nested: a thread waits for one thing at a time. */
void ls_watch_wait_begin(uintptr_t lock, uintptr_t site);
void ls_watch_wait_end(void);

/* Who holds `addr` (as its logical owner: the thread whose record lists
 * it): that thread's kernel thread id (-1: a thread of the parent, in a
 * fork child), and the site where it took the lock.  0 if no record
 * lists it (free, held by a thread that is not watched, or nesting
 * deeper than LS_WATCH_HELD).  A racy snapshot. */
int ls_watch_holder(const void *addr, uintptr_t *site);

/* Run one check of the watchdog now, on the calling thread; the number
 * of reports it printed.  For tests and tools. */
unsigned ls_watch_check_now(void);

#endif
