/*
 * spin.h - bounded spinning, shared by every algorithm in core/.
 *
 * ls_spin_limit is the number of polls a waiter makes before it parks
 * (LOCKSWAP_SPIN; the interposer sets it once at start-up, before any lock
 * can be contended, and it is read with relaxed loads: a stale value only
 * changes how long one waiter spins).  Spinning always polls with plain
 * loads and a pause instruction, never with a CAS, so waiters do not steal
 * the holder's cache line.
 */
#ifndef LS_CORE_SPIN_H
#define LS_CORE_SPIN_H

#include <stdatomic.h>

#define LS_SPIN_DEFAULT 100u

extern _Atomic unsigned ls_spin_limit;

static inline void ls_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static inline unsigned ls_spin_bound(void)
{
	return atomic_load_explicit(&ls_spin_limit, memory_order_relaxed);
}

#endif
