/*
 * data.h - the data of the statistics: where each number lives, and who
 * writes it; the types every file of stats/ shares (no functions).
 *
 * Where each number lives, and who writes it:
 *
 *   per thread (struct ls_stats_thread, one mmap'ed block per live thread,
 *   written only by its thread, read racily by the report):
 *       count[slot] = { acquisitions, trylock failures, contended, owner
 *       changes } for a mutex and each half of an rwlock (owner changes:
 *       writes only); { signals, broadcasts, waits, timeouts } for a
 *       condvar.  The uncontended path writes nothing else but line 0 of
 *       the lock record, and only when the holder changes (see below).
 *   per lock (struct ls_stats_lock, one slot of a fixed mmap'ed table):
 *       identity (written once), the last holder (written when it changes),
 *       sampled wait/hold timings and their log2 histograms (atomic adds on
 *       the sampled slow path), timeouts of timed mutex waits.
 *   per exited thread (struct ls_stats_exited, bump arena): the thread's
 *       non-zero counters, compacted at thread exit.
 *   stacks and contention events (stacks.c): lock-free
 *       insert-only open-addressing tables.
 *
 * Slots: slot ids are 1.. (0 = none).  A mutex whose bytes 28..31 are free
 * (every kind without robust/PI/PP/pshared flags, served by a backend or by
 * glibc: glibc uses bytes 24..39 only for robust mutexes) keeps its slot id
 * there, as its slot word (slot * 64, the offset of the slot's row:
 * quick.h ls_stats_slot_word); our condvar keeps it in struct
 * ls_condvar.stats.  The others
 * (robust/PI/PP/pshared mutexes, condvars served by glibc, whose bytes are
 * all glibc's) are found in an address-keyed table.  A slot is valid for an
 * object only while record.key == (address | type): glibc's init and the
 * static initializers zero the id, so re-initialised memory gets a new
 * record, and a copied object or a slot from before a fork reset does not
 * match and gets its own.
 *
 * Rwlocks: two consecutive records, slot s for the reads and s + 1 for
 * the writes, both keyed (address | LS_REC_RWLOCK); the object keeps s
 * (bytes 32..35, or the address table when glibc serves it), and the
 * second record has rw_write set.  Each half has the mutex's counters,
 * timings and timeouts, so the mutex code counts either.  The write
 * record's line 0 is the lock's: the holder and the holder's site are
 * writers' (readers record none, so a read writes nothing shared), and
 * requests for a holder's stack are made and answered there whatever the
 * mode of the waiter or of the releaser.
 */
#ifndef LS_STATS_DATA_H
#define LS_STATS_DATA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hooks.h"
#include "quick.h"

#define LS_STATS_BUCKETS 48           /* log2 ns: bucket b holds [2^b, 2^(b+1)) ns */
#define LS_STATS_FRAMES 32            /* frames kept per stack */
#define LS_STATS_HELD 8               /* hold-time samples open at once per thread */
#define LS_STATS_EXITED_MAX 4096      /* exited threads kept one by one */
#define LS_STATS_STACK_CAP (1u << 14) /* distinct stacks */
#define LS_STATS_EVENT_CAP (1u << 16) /* distinct contention events */

/* Holds are far more frequent than waits: 1 in LS_STATS_HOLD_FACTOR * N
 * (full mode: all).  A timed hold takes the whole protocol, lock and
 * unlock (about 520 instructions more than a counted pair, callgrind), so
 * at N = 16 one in 512 keeps its share of the average pair near one
 * instruction (one in 128 cost about four). */
#define LS_STATS_HOLD_FACTOR 32
/* Unwinding costs more than timing: stacks for 1 in LS_STATS_STACK_FACTOR
 * timed contended waits (full mode: all), and, with STATS_SAMPLE > 1, at
 * most one waiter stack per thread every LS_STATS_STACK_GAP_NS, which
 * bounds the unwinder's share of the program whatever its contention
 * rate: an unwind of a LevelDB reader's stack (about 14 frames) costs
 * about 14 us of thread CPU time with libgcc's unwinder (unwind.c), and
 * more than that around it.  LevelDB readrandom
 * at 8 threads on 2 CPUs took about 4,000 waiter and holder stacks a
 * second at 1 in 4 timed waits, and ran 1.7% faster without them
 * (docs/stats.md, "Where the last points go, and stacks in time"). */
#define LS_STATS_STACK_FACTOR 4
#define LS_STATS_STACK_GAP_NS (20 * 1000000ull)

struct ls_stats_timing {
	_Atomic uint64_t samples, total_ns, max_ns;
	_Atomic uint64_t hist[LS_STATS_BUCKETS];
};

struct ls_stats_lock {
	/* Line 0: read by every acquisition, written only on sampled paths
	 * (a waiter asks for the holder's stack) and, for objects without a
	 * slot word, when the holder changes. */
	_Alignas(64) _Atomic uintptr_t key;  /* object address | LS_REC_*, 0 = unused */
	_Atomic uint32_t holder;             /* objects without a slot word: serial of the
	                                        last acquirer (the others keep it in the
	                                        object's holder word, hooks.h) */
	_Atomic uint32_t want_holder_stack;  /* set by a sampled waiter */
	_Atomic uint32_t holder_stack;       /* stack id published by an asked holder */
	uint32_t pad0;
	/* Identity, written before the key is published. */
	uintptr_t site;   /* first use: return address into the caller */
	int32_t kind;     /* glibc's __kind for a mutex, flags word for a condvar */
	uint8_t glibc;    /* served by glibc (pure function of kind and backend) */
	uint8_t rw_write; /* the write half of the rwlock whose reads are slot - 1 */
	uint8_t pad1[2];
	/* Rarely written. */
	_Alignas(64) _Atomic uint64_t timeouts; /* timed mutex/rwlock waits that timed out */
	_Atomic uint32_t destroyed;
	_Atomic uint32_t cond_mutex;  /* condvar: slot of the mutex last waited with */
	_Atomic uint32_t cond_mixed;  /* condvar: waited with more than one mutex */
	uint32_t pad2;
	_Atomic uint64_t retired[LS_C_N]; /* counts of exited threads past LS_STATS_EXITED_MAX */
	/* Sampled timings: mutex (or rwlock half) wait (contended
	 * acquisitions and timeouts) and hold; condvar: time blocked in the
	 * wait. */
	struct ls_stats_timing wait, hold;
};

/* ---- per thread ---- */
enum { LS_ST_FREE = 0, LS_ST_LIVE = 1, LS_ST_EXITING = 2, LS_ST_DEAD = 3 };

struct ls_stats_held {
	void *obj;
	uint32_t slot;
	uint64_t t0;
};

/* A sampled contended wait that ended in an acquisition, kept by its
 * thread until the thread releases a lock (record.c wait_defer): the
 * event's key and its time.  Only its own thread reads or writes it. */
struct ls_stats_pending_wait {
	uint32_t slot, wstack, hstack;
	bool set;
	uintptr_t wsite, hsite;
	uint64_t ns;
};

struct ls_stats_thread {
	struct ls_stats_count *count; /* LS_STATS_MAX_SLOTS entries, NORESERVE */
	uint32_t serial;              /* 1.., never reused in a process */
	int32_t tid;
	_Atomic uint32_t state;       /* LS_ST_* */
	_Atomic uint32_t hi;          /* 1 + highest slot counted */
	uint32_t wait_left, cond_left, stack_left; /* sampling countdowns (holds: ls_stats_q) */
	uint32_t nheld;
	struct ls_stats_pending_wait pending;
	uint64_t rng;
	uint64_t stack_at; /* ls_stats_now() at this thread's last waiter stack */
	struct ls_stats_held held[LS_STATS_HELD];
	struct ls_stats_thread *next;      /* list of all blocks, push-only */
	struct ls_stats_thread *free_next; /* free list (under a futex lock) */
	void *frames[LS_STATS_FRAMES + 16]; /* unwind buffer */
};

/* An exited thread's counters, ascending by slot. */
struct ls_stats_exited_entry {
	uint32_t slot;
	uint32_t pad;
	uint64_t c[LS_C_N];
	uint64_t want;
};
struct ls_stats_exited {
	struct ls_stats_exited *next;
	uint32_t serial;
	int32_t tid;
	char name[16];
	uint32_t n;
	uint32_t pad;
	struct ls_stats_exited_entry e[];
};

/* The configuration a dump and the sampling read (table.c fills it). */
struct ls_stats_config {
	char file[256];   /* JSON path ("" = none) */
	char folded[256]; /* folded stacks path ("" = none) */
	int signal;       /* 0 = none */
	unsigned sample;  /* 1 in N waits (1 in full mode) */
	unsigned hold_sample; /* 1 in this many holds */
	unsigned top;
	unsigned mode;
	uint64_t start_ns;      /* CLOCK_MONOTONIC at start (or fork) */
	uint64_t start_real_ns; /* CLOCK_REALTIME at start */
};
extern struct ls_stats_config ls_stats_cfg;

#endif
