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
 * The FS base is written with WRFSBASE, in the assembly itself: written in
 * C before the call, the compiler could schedule a TLS access in between.
 * WRFSBASE needs the kernel's FSGSBASE support (Linux 5.9+, AT_HWCAP2 bit
 * 1); ls_fiber_supported() says whether it is there, and nothing switches
 * contexts when it is not.
 *
 * The raw calls below make no errno write and touch no TLS: a thread parked
 * while its own context runs elsewhere shares its TLS with that context, and
 * glibc's wrappers would write the delegated section's errno.
 */
#ifndef LS_CORE_FIBER_H
#define LS_CORE_FIBER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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

/* WRFSBASE is usable (and this is x86-64). */
bool ls_fiber_supported(void);

/* ---- raw system calls: no errno, no TLS -------------------------------- */

/* The signal mask is 64 bits on x86-64 Linux (rt_sigprocmask's size 8). */
typedef uint64_t ls_sigmask_t;

/* Block every signal that may be blocked, except glibc's SIGSETXID (33),
 * whose handler every thread must run for setuid() and friends to return
 * in other threads; old mask in *old. */
void ls_raw_block_signals(ls_sigmask_t *old);
void ls_raw_set_sigmask(const ls_sigmask_t *mask);

/* futex wait/wake on a private word, no timeout; results as the kernel's
 * (0, or -errno). */
long ls_raw_futex_wait(const _Atomic uint32_t *word, uint32_t expected);
long ls_raw_futex_wake(const _Atomic uint32_t *word, int n);

#endif
