/*
 * report.h - turning the recorded numbers into output: a snapshot of
 * the totals (collect.c), a buffered writer (out.c), symbols
 * (symbols.c), and the three formats: the stderr summary
 * (text.c), JSON (json.c) and folded stacks (folded.c).
 *
 * All of this runs in a dump (at exit, or in the signal helper thread)
 * with the in-profiler flag set, never on a lock path: it may use stdio
 * formatting and the dynamic loader; big buffers are mmap'ed.
 */
#ifndef LS_STATS_REPORT_H
#define LS_STATS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "stacks.h"
#include "state.h"
#include "table.h"
#include "thread.h"
#include "unwind.h"

#define LS_STATS_SCHEMA_VERSION 1

/* Per-thread acquisitions of one slot, over a set of threads. */
struct ls_snap_share {
	uint64_t min, max, sum; /* acquisitions: least / most active thread, all */
	double sumsq;
	uint32_t n;             /* threads in the set */
};

/* Totals of one slot, summed over live and exited threads (an rwlock has
 * two: its reads at its id, its writes at id + 1). */
struct ls_snap_lock {
	uint64_t c[LS_C_N];
	struct ls_snap_share all;       /* threads with at least one acquisition */
	struct ls_snap_share competing; /* those of them that competed for it (collect.c) */
	uint64_t want_sum;              /* waiting time of the threads that waited (ticks) */
	uint32_t want_n;                /* how many threads waited */
	uint8_t type;                  /* LS_REC_*, 0 = unused slot */
	uint8_t active;
	double est_wait_ns;            /* sampled wait total scaled to every wait */
};

struct ls_snap {
	uint32_t nslots; /* slots 1..nslots-1 exist */
	struct ls_snap_lock *lock;
	uint32_t *mutexes, nmutex; /* active mutex slots, most waited-for first */
	uint32_t *rwlocks, nrwlock; /* active rwlocks (their read slots), most waited-for first */
	uint32_t *conds, ncond;    /* active condvar slots, most waited-on first */
	uint32_t threads_live, threads_exited;
	uint64_t now_ns;
	void *map;
	size_t map_bytes;
};

bool ls_snap_take(struct ls_snap *s);
void ls_snap_free(struct ls_snap *s);
/* Acquisitions etc. of one (thread, slot): live block or exited record. */
uint64_t ls_snap_thread_count(const struct ls_stats_thread *t, uint32_t slot, int k);
const struct ls_stats_exited_entry *ls_snap_exited_entry(const struct ls_stats_exited *x,
                                                         uint32_t slot);
/* Any lock at all (what a dump has to say). */
static inline bool ls_snap_any(const struct ls_snap *s)
{
	return s->nmutex || s->nrwlock || s->ncond;
}
/* Waits of a slot (mutex or rwlock half: contended + timeouts; condvar: waits). */
uint64_t ls_snap_waits(const struct ls_snap *s, uint32_t slot);
double ls_stats_percentile(const struct ls_stats_timing *t, double q);
double ls_stats_jain(const struct ls_snap_lock *l);
/* The threads fairness is over: the competing ones, or all when none
 * competed (collect.c); a thread's share of that set's acquisitions. */
const struct ls_snap_share *ls_snap_fairness(const struct ls_snap_lock *l);
/* Whether a thread with counters c and waiting time `want` on this slot
 * competed for it (collect.c). */
bool ls_snap_competing(const struct ls_snap_lock *l, const uint64_t *c, uint64_t want);
/* The waiting time of one (thread, slot): live block or exited record. */
uint64_t ls_snap_thread_want(const struct ls_stats_thread *t, uint32_t slot);
double ls_snap_share(const struct ls_snap_share *f, uint64_t a);

/* Destroyed condvars first used at one site, written as one record
 * (fold.c): role[slot] says whether a condvar stands alone, leads its
 * group (next[] links the members, 0 ends) or is written by its leader. */
enum { LS_FOLD_ALONE = 0, LS_FOLD_LEADS = 1, LS_FOLD_MEMBER = 2 };
struct ls_fold {
	uint32_t *next;
	uint8_t *role;
	void *map;
	size_t bytes;
};
bool ls_fold_condvars(const struct ls_snap *s, struct ls_fold *f);
void ls_fold_free(struct ls_fold *f);

/* Buffered writer to a file descriptor. */
struct ls_out {
	int fd;
	bool failed;
	size_t n;
	char buf[16384];
};
void ls_out_init(struct ls_out *o, int fd);
void ls_out_putn(struct ls_out *o, const char *s, size_t n);
void ls_out_put(struct ls_out *o, const char *s);
void ls_out_printf(struct ls_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ls_out_json_str(struct ls_out *o, const char *s);
bool ls_out_flush(struct ls_out *o);
/* "850 ns", "1.25 µs", "12.3 ms", "2.01 s" */
void ls_fmt_ns(char *buf, size_t len, double ns);

/* Symbols: begin/end bracket one dump (files are mapped in between). */
struct ls_sym {
	char name[1024];  /* function name, demangled; "" if unknown */
	char obj[256];    /* object path */
	uintptr_t off;    /* pc - load bias of the object */
	uintptr_t in_sym; /* pc - start of the named symbol */
};
void ls_symbols_begin(void);
void ls_symbols_end(void);
bool ls_symbolize(uintptr_t pc, struct ls_sym *out);
/* The variable an object lives in (a static or global mutex), if any. */
bool ls_symbolize_data(uintptr_t addr, struct ls_sym *out);
/* One frame as a JSON object: {"addr", "symbol", "object", "offset"}, the
 * last three from ls_symbolize (null where unknown); json_frame.c. */
void ls_json_frame(struct ls_out *o, uintptr_t pc);
/* One frame as text: "name" (C++ parameters elided), else
 * "?? (basename+0xoff)", else "0xaddr". */
void ls_symbol_short(uintptr_t pc, char *buf, size_t len);
/* demangle.c: bracketed by ls_symbols_begin/end. */
void ls_demangle_begin(void);
void ls_demangle_end(void);
bool ls_demangle(const char *name, char *out, size_t len); /* false: not C++, or no demangler */
void ls_name_short(const char *name, char *out, size_t len); /* "ns::f(...) const" */

/* The formats. */
void ls_stats_write_text(const struct ls_snap *s, struct ls_out *o, const char *reason);
void ls_stats_write_json(const struct ls_snap *s, struct ls_out *o, const char *reason,
                         uint32_t seq);
void ls_stats_write_folded(const struct ls_snap *s, struct ls_out *o);
/* The JSON's "objects": each loaded object's path and GNU build ID
 * (build_ids.c). */
void ls_stats_write_objects(struct ls_out *o);

#endif
