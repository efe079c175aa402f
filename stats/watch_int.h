/*
 * watch_int.h - what the files of the lock-order check and the hang
 * watchdog share (watch.h is what the shim sees):
 * each using only those listed before it (the layering check, docs/
 * hacking.md, wants no circle of calls):
 *   watch_state.c   the configuration, the clock
 *   watch_thread.c  the per-thread records: held locks, waits
 *   order.c         the lock-order graph, its cycles
 *   watch_names.c   how reports name locks, sites, threads
 *   watch_print.c   the reports on stderr
 *   watchdog.c      the watchdog thread: waits too long, the wait-for graph
 *   watch_out.c     the statistics' outputs: JSON, Prometheus, the summary
 *   watch_run.c     the life cycle, and the shim's hooks that need several
 */
#ifndef LS_STATS_WATCH_INT_H
#define LS_STATS_WATCH_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "watch.h"

/* A record's state. */
enum {
	LS_WATCH_T_FREE = 0,   /* free for the next thread */
	LS_WATCH_T_LIVE = 1,   /* its thread runs */
	LS_WATCH_T_EXITED = 2, /* its thread exited holding a lock: kept */
	LS_WATCH_T_PARENT = 3, /* fork child: a thread of the parent that held a lock */
};

/* The configuration (ls_watch_configure), set once before any lock is
 * watched. */
struct ls_watch_config {
	unsigned order;      /* LS_ORDER_* */
	unsigned hang_ms;    /* 0: no watchdog checks */
	const char *backend;
	bool with_threads;   /* the watchdog starts with the second thread */
	uint64_t start_ns;   /* CLOCK_MONOTONIC at configuration */
	uint64_t start_real_ns;
};
extern struct ls_watch_config ls_watch_cfg;
extern _Atomic bool ls_watch_configured;

static inline bool ls_watch_active(void)
{
	return atomic_load_explicit(&ls_watch_configured, memory_order_acquire);
}

extern struct ls_watch_thread ls_watch_nobody, ls_watch_gone;

/* watch_thread.c */
struct ls_watch_thread *ls_watch_records(void); /* every record, newest first */
bool ls_watch_record_live(const struct ls_watch_thread *t);
bool ls_watch_holds(const struct ls_watch_thread *t, uintptr_t addr);
void ls_watch_waiting(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site);
void ls_watch_done_waiting(struct ls_watch_thread *t);
void ls_watch_threads_after_fork(void);
void ls_watch_forget_held(uintptr_t addr);

/* watch_state.c */
uint64_t ls_watch_now_ns(void);

/* ---- order.c ---- */

#define LS_ORDER_FRAMES 16  /* frames kept of a request's stack */
#define LS_ORDER_CYCLE_EDGES 16 /* edges kept of one cycle */

/* A lock as a report names it. */
struct ls_order_lock {
	uintptr_t addr;       /* with LS_WATCH_RWLOCK / LS_WATCH_READ */
	uintptr_t first_site; /* the first lock call the graph saw for it */
};

/* One edge of a cycle, copied when the cycle was found (the graph's own
 * edge may be renewed later, when its locks are destroyed). */
struct ls_order_step {
	struct ls_order_lock from, to;
	uintptr_t held_site;     /* where `from` was taken */
	uintptr_t request_site;  /* the lock call that requested `to` */
	uintptr_t frames[LS_ORDER_FRAMES]; /* that call's stack, the program's frames */
	uint32_t nframes;
	int32_t tid;
	char thread[16];
	bool timed;
};

struct ls_order_cycle {
	uint32_t len;              /* edges in the cycle; the first LS_ORDER_CYCLE_EDGES are kept */
	bool gated;                /* every edge was taken under `gate`: cannot deadlock */
	struct ls_order_lock gate;
	_Atomic bool printed;
	struct ls_order_step step[LS_ORDER_CYCLE_EDGES];
};

bool ls_order_setup(void);
/* The edge from the thread's newest held lock to `lock`, before a
 * blocking request; returns the cycle it closed, if it is new and not
 * gated, else NULL. */
struct ls_order_cycle *ls_order_request(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site);
void ls_order_forget(uintptr_t addr);
void ls_order_after_fork(void);
uint32_t ls_order_cycle_count(void);
struct ls_order_cycle *ls_order_cycle_at(uint32_t i);

struct ls_order_counts {
	uint64_t locks, edges;    /* in the graph */
	uint64_t locks_max, edges_max;
	uint64_t cycles, gated;   /* found (reported, and gated: not reported) */
	uint64_t cycles_dropped;  /* found beyond the cycles kept */
	uint64_t searches_cut;    /* searches stopped at their budget */
	bool full;                /* a bound was reached: new orders unchecked */
};
void ls_order_counts(struct ls_order_counts *c);

/* ---- watchdog.c ---- */

void ls_watchdog_start(void);
/* Starts it unless it runs or is stopping; cheap when it runs. */
void ls_watchdog_ensure(void);
/* A fork child's watchdog starts at its first wait in the program's own
 * code (not inside a preloaded allocator's lock, where starting a thread
 * would enter malloc again). */
void ls_watchdog_maybe_start(uintptr_t site);
void ls_watchdog_kick(void);        /* a cycle waits to be printed */
void ls_watchdog_after_fork(void);
void ls_watchdog_stop(void);

/* One hang found by the watchdog, as kept for the JSON. */
#define LS_HANG_THREADS 8
struct ls_hang_thread {
	int32_t tid;
	char name[16];
	uintptr_t lock, site;   /* what it waits for, from where */
	uint64_t waited_ns;
	int32_t holder_tid;     /* 0: unknown; -1: a thread of the parent */
	uintptr_t holder_site;  /* where the holder took the lock */
	uint8_t holder_state;   /* LS_WATCH_T_* of the holder's record */
};
struct ls_hang {
	bool deadlock;          /* a cycle of waits; else a long wait */
	uint32_t n;             /* threads */
	struct ls_hang_thread t[LS_HANG_THREADS];
};
uint32_t ls_watchdog_hang_count(void);
const struct ls_hang *ls_watchdog_hang_at(uint32_t i);
struct ls_watch_counts {
	uint64_t deadlocks, long_waits;
};
void ls_watchdog_counts(struct ls_watch_counts *c);

/* ---- watch_names.c: naming, inside a report or a dump ---- */

/* A site (0: "?") as "f(...)", else "?? (object+offset)". */
void ls_watch_site_text(uintptr_t pc, char *buf, size_t len);
/* "mutex lock_a", "rwlock 0x55d0c8a0 (first used at f(...))". */
void ls_watch_lock_text(uintptr_t lock, uintptr_t first_site, char *buf, size_t len);
/* 'thread 4242 "name"'; tid -1: a thread of the parent process. */
void ls_watch_thread_text(int32_t tid, const char *name, char *buf, size_t len);
/* A one-address site if it is the user's, else the stack's user frame. */
uintptr_t ls_watch_user_site(uintptr_t site, const uintptr_t *f, uint32_t n);
/* The caller of the stack's user frame, if it is the program's own. */
uintptr_t ls_watch_user_caller(const uintptr_t *f, uint32_t n);
void ls_watch_fmt_wait(char *buf, size_t len, uint64_t ns);

/* ---- watch_print.c: stderr ---- */

/* One report at a time, with the statistics' dumps (they share the
 * symbol tables): false after about 5 s of waiting. */
bool ls_watch_report_enter(void);
void ls_watch_report_leave(void);
/* Inside: print the cycles found and not yet printed; the count. */
unsigned ls_watch_print_cycles(void);
void ls_watch_print_hang(const struct ls_hang *h);
/* ---- watch_out.c ---- */

/* The statistics' outputs (inside their dump, symbols begun): the JSON's
 * "lock_order" section, the Prometheus counters, the summary's lines
 * (with the threads that hold or wait for a lock now).  Nothing while
 * neither is on. */
struct ls_out;
void ls_watch_write_json(struct ls_out *o);
void ls_watch_write_prom(struct ls_out *o, const char *common);
void ls_watch_write_text(struct ls_out *o);

#endif
