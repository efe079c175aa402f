/*
 * futexlock.h - the classic three-state futex mutex, with bounded spinning.
 *
 * Source: U. Drepper, "Futexes Are Tricky" (mutex 3), and the spin-then-park
 * advice of kprotty's "Building a small, fast Mutex" (blog post).
 *
 * State word (all-zero = unlocked, so static initializers work):
 *   LS_FUTEX_UNLOCKED  0  free
 *   LS_FUTEX_LOCKED    1  held, nobody parked
 *   LS_FUTEX_PARKED    3  held, and some thread may be parked on the word
 * Transitions: lock  0 -> 1 (fast, CAS)      or  x -> 3 (slow, exchange)
 *              unlock 1 -> 0 (fast)           or  3 -> 0 then wake one
 * (Drepper's mutex uses 2 for the parked state; 3 keeps bit 0 set in both
 * held states, so that a bit-test-and-set of bit 0 takes the lock only
 * when it is free: ls_futex_inline_take, below.)
 *
 * Fairness: none.  A releasing thread or a spinning newcomer can barge ahead
 * of a parked waiter indefinitely (no bypass bound); the woken waiter re-marks
 * the word PARKED, so a wake is never lost.  Progress: deadlock-free.
 *
 * Memory order: the acquiring CAS/exchange is acquire and pairs with the
 * release exchange in unlock, so the critical sections are ordered.
 */
#ifndef LS_CORE_FUTEXLOCK_H
#define LS_CORE_FUTEXLOCK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/single.h"
#include "../runtime/wait.h"

enum {
	LS_FUTEX_UNLOCKED = 0,
	LS_FUTEX_LOCKED = 1,
	LS_FUTEX_PARKED = 3,
};
_Static_assert((LS_FUTEX_LOCKED & LS_FUTEX_PARKED & 1) && !(LS_FUTEX_UNLOCKED & 1),
               "bit 0 is set exactly in the held states");

struct ls_futexlock {
	_Atomic uint32_t word;
};

int ls_futexlock_lock_slow(struct ls_futexlock *l, clockid_t clock,
                           const struct timespec *abstime);

static inline int ls_futexlock_trylock(struct ls_futexlock *l)
{
	uint32_t expected = LS_FUTEX_UNLOCKED;
	return atomic_compare_exchange_strong_explicit(
	               &l->word, &expected, LS_FUTEX_LOCKED,
	               memory_order_acquire, memory_order_relaxed)
	               ? 0
	               : EBUSY;
}

static inline int ls_futexlock_lock(struct ls_futexlock *l)
{
	if (ls_futexlock_trylock(l) == 0)
		return 0;
	return ls_futexlock_lock_slow(l, CLOCK_MONOTONIC, NULL);
}

/* abstime is already validated by the caller (see core/runtime/timespec.h). */
static inline int ls_futexlock_timedlock(struct ls_futexlock *l, clockid_t clock,
                                         const struct timespec *abstime)
{
	if (ls_futexlock_trylock(l) == 0)
		return 0;
	return ls_futexlock_lock_slow(l, clock, abstime);
}

static inline void ls_futexlock_unlock(struct ls_futexlock *l)
{
	/* release: publishes the critical section to the next acquirer. */
	if (atomic_exchange_explicit(&l->word, LS_FUTEX_UNLOCKED,
	                             memory_order_release) == LS_FUTEX_PARKED)
		ls_unpark(&l->word, 1);
}

static inline bool ls_futexlock_is_locked(struct ls_futexlock *l)
{
	return atomic_load_explicit(&l->word, memory_order_relaxed) !=
	       LS_FUTEX_UNLOCKED;
}

/* Single-threaded verbs (backends/backend.h, interpose/start/gate.h): the fast
 * path's transitions with a plain load and store, valid only while no other
 * thread exists (relaxed: nobody else can look); false = declined, nothing
 * changed, use the atomic verb. */
static inline bool ls_futexlock_lock_plain(struct ls_futexlock *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_FUTEX_UNLOCKED)
		return false;
	atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_LOCKED, memory_order_relaxed);
	return true;
}

static inline bool ls_futexlock_unlock_plain(struct ls_futexlock *l)
{
	if (atomic_load_explicit(&l->word, memory_order_relaxed) != LS_FUTEX_LOCKED)
		return false; /* waiters (or a fork's leftovers): the atomic verb wakes them */
	atomic_store_explicit(&l->word, (uint32_t)LS_FUTEX_UNLOCKED, memory_order_relaxed);
	return true;
}


/* ---- inline verbs: the statistics' counting tables ---------------------
 * For a caller that wants the fast path without a call or an indirect
 * call (interpose/counting/counting.c, through backends/inline_verbs.h): the try,
 * the single-threaded try, and the claims below, over the lock state as a
 * `void *`, as the backends' tables take it.  Written in x86-64 assembly
 * where the compiler would otherwise add an instruction to every
 * uncontended lock with statistics on; each says which C verb above it
 * matches. */

/*
 * The counting table's tries (interpose/counting/counting.c): true when the lock was
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

/*
 * Claims: a try, and an unlock, that also name their caller in a word of
 * the lock state that the backend never uses, in the same atomic
 * instruction.  The statistics keep there the serial of the thread that
 * held the lock last (their holder word, interpose/entry/mutex_layout.h), which
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
#define LS_FUTEX_NAME_OFF 4 /* the name's byte offset in the lock state */
_Static_assert(sizeof(struct ls_futexlock) <= LS_FUTEX_NAME_OFF,
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
	return (_Atomic uint32_t *)(void *)((char *)s + LS_FUTEX_NAME_OFF);
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

#endif /* claims: x86-64 */

#endif
