/*
 * unwind.c - call stacks with libgcc's unwinder, loaded on demand.
 *
 * _Unwind_Backtrace from libgcc_s.so.1, dlopen'ed RTLD_LOCAL by the
 * constructor and only when statistics are on (C++ programs have it
 * loaded already; glibc loads it itself for thread cancellation).  It
 * finds each frame's unwind table through glibc's _dl_find_object, without
 * a lock and without a cache of its own.  libunwind's unw_backtrace, which
 * took the stacks before, keeps a trace cache per thread: 256 KiB, mapped
 * and written through at the thread's first stack (about 1.1 ms of CPU),
 * and kept as long as the thread lives, so 200 threads that each waited
 * once with a stack took 57 MB of memory against 5.6 MB without stacks.
 * libgcc's unwinder costs 55 us for a thread's first stack and 14 us for
 * the next ones (libunwind: 10-11 us), which the stack sampling's bound
 * (at most one waiter stack every 20 ms per thread) keeps small: LevelDB
 * readrandom at 8 threads ran at 0.999x with it (docs/stats.md, "Sampled
 * waits recorded after the release").
 *
 * The warm-up call in the constructor runs libgcc's one-time set-up (its
 * table of register sizes, under pthread_once) outside any lock path.
 * Without libgcc_s a stack is just the caller's return address.
 */
#include <dlfcn.h>
#include <link.h>
#include <unwind.h>

#include "state.h"
#include "unwind.h"

typedef _Unwind_Reason_Code (*trace_fn)(_Unwind_Trace_Fn, void *);
typedef _Unwind_Ptr (*ip_fn)(struct _Unwind_Context *);
static _Atomic(trace_fn) trace_p;
static ip_fn get_ip; /* set before trace_p is published */

/* The text range of liblockswap.so, to drop our own frames. */
static uintptr_t own_lo, own_hi;

bool ls_stats_unwind_available(void)
{
	return atomic_load_explicit(&trace_p, memory_order_acquire) != NULL;
}

struct frames {
	void **f;
	int n, max;
};

static _Unwind_Reason_Code one_frame(struct _Unwind_Context *c, void *arg)
{
	struct frames *fr = arg;
	_Unwind_Ptr ip = get_ip(c);
	/* 0: the outermost frame (a thread's start, below clone), which
	 * libgcc reports as one more frame; the stack ends above it. */
	if (fr->n == fr->max || ip == 0)
		return _URC_END_OF_STACK;
	fr->f[fr->n++] = (void *)ip;
	return _URC_NO_REASON;
}

static int walk(trace_fn trace, void **frames, int max)
{
	struct frames fr = { frames, 0, max };
	trace(one_frame, &fr);
	return fr.n;
}

int ls_stats_unwind(void **frames, int max)
{
	trace_fn trace = atomic_load_explicit(&trace_p, memory_order_acquire);
	return trace ? walk(trace, frames, max) : 0;
}

bool ls_stats_own_frame(uintptr_t pc)
{
	return pc >= own_lo && pc < own_hi;
}

struct range {
	uintptr_t inside, lo, hi;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct range *r = arg;
	uintptr_t me = r->inside;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (me >= lo && me < hi) {
			r->lo = lo;
			r->hi = hi;
			return 1;
		}
	}
	return 0;
}

void ls_stats_unwind_warm(void)
{
	ls_stats_enter();
	struct range own = { (uintptr_t)&ls_stats_unwind_warm, 0, 0 };
	dl_iterate_phdr(find_text, &own);
	own_lo = own.lo;
	own_hi = own.hi;
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
	trace_fn trace = h ? (trace_fn)dlsym(h, "_Unwind_Backtrace") : NULL;
	get_ip = h ? (ip_fn)dlsym(h, "_Unwind_GetIP") : NULL;
	if (trace && get_ip) {
		void *frames[8];
		walk(trace, frames, 8);
		atomic_store_explicit(&trace_p, trace, memory_order_release);
	}
	ls_stats_leave();
}
