/*
 * mutexbench.h - what every part of MutexBench shares: the options, the
 * lock and thread records, the run's flags, and the small helpers of the
 * timed loop.
 *
 * Every name shared between its files begins with mb_: MutexBench is never
 * linked to lockswap, but tools that match calls by name across the tree
 * would otherwise take its `struct lock`, `stop` or `options` for the
 * library's.
 *
 * MutexBench (from the Capacitor paper), extended.  T threads loop for a
 * fixed interval: acquire, critical section, release, non-critical section.
 * It reports throughput, per-thread fairness (min/max share, Jain's index)
 * of acquisitions and of hold time over a steady window and over short
 * windows inside it, sampled acquire-wait percentiles, and, in request
 * mode, whole-request latencies; and it checks that the lock really
 * excluded: a lost update or an overlap makes it exit 1.
 *
 * Plain pthreads only.  It is never linked to lockswap: run it under
 * LD_PRELOAD=liblockswap.so to measure a backend, or bare for glibc.
 * See docs/bench.md for every flag and output field.
 *
 * The files, one idea each:
 *   main.c          set-up, the run, the exit status
 *   args.c          the command line
 *   loop.c          the timed loop: the modes, acquisition, critical sections
 *   window.c        the steady window: when it opens, the counters at its edges
 *   ticks.[ch]      the cheap per-op clock (the TSC) and its calibration
 *   short_windows.[ch]  per-thread acquisitions per 1 ms, longest stretches
 *   latency.[ch]    request latencies: a per-thread log-linear histogram
 *   limit.[ch]      --limit: the same run with one thread alone, first
 *   shares.[ch]     fairness figures of per-thread amounts, percentiles
 *   report.c        the JSON object and the human line
 */
#ifndef MUTEXBENCH_H
#define MUTEXBENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../rng.h"
#include "latency.h"
#include "short_windows.h"

enum mb_mode { M_MUTEX, M_TRYLOCK, M_CONDVAR, M_MIXED, M_RWLOCK, M_REQUEST };
extern const char *const mb_mode_names[];
#define NMODES 6

#define LINE 64
#define QCAP 64                  /* condvar mode: slots per bounded queue */
#define SAMPLE_MASK 63           /* time 1 acquisition in 64 */
#define SAMPLE_CAP (1u << 20)    /* per-thread samples kept (reservoir after) */
#define MAX_THREADS 1024
#define MAX_LINES_TOTAL (1L << 20)
#define MAX_CLASSES 16

/* Everything one lock protects.  128-byte aligned so two locks never share
 * a line (or an adjacent-line prefetch pair) and falsely contend. */
struct mb_lock {
	_Alignas(128) pthread_mutex_t m;
	pthread_cond_t not_empty, not_full;
	volatile uint64_t count;     /* read, work, write+1: loses updates if shared */
	volatile unsigned owner;     /* thread id + 1 while inside */
	uint64_t rng;                /* the PRNG the critical section steps */
	unsigned head, len;          /* condvar queue (ring of QCAP) */
	uint64_t items[QCAP];
	int pending;                 /* mixed mode: tokens posted, not yet taken */
	pthread_rwlock_t rw;         /* rwlock mode: guards count, owner, rng, lines */
};

struct mb_cline { _Alignas(LINE) uint64_t w[LINE / 8]; };

struct mb_thread {
	_Alignas(128) int id;
	int cls;                     /* its class: index into mb_opt.class_cs */
	int nice;                    /* --nice: its increment, then its nice value */
	long cs_work;                /* its critical section's PRNG steps */
	pthread_t tid;
	uint64_t rng;
	/* ops and hold are read by the main thread at the window's edges while
	 * this thread runs: atomics, written only by their thread (a load
	 * and a release store, a plain mov on x86, no locked instruction). */
	_Atomic uint64_t ops, hold;
	uint64_t acq, overlaps, produced, consumed, reads;
	uint64_t *samples;
	uint64_t nsamples, seen;
	struct mb_short_windows sw;  /* written by this thread, read after the join */
	struct mb_latency lat;       /* request mode only; likewise */
};

struct mb_options {
	enum mb_mode mode;
	int threads, locks;
	double seconds;
	long cs_work, cs_lines, ncs_work;
	uint64_t seed;
	bool json, break_excl;
	long read_pct;
	double warmup, late_thread;
	bool time_holds;
	int nclasses;                /* 0: no classes given, every thread uses cs_work */
	long class_cs[MAX_CLASSES];
	const char *classes_text;
	int nnice;                   /* 0: no --nice */
	long nice_inc[MAX_CLASSES];
	bool limit;                  /* --limit: one thread alone first (limit.c) */
};
extern struct mb_options mb_opt;

extern struct mb_lock *mb_locks;
extern struct mb_cline *mb_lines;   /* locks * cs_lines, lock k owns its own slice */
extern struct mb_thread *mb_thr;
extern pthread_barrier_t mb_start_barrier, mb_end_barrier;
extern atomic_bool mb_stop;
extern atomic_int mb_first_ops;     /* threads that have finished an op */
extern _Atomic uint64_t mb_all_acquired_ns; /* when the last one did (0: not yet) */
extern _Atomic uint64_t mb_start_at; /* the start barrier's release: see mb_mark_start */
extern uint64_t mb_start_ns;        /* mb_start_at, as the main thread read it */
extern int mb_nproducers;           /* condvar mode: threads [0, mb_nproducers) produce */

/* The measured window, as the timed loop sees it: `mb_measuring` is set (a
 * release) after `mb_window_clock` holds the window's start on the per-op
 * clock; a thread that loads it with acquire may use both. */
extern atomic_bool mb_measuring;
extern struct mb_window_clock mb_window_clock;

_Noreturn void mb_usage_error(const char *fmt, ...);
_Noreturn void mb_die(const char *what, int err);
void *mb_xcalloc(size_t n, size_t size);
uint64_t mb_clock_ns(clockid_t c);
void mb_parse_args(int argc, char **argv);
void *mb_worker(void *arg);
void mb_mark_start(void);

static inline uint64_t mb_now_ns(void)
{
	return mb_clock_ns(CLOCK_MONOTONIC);
}

#endif
