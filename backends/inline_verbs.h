/*
 * inline_verbs.h - backends whose verbs a caller may inline, as functions
 * over the lock state (`void *`, as the table's verbs take it), for a
 * caller that wants them without an indirect call: the statistics'
 * counting tables (interpose/counting.c, interpose/rwlock_counting.c),
 * which instantiate one table per entry of LS_INLINE_BACKENDS (mutexes)
 * and LS_INLINE_RWLOCK_BACKENDS, and use it when that entry's table is
 * the chosen backend.  The shim names no algorithm: it reads these lists.
 *
 * Today each list holds futex, the default backend, and so does the list
 * of backends with claims (LS_INLINE_CLAIM_BACKENDS, below; x86-64),
 * whose counting tables keep the statistics' holder word in the lock
 * state.  The single-threaded ones are what LS_SINGLE_TABLE (backend.h)
 * makes of the futex verbs: plain loads and stores while glibc says the
 * process has one thread, else tell core/runtime/single.h (its gate moves
 * to the atomic table) and use the atomic verb.
 */
#ifndef LS_BACKENDS_INLINE_VERBS_H
#define LS_BACKENDS_INLINE_VERBS_H

#include "../core/mutex/futexlock.h"
#include "../core/runtime/single.h"
#include "../core/rwlock/rwfutex.h"
#include "backend.h"
#include "rwlock.h"

extern const struct ls_lock_ops ls_backend_futex; /* futex.c */

/*
 * The counting table's tries (interpose/counting.c): true when the lock was
 * taken, with *found set to the lock word as it was, which is 0 then.  The
 * table's lock verb returns that value as its result, so the zero it
 * returns is already in a register: on x86-64 the compare-and-swap's
 * expected value (%eax, the return register), or the plain load's result.
 * Written so that the compiler cannot know the value is 0 (the test is the
 * instruction's own flag), or it would make a new zero after the row's
 * address had taken the register (one instruction more on every
 * uncontended lock with statistics on).
 */
static inline bool ls_futex_inline_try(void *s, int *found)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	struct ls_futexlock *l = s;
	uint32_t seen = LS_FUTEX_UNLOCKED;
	bool taken;
	/* Acquire on success, as ls_futexlock_trylock: a locked instruction
	 * is a full barrier on x86-64, and the "memory" clobber keeps the
	 * compiler from moving the critical section's accesses above it. */
	__asm__ volatile("lock cmpxchgl %3, %1"
	                 : "=@ccz"(taken), "+m"(l->word), "+a"(seen)
	                 : "r"((uint32_t)LS_FUTEX_LOCKED)
	                 : "memory");
	*found = (int)seen;
	return taken;
#else
	*found = 0;
	return ls_futexlock_trylock(s) == 0;
#endif
}

static inline void ls_futex_inline_unlock(void *s)
{
	ls_futexlock_unlock(s);
}

static inline bool ls_futex_inline_try_single(void *s, int *found)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	if (__builtin_expect(ls_single_threaded(), 1)) {
		struct ls_futexlock *l = s;
		uint32_t seen;
		bool unlocked;
		/* A plain load and test (relaxed: nobody else can look while
		 * the process has one thread), as ls_futexlock_lock_plain. */
		__asm__("movl %2, %0\n\ttestl %0, %0"
		        : "=&r"(seen), "=@ccz"(unlocked)
		        : "m"(l->word));
		if (__builtin_expect(unlocked, 1)) {
			atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_LOCKED,
			                      memory_order_relaxed);
			*found = (int)seen;
			return true;
		}
	}
#else
	if (__builtin_expect(ls_single_threaded(), 1) &&
	    __builtin_expect(ls_futexlock_lock_plain(s), 1)) {
		*found = 0;
		return true;
	}
#endif
	ls_single_over();
	return ls_futex_inline_try(s, found);
}

static inline void ls_futex_inline_unlock_single(void *s)
{
	if (__builtin_expect(ls_single_threaded(), 1) && ls_futexlock_unlock_plain(s))
		return;
	ls_single_over();
	ls_futexlock_unlock(s);
}

/* X(id, table, try, try_single, unlock, unlock_single): the backend's
 * ops table, its atomic and single-threaded tries (bool try(void *state,
 * int *found), above) and unlocks. */
#define LS_INLINE_BACKENDS(X)                                                              \
	X(futex, ls_backend_futex, ls_futex_inline_try, ls_futex_inline_try_single,        \
	  ls_futex_inline_unlock, ls_futex_inline_unlock_single)

/*
 * Claims: a try, and an unlock, that also name their caller in a word of
 * the lock state that the backend never uses, in the same atomic
 * instruction.  The statistics keep there the serial of the thread that
 * held the lock last (their holder word, interpose/mutex_layout.h), which
 * they would otherwise store, on an owner change, inside the critical
 * section: on the lock's line, which the waiters polling the lock word on
 * other CPUs take away in the middle of the section, and the release
 * then fetches back (MutexBench, 8 threads on 2 CPUs, summary over off:
 * 0.85 with that store, 0.93-0.95 with claims; docs/stats.md).  Only the
 * statistics call these; the backend's own verbs (its slow path, the
 * condvar's) read and write the lock word alone and leave the name as it
 * is: a thread that got the lock by waiting is named by its release.
 *
 * Once the process has threads the counting table takes the lock without
 * naming itself (ls_futex_inline_take) and compares the name after: the
 * releases alone write it.  A claim that expects the caller's own name
 * fails whenever another thread released last (a quarter of LevelDB's
 * acquisitions), and then a second compare-and-swap takes the lock: the
 * take costs an owner change a compare instead (LevelDB readrandom at 8
 * threads, summary: 1.004-1.012x with the take; docs/stats.md).  While
 * the process has one thread the claim stays (its plain compare needs no
 * name test of its own).
 *
 * futex: its state is the 4-byte word; bytes 4..7 of the state (the
 * state area is 8-byte aligned, backend.h) hold the name, so one 8-byte
 * compare-and-swap covers both: the lock word in the low half, the name
 * in the high half, and `mine` is the caller's name shifted there with a
 * free lock word (stats/quick.h ls_stats_q.mine).  Mixing it with the
 * backend's 4-byte atomics on the same bytes is not C11, so x86-64 only,
 * where locked instructions of any size on one cache line are atomic
 * with each other.
 */
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
#define LS_INLINE_CLAIM_NAME_OFF 4 /* the name's byte offset in the lock state */
_Static_assert(sizeof(struct ls_futexlock) <= LS_INLINE_CLAIM_NAME_OFF &&
                       LS_INLINE_CLAIM_NAME_OFF + 4 <= LS_LOCK_STATE_BYTES,
               "the futex lock state leaves the name's word free");

/* Replace the 8 bytes at s, if they are `*seen`, with `to`; else *seen =
 * what they are.  Acquire, as the trylock (a locked instruction is a full
 * barrier on x86-64; the "memory" clobber keeps the critical section's
 * accesses after it). */
static inline bool ls_state_cas8(void *s, uint64_t *seen, uint64_t to)
{
	bool done;
	__asm__ volatile("lock cmpxchgq %3, %1"
	                 : "=@ccz"(done), "+m"(*(uint64_t *)s), "+a"(*seen)
	                 : "r"(to)
	                 : "memory");
	return done;
}

/* Take the lock if it is free and names the caller (`mine`'s name):
 * naming it again in the same compare-and-swap, as the trylock takes it.
 * *seen: the 8 bytes as found (on success `mine`, whose lock-word half
 * is 0: the lock verb's result); *to: the value written, or to be
 * written by the reclaim (it stays in its register for that). */
static inline bool ls_futex_inline_claim(void *s, uint64_t mine, uint64_t *seen, uint64_t *to)
{
	*seen = mine;
	/* + for |: mine's lock-word half is 0, and an add can be one lea. */
	*to = mine + LS_FUTEX_LOCKED;
	return ls_state_cas8(s, seen, *to);
}

/* After a failed claim: take the lock while it is free, whoever it names,
 * writing the claim's `to`.  *seen: the 8 bytes as found, the last
 * holder's name in the high half; false: it is held.  To be reached
 * straight from the failed claim: that brought the line here, and any
 * work in between leaves the free lock to a spinner on another CPU. */
static inline bool ls_futex_inline_reclaim(void *s, uint64_t *seen, uint64_t to)
{
	while ((uint32_t)*seen == LS_FUTEX_UNLOCKED)
		if (ls_state_cas8(s, seen, to))
			return true;
	return false;
}

/* The name's word (a holder writes it back, holding the lock). */
static inline _Atomic uint32_t *ls_futex_inline_name(void *s)
{
	return (_Atomic uint32_t *)(void *)((char *)s + LS_INLINE_CLAIM_NAME_OFF);
}

/* Take the lock if it is free, whatever it names: one locked
 * bit-test-and-set of the lock word's bit 0, which is set in both held
 * states (core/mutex/futexlock.h), so it changes only a free word (0 ->
 * LOCKED) and fails, changing nothing, on a held one.  The name stays the
 * last releaser's, for the caller to compare with its own: an owner change
 * then costs that compare, not a failed claim and a second
 * compare-and-swap.  Acquire, as the trylock (a locked instruction; the
 * "memory" clobber keeps the critical section after it). */
static inline bool ls_futex_inline_take(void *s)
{
	bool held;
	__asm__ volatile("lock btsl $0, %1"
	                 : "=@ccc"(held), "+m"(((struct ls_futexlock *)s)->word)
	                 :
	                 : "memory");
	return !held;
}

/* While the process has one thread, the claim with a plain compare and
 * a plain store of the lock word (relaxed: nobody else can look); a lock
 * found free but naming another thread (one that has exited, or none)
 * fails with *seen for the reclaim, which works either way. */
static inline bool ls_futex_inline_claim_single(void *s, uint64_t mine, uint64_t *seen,
                                                uint64_t *to)
{
	if (__builtin_expect(ls_single_threaded(), 1)) {
		struct ls_futexlock *l = s;
		bool same;
		/* One compare with the 8 bytes in memory: on success `mine`,
		 * whose lock-word half is the verb's result (0), is still in
		 * its register, where a loaded copy would cost a move. */
		__asm__("cmpq %2, %1" : "=@ccz"(same) : "r"(mine), "m"(*(const uint64_t *)s));
		if (__builtin_expect(same, 1)) {
			atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_LOCKED,
			                      memory_order_relaxed);
			*seen = mine;
			return true;
		}
		uint64_t v;
		__asm__("movq %1, %0" : "=r"(v) : "m"(*(const uint64_t *)s));
		if ((uint32_t)v == LS_FUTEX_UNLOCKED) {
			*seen = v; /* the reclaim's compare-and-swap takes it */
			*to = mine + LS_FUTEX_LOCKED;
			return false;
		}
	}
	ls_single_over();
	return ls_futex_inline_claim(s, mine, seen, to);
}

/* The unlock, naming the caller (`mine`) in the same exchange that frees
 * the lock: a holder that got the lock through the backend's own slow
 * path (waiting) is named by its release, not by a store inside its
 * critical section.  Release, as ls_futexlock_unlock (xchg is a locked
 * instruction: a full barrier). */
static inline void ls_futex_inline_unclaim(void *s, uint64_t mine)
{
	uint64_t old = mine;
	__asm__ volatile("xchgq %0, %1" : "+r"(old), "+m"(*(uint64_t *)s) : : "memory");
	if ((uint32_t)old == LS_FUTEX_PARKED)
		ls_unpark(&((struct ls_futexlock *)s)->word, 1);
}

/* X(id, table, take, claim_single, reclaim, unclaim, name): an entry of
 * LS_INLINE_BACKENDS (same id and table) whose lock state has room for the
 * claimant's name at byte LS_INLINE_CLAIM_NAME_OFF, its take, its
 * single-threaded claim and the reclaim after it, its naming unlock and
 * the name's word (above).  The single-threaded unlock stays the inline
 * table's: while the process has one thread every acquisition is a claim,
 * which named the holder already. */
#define LS_INLINE_CLAIM_BACKENDS(X)                                                        \
	X(futex, ls_backend_futex, ls_futex_inline_take, ls_futex_inline_claim_single,     \
	  ls_futex_inline_reclaim, ls_futex_inline_unclaim, ls_futex_inline_name)
#else
#define LS_INLINE_CLAIM_BACKENDS(X)
#endif

extern const struct ls_rwlock_ops ls_rwlock_backend_futex; /* rwlock_futex.c */

/* The read try without its back-out: 0, EAGAIN, or LS_RW_RAISED_BLOCKED,
 * after which the caller owes the back-out below (out of line: its
 * possible wake of a writer is a call). */
static inline int ls_rwlock_futex_inline_tryrd(void *s, unsigned flags)
{
	return ls_rwlock_tryrdlock_raise(s, flags);
}

static inline int ls_rwlock_futex_inline_backout(void *s)
{
	ls_rwlock_rdunlock(s);
	return EBUSY;
}

static inline void ls_rwlock_futex_inline_unlock(void *s, unsigned flags)
{
	ls_rwlock_unlock(s, flags);
}

/* X(id, table, tryrd, backout, unlock): the rwlock backend's ops table;
 * its read try, which answers 0, an errno value, or LS_RW_RAISED_BLOCKED
 * (the caller then owes backout, which answers the errno value); and its
 * unlock (either mode). */
#define LS_INLINE_RWLOCK_BACKENDS(X)                                                       \
	X(futex, ls_rwlock_backend_futex, ls_rwlock_futex_inline_tryrd,                    \
	  ls_rwlock_futex_inline_backout, ls_rwlock_futex_inline_unlock)

#endif
