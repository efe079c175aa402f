#include "fiber.h"

#include <sys/auxv.h>

#if defined(__x86_64__)

/* Read by the switch's assembly: write FS with WRFSBASE (1) or with
 * arch_prctl (0).  Set once, before any context is switched. */
__attribute__((visibility("hidden"))) unsigned char ls_fiber_wrfsbase;

/*
 * Frame of a saved context, from the saved stack pointer up:
 *   0   FS base (the TCB's self pointer, %fs:0)
 *   8   MXCSR (4 bytes), x87 control word (2 bytes), padding
 *   24  r15 r14 r13 r12 rbx rbp
 *   72  return address (where the context resumes)
 * Only the control words of the floating-point state are saved: the rest
 * (x87 stack, vector registers) is caller-saved in the SysV ABI, so no
 * caller of these functions keeps a value there across the call.
 *
 * Resuming (rsi = the saved stack pointer): FS first, then the stack.
 * The arch_prctl path keeps the target in r8, which `syscall` preserves
 * (it clobbers rax, rcx and r11 only).
 */
__asm__(".macro ls_fiber_save\n"
        "	pushq %rbp\n"
        "	pushq %rbx\n"
        "	pushq %r12\n"
        "	pushq %r13\n"
        "	pushq %r14\n"
        "	pushq %r15\n"
        "	subq $16, %rsp\n"
        "	stmxcsr (%rsp)\n"
        "	fnstcw 4(%rsp)\n"
        "	movq %fs:0, %rax\n"
        "	pushq %rax\n"
        "	movq %rsp, (%rdi)\n"
        ".endm\n"
        ".text\n"
        ".globl ls_fiber_switch\n"
        ".hidden ls_fiber_switch\n"
        ".type ls_fiber_switch,@function\n"
        "ls_fiber_switch:\n"
        "	ls_fiber_save\n"
        "ls_fiber_resume_frame:\n"
        "	movq (%rsi), %rax\n"
        "	cmpb $0, ls_fiber_wrfsbase(%rip)\n"
        "	je 1f\n"
        "	wrfsbase %rax\n"
        "	jmp 2f\n"
        "1:\n"
        "	movq %rsi, %r8\n"
        "	movq %rax, %rsi\n"
        "	movl $0x1002, %edi\n" /* ARCH_SET_FS */
        "	movl $158, %eax\n"    /* SYS_arch_prctl */
        "	syscall\n"
        "	movq %r8, %rsi\n"
        "2:\n"
        "	leaq 8(%rsi), %rsp\n"
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
        "	movq %rdi, %rsi\n"
        "	jmp ls_fiber_resume_frame\n"
        ".size ls_fiber_jump, .-ls_fiber_jump\n");

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1ul << 1)
#endif

bool ls_fiber_supported(void)
{
	ls_fiber_wrfsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
	return true;
}

bool ls_fiber_fast(void) { return ls_fiber_wrfsbase; }

#else /* not x86-64: no delegation */

void ls_fiber_switch(void **save, void *to) { __builtin_trap(); }
void ls_fiber_start(void **save, void *stack_top, void (*fn)(void *), void *arg)
{
	__builtin_trap();
}
void ls_fiber_jump(void *to) { __builtin_trap(); }
bool ls_fiber_supported(void) { return false; }
bool ls_fiber_fast(void) { return false; }

#endif
