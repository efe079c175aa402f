/*
 * hooks.h - the statistics' whole interface to the shim.  One way: the
 * shim (interpose/entry/mutex.c, cond.c, pthread_rwlock.c) calls these hooks around the calls it serves;
 * nothing under stats/ calls the shim.  What a hook needs to know about an
 * object (where its record id lives, its kind, whether glibc serves it) is
 * passed in, so stats/ depends on core/ only.
 *
 * Mode: LOCKSWAP_STATS is read once at start-up.  While it is off, the shim
 * never reaches this code: its fast paths are taken (interpose/start/init.h, the
 * gate).  While it is on, the gate holds the counting table
 * (interpose/counting/counting.c), which counts an uncontended acquisition with the
 * inline step of quick.h and hands every other call to the slow paths,
 * which call these hooks.  So "off" costs the entry points nothing at all.
 *
 * A call in progress is a `struct ls_stats_call` on the caller's stack: a
 * *_begin hook fills it, the *_end hook reads it.  A hook that decides not
 * to record (statistics not set up, in the profiler, a destroyed object)
 * leaves k->t NULL and the end hook does nothing.
 *
 * Site: the return address into the program, taken by the shim's first
 * function after the exported one (reached by sibling calls).
 *
 * The design, costs and output formats are described in docs/stats.md.
 * The lock-order check and the hang watchdog (docs/deadlock.md) have
 * hooks of their own, watch.h, switched the same way.
 */
#ifndef LS_STATS_HOOKS_H
#define LS_STATS_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ls_thread;
struct ls_stats_thread;
struct ls_stats_lock;

/* LOCKSWAP_STATS: 0 off, 1 summary, 2 full (the option's choice index). */
enum { LS_STATS_OFF = 0, LS_STATS_SUMMARY = 1, LS_STATS_FULL = 2 };

/* The arm of an experiment this process runs (LOCKSWAP_ARMS), recorded in
 * every output.  Strings as ls_stats_settings's. */
struct ls_stats_arm {
	const char *name;
	unsigned index, count;
	const char *key;       /* "pid", "random" or the variable's name */
	const char *key_value; /* the hashed string */
	bool seeded;           /* key "random": seed is the key value's number */
	uint64_t seed;
	const char *settings;  /* "capacitor:futex BYPASS=8" */
};

/* The configuration, given once at start-up, before any other hook and
 * only when the mode is not off.  The strings must stay valid for the
 * process's life. */
struct ls_stats_settings {
	unsigned mode;       /* LS_STATS_SUMMARY or LS_STATS_FULL */
	unsigned top;        /* LOCKSWAP_STATS_TOP */
	unsigned sample;     /* LOCKSWAP_STATS_SAMPLE */
	const char *backend; /* name of the active backend ("glibc" for pass-through) */
	const char *rwlock;  /* name of the active rwlock backend (LOCKSWAP_RWLOCK) */
	const char *file;    /* LOCKSWAP_STATS_FILE, "" = none */
	const char *folded;  /* LOCKSWAP_STATS_FOLDED */
	const char *signal;  /* LOCKSWAP_STATS_SIGNAL */
	const char *prom;    /* LOCKSWAP_STATS_PROM, "" or NULL = no export */
	unsigned interval;   /* LOCKSWAP_STATS_INTERVAL, seconds */
	unsigned prom_sites; /* LOCKSWAP_STATS_PROM_SITES */
	const struct ls_stats_arm *arm; /* NULL: no LOCKSWAP_ARMS */
};
void ls_stats_configure(const struct ls_stats_settings *s);

/* LOCKSWAP_STATS_SIGNAL's value: "USR2", "SIGUSR2" or "12" -> the signal
 * number; 0 if empty; -1 if neither a catchable name nor a number in
 * 1..SIGRTMAX (KILL and STOP are not names it knows).  The option check
 * (interpose/options/option_hints.c) and the statistics' configuration share it. */
int ls_stats_parse_signal(const char *s);

/* An object as the shim sees it.  The type is kept in the low two bits of
 * a record's key (stats/data.h), so there are at most three. */
enum { LS_REC_MUTEX = 1, LS_REC_COND = 2, LS_REC_RWLOCK = 3 };
/* The kind of an rwlock: glibc's __flags (0 prefer reader, 1 prefer
 * writer, 2 prefer writer non-recursive), plus this bit when it is
 * process-shared (the bit of glibc's mutex __kind that says so). */
#define LS_STATS_RW_PSHARED 128
struct ls_stats_obj {
	void *addr;
	_Atomic uint32_t *slot; /* a free word of the object that keeps its record id
	                           (as a slot word: the slot * 64, quick.h);
	                           NULL: the bytes are all glibc's, look up by address.
	                           The word after it (slot[1], zero at init) is free too:
	                           the holder word, the serial of the thread that
	                           acquired the object last (an rwlock: for writing).
	                           It is written by the acquirer only when the holder
	                           changes, on the object's own cache line, which the
	                           acquisition itself just wrote: no other line is
	                           written inside the critical section. */
	_Atomic uint32_t *holder; /* NULL: slot[1] above (or the record's, without
	                           a slot word); else the object's holder word
	                           elsewhere: a mutex whose backend's lock state
	                           keeps it, where the counting table's lock and
	                           unlock write it in the instructions that take
	                           and free the lock (interpose/entry/mutex_layout.h) */
	_Atomic uint32_t *unlock_want; /* NULL, or the object's unlock word (a mutex
	                           that lockswap serves: interpose/entry/mutex_layout.h):
	                           stats/ sets LS_UNLOCK_WANT_* there when this
	                           object's next unlock must be observed, and
	                           clears it in ls_stats_unlock_begin */
	int32_t kind;           /* mutex: glibc's __kind (< 0 destroyed); condvar: flags word;
	                           rwlock: __flags | LS_STATS_RW_PSHARED */
	uint8_t type;           /* LS_REC_* */
	bool glibc;             /* served by glibc */
	bool release_names;     /* a mutex whose every release writes the releasing
	                           thread into its holder word (the counting table's
	                           unlock over a backend with claims, and the shim's
	                           other releases; interpose/entry/mutex_layout.h): a
	                           blocked acquisition known to change the owner
	                           then writes nothing inside the critical section,
	                           and a sampled wait reads the holder's site at its
	                           end, from the release that ended it */
};

/* The bits of an object's unlock word (ls_stats_obj.unlock_want).  OWN:
 * its holder has work for its own release (set by that thread, holding
 * the object): a hold sample to close, or a sampled wait that ended in
 * this acquisition to record (stats/record.c wait_defer).  STACK: a
 * waiter asked for its holder's stack (set with a
 * release after the record's request, so the unlock that clears the word
 * with an acquire and then finds no request on the record has missed
 * none: a request made later sets the bit again).  The counting table's
 * unlock tests the word alone; the other unlock paths still test
 * ls_stats_unlock_wanted(), which covers both. */
#define LS_UNLOCK_WANT_OWN 1u
#define LS_UNLOCK_WANT_STACK 2u

/* One call in progress. */
enum {
	LS_CALL_TRYLOCK = 1, /* a trylock: EBUSY is a failure, not contention */
	LS_CALL_HOLD = 2,    /* a hold sample starts at t0 (or at the acquisition) */
	LS_CALL_BLOCKED = 4, /* the first try found the mutex held */
	LS_CALL_TIMED = 8,   /* this contended wait or condvar wait is timed */
	LS_CALL_READ = 16,   /* an rwlock read: shared, so no holder is recorded */
	LS_CALL_MUTEX = 32,  /* a mutex (not an rwlock write) */
	LS_CALL_HELD = 64,   /* blocked on a mutex whose holder word named another thread */
	LS_CALL_RELNAMED = 128, /* the object's releases write its holder word
	                           (ls_stats_obj.release_names) */
};
struct ls_stats_call {
	struct ls_stats_thread *t; /* NULL: this call is not recorded */
	struct ls_stats_lock *asked; /* unlock: a waiter asked for our stack */
	_Atomic uint32_t *holder;    /* the holder word (ls_stats_obj), NULL: the record's */
	_Atomic uint32_t *unlock_want; /* the object's unlock word, NULL: none */
	void *obj;
	uintptr_t site, hsite;
	uint64_t t0;                 /* lock: hold sample start; wait: start */
	uint64_t w0;                 /* contended lock: start of the wait (ticks) */
	uint32_t slot, mslot, hslot, wstack;
	unsigned flags;              /* LS_CALL_* */
};

/* Mutex lock, timedlock, clocklock, trylock:
 *   begin -> [first try found it held: blocks -> blocking call] -> end(result). */
void ls_stats_lock_begin(struct ls_stats_call *k, const struct ls_stats_obj *m, uintptr_t site,
                         bool trylock);
/* held: the caller saw the object's lock held (by another thread) after
 * its try failed; false when it cannot tell. */
void ls_stats_lock_blocks(struct ls_stats_call *k, bool held);
bool ls_stats_lock_end(struct ls_stats_call *k, int result); /* -> as ls_stats_locked */

/* A lock (not trylock) that the shim's first try got: count it, in one
 * call.  Returns true when this thread's next lock should use the whole
 * protocol above instead, because its hold sample is due and must start
 * before the try (so the clock stays outside the critical section). */
bool ls_stats_locked(const struct ls_stats_obj *m, uintptr_t site);

/* The common case of ls_stats_locked for a mutex, given only what it
 * reads (the object's slot word, NULL if it has none; its holder word,
 * wherever it is, used only with a slot word; and its address), so the
 * shim builds no ls_stats_obj for it: 0 or 1 as ls_stats_locked, or
 * LS_STATS_QUICK_DECLINED when this call needs more (a first use, a
 * sample due, no slot word): then the shim calls ls_stats_locked. */
enum { LS_STATS_QUICK_DECLINED = 2 };
int ls_stats_mutex_locked_quick(_Atomic uint32_t *slot, _Atomic uint32_t *holder,
                                const void *addr, uintptr_t site);

/* A mutex lock whose hold sample is due (the countdown is at its end), in
 * two calls around the shim's try, for the common case: the thread has its
 * block and is not in the profiler, the mutex's slot word names its
 * record, and the signal helper is not wanted.  ls_stats_hold_quick_begin
 * checks that and returns the sample's start (the clock, read before the
 * try, as the whole protocol reads it), or 0: then the shim runs the whole
 * protocol.  After a try that got the mutex, ls_stats_hold_quick_end
 * records what the whole protocol would have recorded (the acquisition,
 * the holder, the open hold sample and the unlock word's bit; the
 * countdown starts again) and returns 0, or 1 where the whole protocol's
 * answer (ls_stats_locked) would be that the next hold sample is due at
 * once.  After a try that failed, the shim runs the whole protocol from
 * the block on (the countdown still at its end, so that lock is the
 * sampled one). */
uint64_t ls_stats_hold_quick_begin(_Atomic uint32_t *slot, const void *addr);
int ls_stats_hold_quick_end(_Atomic uint32_t *slot, _Atomic uint32_t *holder, const void *addr,
                            uintptr_t site, _Atomic uint32_t *unlock_want, uint64_t t0);
/* The unlock of a mutex whose unlock word is set, in two calls around the
 * shim's release, for the common case: the word asks only for this
 * thread's own work (LS_UNLOCK_WANT_OWN, set by ls_stats_hold_quick_end
 * or the whole protocol) and no waiter anywhere has asked for a holder's
 * stack.  ls_stats_hold_quick_unlock clears the word, as
 * ls_stats_unlock_begin does, and returns true with the open sample's start
 * in *t0 (0: none open here) and its record in *hslot; false: the shim runs
 * the whole unlock protocol (ls_stats_unlock_begin / _end), for which the
 * word's clearing changes nothing.  After the release,
 * ls_stats_hold_quick_done adds the hold's time (t0 != 0) and records the
 * thread's pending sampled wait, if any. */
bool ls_stats_hold_quick_unlock(_Atomic uint32_t *unlock_want, const void *addr, uint32_t *hslot,
                                uint64_t *t0);
void ls_stats_hold_quick_done(uint32_t hslot, uint64_t t0);
/* The same for an rwlock that lockswap serves (its slot word at hand),
 * read or write: the common case of ls_stats_rw_locked. */
int ls_stats_rw_locked_quick(_Atomic uint32_t *slot, const void *addr, uintptr_t site, bool write);

/* Mutex unlock: wanted?  If so begin -> unlock -> end(result), else just
 * unlock: there is work only when this thread has work for its release (a
 * hold sample open, a sampled wait to record) or a waiter somewhere asked
 * for a holder's stack. */

/* The "wanted?" test is inline, so the common unlock (no hold sample
 * open, no stack asked for) makes no call into stats/.  (The counting
 * table's mutex unlock tests the mutex's unlock word instead, which
 * LS_UNLOCK_WANT_* below mark; this test covers it and is what the
 * rwlock and the shim's slow paths use.)  Its two inputs
 * are written only by stats/: the work this thread has for its release
 * (hold samples open, plus one for a sampled wait not yet recorded:
 * stats/record.c wait_defer), and the number of holders' stacks that
 * waiters asked for (in any thread).  A true answer is only a hint:
 * ls_stats_unlock_begin checks again (the thread may be inside the
 * profiler, or have no block). */
extern __thread uint32_t ls_stats_release_work __attribute__((tls_model("initial-exec")));
/* Hidden (as every non-exported symbol is): declared so, the compiler
 * loads it RIP-relative in one instruction instead of through the GOT. */
extern _Atomic uint32_t ls_stats_stacks_asked __attribute__((visibility("hidden")));
static inline bool ls_stats_unlock_wanted(void)
{
	return __builtin_expect(
	        (ls_stats_release_work |
	         atomic_load_explicit(&ls_stats_stacks_asked, memory_order_relaxed)) != 0,
	        0);
}
void ls_stats_unlock_begin(struct ls_stats_call *k, const struct ls_stats_obj *m, uintptr_t site);
void ls_stats_unlock_end(struct ls_stats_call *k, int result);

/* Rwlock: the mutex protocol above, once per mode.  An rwlock has a record
 * for its reads and one for its writes; `write` picks the one counted.
 * The shim tries first (tryrdlock/trywrlock: a failure is contention, as
 * for the mutex), and calls ls_stats_lock_blocks / ls_stats_lock_end with
 * the call that ls_stats_rw_begin filled.  A read that the first try got
 * writes nothing shared (its counters are the thread's own), so statistics
 * do not serialise readers; only writes record the holder.  Unlock is the
 * mutex's: ls_stats_unlock_wanted, then ls_stats_unlock_begin/end with the
 * rwlock as the object. */
void ls_stats_rw_begin(struct ls_stats_call *k, const struct ls_stats_obj *l, uintptr_t site,
                       bool write, bool trylock);
bool ls_stats_rw_locked(const struct ls_stats_obj *l, uintptr_t site, bool write);

/* Condvar: signal/broadcast are counted before the call; a wait ends the
 * mutex's hold at begin and counts the re-acquisition at end. */
void ls_stats_cond_signal(const struct ls_stats_obj *c, uintptr_t site, bool broadcast);
void ls_stats_wait_begin(struct ls_stats_call *k, const struct ls_stats_obj *c,
                         const struct ls_stats_obj *m, uintptr_t site);
void ls_stats_wait_end(struct ls_stats_call *k, int result);

/* init (before glibc's) or a successful destroy: the next use is a new object. */
void ls_stats_forget(const struct ls_stats_obj *o);

/* Life cycle (only called while the mode is not off). */
void ls_stats_constructor(void);                /* warm the unwinder, install the signal */
void ls_stats_exit(void);                       /* library destructor: the exit dump */
void ls_stats_after_fork(void);                 /* fork child: the child's numbers are its own */
void ls_stats_thread_exit(struct ls_thread *t); /* thread exit: keep its counts */

/* The inline counting step of the gate's counting table. */
#include "quick.h"
_Static_assert(LS_STATS_QUICK_RWLOCK == LS_REC_RWLOCK, "rwlock row keys");

#endif
