#include "../runtime/sys.h"
#include "slice_share.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../runtime/timespec.h"

_Atomic unsigned ls_slice_shares = LS_SLICE_SHARES_EQUAL;

/* The calling thread's cached factor and when to read the nice values
 * again (0: never read). */
static __thread struct {
	uint64_t next_ns;
	uint64_t factor;
} cache __attribute__((tls_model("initial-exec")));

uint64_t ls_slice_share_factor(int steps)
{
	if (steps > LS_SLICE_SHARE_MAX_STEPS)
		steps = LS_SLICE_SHARE_MAX_STEPS;
	if (steps < -LS_SLICE_SHARE_MAX_STEPS)
		steps = -LS_SLICE_SHARE_MAX_STEPS;
	/* Exact in 64 bits: at most 65536 x 1.25^15 ~ 1.9e6 before each
	 * multiplication by 5. */
	uint64_t f = 1u << 16;
	for (; steps > 0; steps--)
		f = f * 5 / 4;
	for (; steps < 0; steps++)
		f = f * 4 / 5;
	return f;
}

/* A thread's nice value, or `fallback` where it cannot be read.  The raw
 * call (core/runtime/sys.h): the program's getpriority is lockswap's own
 * wrapper (interpose/away/).  The kernel answers 20 - nice, in 1..40. */
static int nice_of(pid_t tid, int fallback)
{
	long r = ls_sys6(SYS_getpriority, PRIO_PROCESS, tid, 0, 0, 0, 0);
	return r > 0 ? 20 - (int)r : fallback;
}

uint64_t ls_slice_share_budget(uint64_t ticks)
{
	if (atomic_load_explicit(&ls_slice_shares, memory_order_relaxed) != LS_SLICE_SHARES_NICE)
		return ticks;
	uint64_t now = ls_now_ns(CLOCK_MONOTONIC_COARSE);
	if (cache.next_ns == 0 || now >= cache.next_ns) {
		/* The main thread's tid is the process id (Linux: nice values
		 * are per thread, and PRIO_PROCESS takes a tid).  Raw calls:
		 * the host's errno is untouched. */
		int own = nice_of((pid_t)ls_sys_gettid(), 0);
		int main_nice = nice_of((pid_t)ls_sys_getpid(), own);
		cache.factor = ls_slice_share_factor(main_nice - own);
		cache.next_ns = now + LS_SLICE_SHARE_REFRESH_NS;
	}
	uint64_t scaled = (ticks >> 16) * cache.factor + (((ticks & 0xffff) * cache.factor) >> 16);
	return scaled ? scaled : 1;
}
