/*
 * ces_costs.c - what the ces backend's context switch and signal work
 * cost, per call, on this machine (docs/delegation.md, "What the signal
 * work costs"; docs/results.md section 18).  Not linked to lockswap: it
 * times the same raw system calls the library makes.
 *
 *   rt_sigprocmask read           a delegable wait reads its mask (once per wait)
 *   rt_sigprocmask block + restore  a batch blocks glibc's two internal signals
 *                                 and restores its mask (once per batch)
 *   arch_prctl(ARCH_SET_FS)       one context switch where WRFSBASE is hidden
 *                                 (two per delegated section)
 *   wrfsbase                      the same where the kernel enables FSGSBASE
 *
 * Each is timed over 200000 calls, 7 times; the median is printed, as
 * nanoseconds of wall time and of the thread's CPU time.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CALLS 200000
#define REPS 7

static long sys6(long n, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
	                 : "rcx", "r11", "memory");
	return r;
}

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static unsigned long fs_base;
static uint64_t mask_buf;

static void op_read(void) { sys6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&mask_buf, 8); }
static void op_batch(void)
{
	uint64_t internal = 3ull << 31, old;
	sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&internal, (long)&old, 8);
	sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8);
}
static void op_arch_prctl(void) { sys6(SYS_arch_prctl, ARCH_SET_FS, (long)fs_base, 0, 0); }
static void op_wrfsbase(void) { __asm__ volatile("wrfsbase %0" : : "r"(fs_base) : "memory"); }

static void measure(const char *name, void (*op)(void))
{
	double wall[REPS], cpu[REPS];
	for (int r = 0; r < REPS; r++) {
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
		for (int i = 0; i < CALLS; i++)
			op();
		wall[r] = (now(CLOCK_MONOTONIC) - w0) / CALLS;
		cpu[r] = (now(CLOCK_THREAD_CPUTIME_ID) - c0) / CALLS;
	}
	qsort(wall, REPS, sizeof wall[0], cmp);
	qsort(cpu, REPS, sizeof cpu[0], cmp);
	printf("%-34s %9.1f ns wall %9.1f ns cpu (median of %d x %d)\n", name, wall[REPS / 2],
	       cpu[REPS / 2], REPS, CALLS);
}

int main(void)
{
	__asm__("movq %%fs:0, %0" : "=r"(fs_base));
	measure("rt_sigprocmask read (per wait)", op_read);
	measure("block + restore (per batch)", op_batch);
	measure("arch_prctl(ARCH_SET_FS) (per switch)", op_arch_prctl);
	if (getauxval(AT_HWCAP2) & 2)
		measure("wrfsbase (per switch)", op_wrfsbase);
	else
		printf("%-34s not available (the kernel or the VM hides FSGSBASE)\n", "wrfsbase (per switch)");
	return 0;
}
