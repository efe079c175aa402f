/*
 * fiber.h - switching a kernel thread between saved execution contexts
 * (x86-64 Linux only), for delegation locks that run a waiter's critical
 * section on the thread that releases the lock (core/delegation/ces.h).
 *
 * What a context is: the callee-saved registers (rbx, rbp, r12-r15), the
 * stack pointer, the FS base (x86-64 TLS: with it, errno, every __thread
 * variable and pthread_self() follow the context, not the kernel thread
 * running it), and the floating-point control state that the SysV ABI
 * makes callee-saved (MXCSR and the x87 control word).  All of it is pushed
 * on the context's own stack; the saved stack pointer is the whole handle.
 * After TCLocks (Gupta et al., "Ship your Critical Section, Not Your Data",
 * OSDI 2023), which switches contexts the same way inside Linux.
 *
 * The FS base is read from the thread's TCB, whose first word glibc keeps
 * pointing at itself (so no RDFSBASE is needed), and written in the
 * assembly itself: written in C before the call, the compiler could
 * schedule a TLS access in between.  Two ways to write it:
 *   - WRFSBASE, where the kernel enables it (Linux 5.9+, AT_HWCAP2 bit 1):
 *     a few cycles;
 *   - arch_prctl(ARCH_SET_FS) elsewhere: a system call, which in a VM
 *     whose CPU hides FSGSBASE costs a trap to the hypervisor (measured at
 *     about 4 us of CPU time on the project's 2-vCPU KVM machines).
 * The new FS base is written before the stack pointer moves, so a signal
 * that arrives between the two runs with the new context's TLS on the old
 * stack, below that stack's saved frame: the handler sees one context's
 * identity throughout (core/runtime/home_signal.c relies on that).
 *
 * The raw system calls a parked context needs are in sys.h and futex.h.
 */
#ifndef LS_CORE_FIBER_H
#define LS_CORE_FIBER_H

#include <stdbool.h>

/* Save the running context on its stack, store its stack pointer in *save,
 * and resume the context whose stack pointer is `to`.  Returns when someone
 * resumes *save. */
void ls_fiber_switch(void **save, void *to);

/* Save the running context as ls_fiber_switch does, then call fn(arg) on
 * the stack that ends at stack_top (16-byte aligned).  fn must never
 * return: it leaves with ls_fiber_jump. */
void ls_fiber_start(void **save, void *stack_top, void (*fn)(void *), void *arg);

/* Resume the context saved at `to`, dropping the running one (its stack is
 * scratch: a parking stack). */
__attribute__((noreturn)) void ls_fiber_jump(void *to);

/* Contexts can be switched here (x86-64). */
bool ls_fiber_supported(void);

/* The switch writes FS with WRFSBASE (true) or with arch_prctl (false).
 * Decided by ls_fiber_supported(). */
bool ls_fiber_fast(void);

#endif
