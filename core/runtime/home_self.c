/* home_self.c - a thread's home block, made from its thread record
 * (home.h: ls_home_self).  Apart from home.c, whose go-home mechanics the
 * allocators' lock under the thread records reaches (park.h). */
#include <sys/mman.h>

#include "home.h"
#include "thread.h"

/*
 * One block per thread record (kept in it): the struct on the first pages,
 * a guard page, then the parking stack.  The parking stack runs the queue
 * push and the futex wait of a delegable waiter (core/delegation/ces.c),
 * and the signal handlers that interrupt that wait: the routing of
 * home_signal.c, a few hundred bytes, under a kernel signal frame of up to
 * a few KiB (AVX-512 state); the size leaves room for sanitizer builds.
 */
#define HOME_PAGE 4096u
#define HOME_HEAD (2u * HOME_PAGE)
#define HOME_BYTES (64u * 1024u)

_Static_assert(sizeof(struct ls_home) <= HOME_HEAD, "home block outgrew its pages");

static struct ls_home *make_home(void)
{
	char *p = mmap(NULL, HOME_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	               -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + HOME_HEAD, HOME_PAGE, PROT_NONE);
	struct ls_home *h = (struct ls_home *)p;
	h->stack_top = p + HOME_BYTES;
	return h;
}

struct ls_home *ls_home_self(void)
{
	struct ls_home *h = ls_home_current;
	if (h)
		return h;
	struct ls_thread *t = ls_thread_self();
	if (!t)
		return NULL;
	/* A record belongs to one live thread at a time, and only its thread
	 * reads or writes this field: no race, plain accesses. */
	if (!t->home && !(t->home = make_home()))
		return NULL;
	h = t->home;
	/* A reused block is a new thread's: its kernel thread, nothing kept. */
	h->tid = ls_sys_gettid();
	h->parked = h->left_home = h->interrupted = h->mask_dirty = false;
	atomic_store_explicit(&h->away, false, memory_order_relaxed);
	/* The thread's alternate stack as the kernel has it now (set before
	 * lockswap saw the thread, or never: SS_DISABLE). */
	if (ls_sys6(SYS_sigaltstack, 0, (long)&h->alt, 0, 0, 0, 0) != 0)
		h->alt = (stack_t){ .ss_flags = SS_DISABLE };
	atomic_store_explicit(&h->kept, 0, memory_order_relaxed);
	ls_home_current = h;
	return h;
}

