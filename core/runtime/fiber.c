#include "fiber.h"

#include <signal.h>
#include <sys/auxv.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#if defined(__x86_64__)

/*
 * Frame of a saved context, from the saved stack pointer up:
 *   0   FS base
 *   8   MXCSR (4 bytes), x87 control word (2 bytes), padding
 *   24  r15 r14 r13 r12 rbx rbp
 *   72  return address (where the context resumes)
 * Only the control words of the floating-point state are saved: the rest
 * (x87 stack, vector registers) is caller-saved in the SysV ABI, so no
 * caller of these functions keeps a value there across the call.
 */
__asm__(/* Push the running context's frame and store its stack pointer
         * in *%rdi (the first argument of both entry points below). */
        ".macro ls_fiber_save\n"
        "	pushq %rbp\n"
        "	pushq %rbx\n"
        "	pushq %r12\n"
        "	pushq %r13\n"
        "	pushq %r14\n"
        "	pushq %r15\n"
        "	subq $16, %rsp\n"
        "	stmxcsr (%rsp)\n"
        "	fnstcw 4(%rsp)\n"
        "	rdfsbase %rax\n"
        "	pushq %rax\n"
        "	movq %rsp, (%rdi)\n"
        ".endm\n"
        ".text\n"
        ".globl ls_fiber_switch\n"
        ".hidden ls_fiber_switch\n"
        ".type ls_fiber_switch,@function\n"
        "ls_fiber_switch:\n"
        "	ls_fiber_save\n"
        "	movq %rsi, %rsp\n"
        "ls_fiber_resume_frame:\n"
        "	popq %rax\n"
        "	wrfsbase %rax\n"
        "	ldmxcsr (%rsp)\n"
        "	fldcw 4(%rsp)\n"
        "	addq $16, %rsp\n"
        "	popq %r15\n"
        "	popq %r14\n"
        "	popq %r13\n"
        "	popq %r12\n"
        "	popq %rbx\n"
        "	popq %rbp\n"
        "	ret\n"
        ".size ls_fiber_switch, .-ls_fiber_switch\n"

        ".globl ls_fiber_start\n"
        ".hidden ls_fiber_start\n"
        ".type ls_fiber_start,@function\n"
        "ls_fiber_start:\n"
        "	ls_fiber_save\n"
        "	movq %rsi, %rsp\n"
        "	movq %rcx, %rdi\n"
        "	xorl %ebp, %ebp\n" /* end of the frame chain for unwinders */
        "	callq *%rdx\n"
        "	ud2\n"
        ".size ls_fiber_start, .-ls_fiber_start\n"

        ".globl ls_fiber_jump\n"
        ".hidden ls_fiber_jump\n"
        ".type ls_fiber_jump,@function\n"
        "ls_fiber_jump:\n"
        "	movq %rdi, %rsp\n"
        "	jmp ls_fiber_resume_frame\n"
        ".size ls_fiber_jump, .-ls_fiber_jump\n");

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1ul << 1)
#endif

bool ls_fiber_supported(void)
{
	return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
}

static inline long raw_syscall4(long n, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
	                 : "=a"(r)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
	                 : "rcx", "r11", "memory");
	return r;
}

static inline long raw_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
	                 : "=a"(r)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return r;
}

/* Bit s-1 is signal s; 33 is glibc's SIGSETXID. */
#define SIGSETXID_BIT (1ull << 32)

void ls_raw_block_signals(ls_sigmask_t *old)
{
	ls_sigmask_t all = ~SIGSETXID_BIT;
	raw_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)old, sizeof all);
}

void ls_raw_set_sigmask(const ls_sigmask_t *mask)
{
	raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)mask, 0, sizeof *mask);
}

long ls_raw_futex_wait(const _Atomic uint32_t *word, uint32_t expected)
{
	return raw_syscall6(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, expected, 0, 0, 0);
}

long ls_raw_futex_wake(const _Atomic uint32_t *word, int n)
{
	return raw_syscall6(SYS_futex, (long)word, FUTEX_WAKE_PRIVATE, n, 0, 0, 0);
}

#else /* not x86-64: no delegation */

void ls_fiber_switch(void **save, void *to) { __builtin_trap(); }
void ls_fiber_start(void **save, void *stack_top, void (*fn)(void *), void *arg)
{
	__builtin_trap();
}
void ls_fiber_jump(void *to) { __builtin_trap(); }
bool ls_fiber_supported(void) { return false; }
void ls_raw_block_signals(ls_sigmask_t *old) { *old = 0; }
void ls_raw_set_sigmask(const ls_sigmask_t *mask) {}
long ls_raw_futex_wait(const _Atomic uint32_t *word, uint32_t expected) { return 0; }
long ls_raw_futex_wake(const _Atomic uint32_t *word, int n) { return 0; }

#endif
