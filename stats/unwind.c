/*
 * unwind.c - call stacks with libunwind, loaded on demand.
 *
 * libunwind is dlopen'ed RTLD_LOCAL by the constructor, and only when
 * statistics are on, rather than linked: libunwind.so.8 exports the whole
 * unversioned _Unwind_* exception ABI (and a weak `backtrace`), which a
 * preloaded library's dependency would put ahead of libgcc_s in the global
 * scope of programs that reach libgcc_s only indirectly; and a program run
 * without statistics should not load libunwind and liblzma at all.
 * RTLD_LOCAL keeps its symbols out of the global scope while its own
 * references (pthread_mutex_lock, ...) still reach our entry points, where
 * the in-profiler flag makes them pass without accounting.
 *
 * The warm-up call in the constructor runs libunwind's one-time set-up
 * (tdep_init, the trace-cache key and mempool) outside any lock path.
 * Without libunwind a stack is just the caller's return address.
 */
#include <dlfcn.h>
#include <link.h>

#include "impl.h"

typedef int (*backtrace_fn)(void **frames, int max);
static _Atomic(backtrace_fn) unw_backtrace_p;

/* Text ranges of liblockswap.so (to drop our own frames) and of
 * libunwind (whose own locks are not counted). */
static uintptr_t own_lo, own_hi, unw_lo, unw_hi;

bool ls_stats_unwind_available(void)
{
	return atomic_load_explicit(&unw_backtrace_p, memory_order_acquire) != NULL;
}

int ls_stats_unwind(void **frames, int max)
{
	backtrace_fn f = atomic_load_explicit(&unw_backtrace_p, memory_order_acquire);
	return f ? f(frames, max) : 0;
}

bool ls_stats_own_frame(uintptr_t pc)
{
	return pc >= own_lo && pc < own_hi;
}

bool ls_stats_profiler_frame(uintptr_t pc)
{
	return (pc >= own_lo && pc < own_hi) || (pc >= unw_lo && pc < unw_hi);
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
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
	backtrace_fn f = h ? (backtrace_fn)dlsym(h, "unw_backtrace") : NULL;
	if (f) {
		struct range unw = { (uintptr_t)f, 0, 0 };
		dl_iterate_phdr(find_text, &unw);
		unw_lo = unw.lo;
		unw_hi = unw.hi;
		void *frames[8];
		f(frames, 8);
		atomic_store_explicit(&unw_backtrace_p, f, memory_order_release);
	}
	ls_stats_leave();
}
