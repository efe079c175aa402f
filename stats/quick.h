/*
 * quick.h - the statistics' counting step that the gate's counting table
 * (interpose/counting/counting.c) runs inline on an uncontended mutex lock, and the
 * per-thread state it reads.  Part of the statistics' interface to the
 * shim: hooks.h includes it, and the shim includes hooks.h only.  Written
 * only by stats/, read by the shim.
 *
 * An uncontended acquisition of a mutex that this thread acquired last
 * costs: the thread's countdown (one decrement and test), one 8-byte load
 * of the mutex's slot and holder words, a subtraction and a compare that
 * test both at once (the holder word names this thread, and the slot word
 * is a row's offset within the rows: ls_stats_quick_mine), the rows' base
 * added, a check that the row belongs to this object, a bump of the row's
 * acquisition counter and the call site into the row.  No call, no frame,
 * no timestamp, and no line written but the thread's own row.  Everything else (the first
 * acquisition by this thread, a hold sample due, the thread inside the
 * profiler, contention, the holder changing) leaves this path: a holder
 * change is counted by ls_stats_quick_row and ls_stats_quick_handoff when
 * the row is keyed, the rest by the hooks of hooks.h.
 *
 * Why the row's own key instead of the lock record's: the record check
 * (record.c key_is) costs a load of the table, a multiply and a compare on
 * a line of the record; the row is the line the acquisition writes next.
 * A row's key is set by this thread, from the slow path, only after that
 * path found the slot word and the record's key agree for this object.
 * It stays right because slots are never reused within a process (new
 * objects get new slots; a re-initialised object gets slot word 0, whose
 * row is never keyed), and the rows are zeroed whenever slots can be
 * reused: a fork child's reset (thread.c ls_stats_thread_reset) and a
 * block handed to a new thread (zeroed at the old thread's exit).  A
 * copied mutex carries the slot and holder words to another address: its
 * key differs, so it takes the slow path, which gives it a record of its
 * own.
 */
#ifndef LS_STATS_QUICK_H
#define LS_STATS_QUICK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LS_STATS_MAX_SLOTS (1u << 18)
#define LS_STATS_QUICK_RWLOCK 3 /* = LS_REC_RWLOCK (hooks.h): an rwlock row's key bits */

/* Counters of one (thread, object) pair.  Mutex / condvar meaning. */
enum { LS_C_ACQ = 0, LS_C_TRYFAIL = 1, LS_C_CONTENDED = 2, LS_C_HANDOFF = 3 };
enum { LS_C_SIGNAL = 0, LS_C_BROADCAST = 1, LS_C_WAIT = 2, LS_C_TIMEOUT = 3 };
#define LS_C_N 4
/* One row per (thread, slot), a cache line of the thread's own: the
 * counters; `site`, the return address of this thread's latest
 * acquisition (mutex; rwlock: its write record's row), read only by a
 * sampled waiter that wants the holder's site (ls_stats_holder_site);
 * `want`, the time this thread spent waiting in its contended
 * acquisitions (and timed-out waits) of the slot, in ls_stats_ticks()
 * units: how much it competed (collect.c, fairness); `key`, the address
 * of the mutex whose acquisitions the inline step may count here (0: none
 * yet; only mutex rows are keyed; see above). */
struct ls_stats_count {
	_Alignas(64) _Atomic uint64_t c[LS_C_N];
	_Atomic uintptr_t site;
	_Atomic uint64_t want;
	uintptr_t key;
};

/* A slot word (the object's word that names its record, hooks.h) holds
 * the slot's row offset, slot * 64 (the row's size), not the slot: the
 * inline step then adds the word to the thread's rows without a shift.
 * 0 names no slot, and so does a word that is not a multiple of 64. */
#define LS_STATS_ROW_SHIFT 6
_Static_assert(sizeof(struct ls_stats_count) == 1u << LS_STATS_ROW_SHIFT, "a row is 64 bytes");
/* The largest offset of a row: the inline step's bound. */
#define LS_STATS_ROW_LAST ((uint32_t)(LS_STATS_MAX_SLOTS - 1) << LS_STATS_ROW_SHIFT)

static inline uint32_t ls_stats_slot_word(uint32_t slot)
{
	return slot << LS_STATS_ROW_SHIFT;
}

static inline uint32_t ls_stats_word_slot(uint32_t word)
{
	return (word & ((1u << LS_STATS_ROW_SHIFT) - 1)) ? 0 : word >> LS_STATS_ROW_SHIFT;
}

/* The calling thread's state for the inline step, in initial-exec TLS so
 * each field is one %fs-relative access.  `rows` and `serial` are its
 * block's (set when the block is attached).  `hold_left` is the thread's
 * hold-sample countdown: every acquisition, counted here or by the hooks,
 * moves it one step; at 1 the next lock leaves the inline step for the
 * hooks (hooks.h ls_stats_hold_quick_begin, else the whole protocol), whose
 * hold sample starts before the try.  It is held at 1 whenever the inline
 * step must not count: the thread has no block yet (the initial value; its
 * first lock goes to the hooks, which attach one), it has exited, or it is
 * inside the profiler (`busy`, the statistics' in-profiler flag: entering
 * parks the countdown in `parked` and leaving gives it back, state.h
 * ls_stats_enter), so the inline step tests this one word, with the
 * decrement it makes anyway.  `mine` is the serial shifted to the holder
 * word's place in the 8 bytes that start at a slot word (ls_stats_quick_mine). */
struct ls_stats_quick {
	struct ls_stats_count *rows;
	uint64_t mine;
	uint32_t serial;
	uint32_t hold_left;
	uint32_t busy;
	uint32_t parked;
};
extern __thread struct ls_stats_quick ls_stats_q __attribute__((tls_model("initial-exec")));

/* The row at byte offset `off` of the calling thread's rows. */
static inline struct ls_stats_count *ls_stats_quick_row_at(uint64_t off)
{
	return (struct ls_stats_count *)(void *)((char *)ls_stats_q.rows + off);
}

/* May this lock call be counted inline?  Takes a step of the countdown in
 * the same instruction as the test; false (take the hooks' path) when it
 * was at its end (1) or held there, and then the step must be given back
 * (ls_stats_quick_give_back) before the hooks run, as it must when the
 * inline step declines later (the try failed, the row is not keyed). */
static inline bool ls_stats_quick_take(void)
{
	return __builtin_expect(--ls_stats_q.hold_left != 0, 1);
}

static inline void ls_stats_quick_give_back(void)
{
	ls_stats_q.hold_left++;
}

/* The row of record `half` past the one the slot word `w` names (0; an
 * rwlock's writes: 1), if this thread keyed it for `key`, else NULL (it
 * has not counted the object before).  Keys: a mutex's address; an
 * rwlock's address | LS_REC_RWLOCK (both of its rows), so the two kinds
 * never match each other's rows. */
static inline struct ls_stats_count *ls_stats_quick_row(_Atomic uint32_t *w, uint32_t half,
                                                        uintptr_t key)
{
	/* The mask keeps a stray slot word inside the rows, on a row's
	 * start (the key check then fails); relaxed: only the slow path's CAS
	 * writes the word, and the key check below decides. */
	uint32_t off = (atomic_load_explicit(w, memory_order_relaxed) + ls_stats_slot_word(half)) &
	               LS_STATS_ROW_LAST;
	struct ls_stats_count *r = ls_stats_quick_row_at(off);
	return __builtin_expect(r->key == key, 1) ? r : NULL;
}

/* The slot word `w` and the holder word after it, as one 8-byte value
 * (slot word in the low half, holder in the high half).  Each half is read
 * relaxed, as the 4-byte loads would; the two need not be read at the same
 * instant: only the holder writes the holder word (the caller holds the
 * mutex), and whatever slot word is read (a waiter's slow path may be
 * giving the mutex its first one) is checked by the caller's bound and
 * the row's key. */
static inline uint64_t ls_stats_slot_and_holder(_Atomic uint32_t *w)
{
#if defined(__x86_64__)
	/* One load (x86-64 allows the 4-byte alignment; a mutex placed so that
	 * the 8 bytes cross a cache line costs a split load, on a line that the
	 * unlock word beside them brings in anyway). */
	uint64_t v;
	__asm__("movq %1, %0" : "=r"(v) : "m"(*(const struct { uint32_t a, b; } *)(const void *)w));
	return v;
#else
	return atomic_load_explicit(w, memory_order_relaxed) |
	       (uint64_t)atomic_load_explicit(w + 1, memory_order_relaxed) << 32;
#endif
}

/* Where this thread's row for the mutex whose slot word is `w` is, if this
 * thread acquired that mutex last (its holder word, after the slot word,
 * names this thread): the row's offset, at most LS_STATS_ROW_LAST; else a
 * value above it.  Subtracting `mine` clears the high half exactly when
 * the holder word is this thread's serial, and leaves the slot word: the
 * caller's one compare then tests the holder and bounds the offset, where
 * separate tests took a mask, a shift, a load and a compare more.  A
 * stray word (only a corrupted mutex has one) within the bound but off a
 * row's start stays inside the thread's own rows (the last row's key ends
 * before they do): its key read straddles two fields, which fails the
 * check unless their bytes happen to spell this mutex's address, and then
 * the count lands in the thread's own rows.  An offset, not a row: a
 * pointer would be tested for NULL again.  The caller still checks the
 * row's key (a copied mutex). */
static inline uint64_t ls_stats_quick_mine(_Atomic uint32_t *w)
{
	return ls_stats_slot_and_holder(w) - ls_stats_q.mine;
}

/* Add one to a counter that only the calling thread writes (its own
 * row): never a locked instruction.  Every counter of stats/ is bumped
 * through here. */
static inline void ls_stats_bump(_Atomic uint64_t *x)
{
#if defined(__x86_64__)
	/* One non-locked add: this thread is the only writer, and the
	 * report's relaxed loads see the old or the new value (an aligned
	 * 8-byte store is single-copy atomic on x86-64).  The C11 form below
	 * compiles to a load, an add and a store. */
	__asm__("addq $1, %0" : "+m"(*x));
#else
	atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + 1,
	                      memory_order_relaxed);
#endif
}

/* A relaxed load of *w compared with zero.  On x86-64 one compare with a
 * memory operand: the compiler keeps an atomic load in a register of its
 * own (a load and a test), and an aligned 4-byte read is single-copy
 * atomic there, as a relaxed load is. */
static inline bool ls_stats_word_nonzero(_Atomic uint32_t *w)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	bool nz;
	__asm__("cmpl $0, %1" : "=@ccnz"(nz) : "m"(*w));
	return nz;
#else
	return atomic_load_explicit(w, memory_order_relaxed) != 0;
#endif
}

/* Count a mutex's or an rwlock write's acquisition: and the call site. */
static inline void ls_stats_quick_count(struct ls_stats_count *r, uintptr_t site)
{
	ls_stats_bump(&r->c[LS_C_ACQ]);
	atomic_store_explicit(&r->site, site, memory_order_relaxed);
}

/* The holder word (the slot word's successor, hooks.h) names this thread
 * already: the common case, nothing to write. */
static inline bool ls_stats_quick_holder_is_me(_Atomic uint32_t *holder)
{
	return __builtin_expect(atomic_load_explicit(holder, memory_order_relaxed) == ls_stats_q.serial,
	                        1);
}

/* An acquisition counted in row r replaced `prev` as the holder: an owner
 * change, unless prev is none (0) or this thread (only a corrupted slot
 * word, out of range, brings the inline step here then). */
static inline void ls_stats_quick_changed(struct ls_stats_count *r, uint32_t prev)
{
	if (prev && prev != ls_stats_q.serial)
		ls_stats_bump(&r->c[LS_C_HANDOFF]);
}

#if defined(__x86_64__)
/* An acquisition counted in row r, of a mutex whose last releaser is
 * named in *name: an owner change unless the name is this thread's.  One
 * subtraction, a negation whose carry is "they differ", and an add of
 * that carry: a compare and a branch mispredict whenever owners change in
 * an order the predictor cannot learn (interpose/counting/counting.c take_lock,
 * x86-64 only, as the claims are).  The name must not be 0: only the
 * caller knows that it cannot be.  Relaxed: the name is read holding the
 * lock that its writers released, and only this thread writes its row. */
static inline void ls_stats_quick_changed_flag(struct ls_stats_count *r, _Atomic uint32_t *name)
{
	uint32_t d = ls_stats_q.serial;
	__asm__("subl %2, %0\n\t"
	        "negl %0\n\t"
	        "adcq $0, %1"
	        : "+r"(d), "+m"(r->c[LS_C_HANDOFF])
	        : "m"(*name)
	        : "cc");
}
#endif

/* The holder changed: record this thread in the holder word (the word
 * after the slot word `w`) and, if there was a previous holder (another
 * thread), an owner change in row r.  Returns 0 (the lock verb's result,
 * so the verb can end with a jump here). */
int ls_stats_quick_handoff(struct ls_stats_count *r, _Atomic uint32_t *w);

#endif
