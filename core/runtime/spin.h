/*
 * spin.h - the pause instruction and the LOCKSWAP_SPIN override.
 *
 * How long anyone spins is decided by the waiting policy (core/runtime/wait.h);
 * this header only holds what that policy and its callers share.
 * ls_spin_limit is LOCKSWAP_SPIN: LS_SPIN_ADAPTIVE (the default) or a
 * fixed number of polls.  The interposer sets it once at start-up, before
 * any lock can be contended; it is read with relaxed loads (a stale value
 * only changes how long one waiter spins).  Spinning always polls with
 * plain loads and a pause instruction, never with a CAS, so waiters do
 * not steal the holder's cache line.
 */
#ifndef LS_CORE_SPIN_H
#define LS_CORE_SPIN_H

#include <stdatomic.h>

#define LS_SPIN_ADAPTIVE 0xffffffffu /* ls_spin_limit: no override */

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

#endif
