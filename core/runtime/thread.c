#include "thread.h"

#include <stddef.h>
#include <sys/mman.h>

#include "alloc_lock.h"
#include "cold.h"

/*
 * Slab directory: slab k holds ids [k*PER_SLAB+1, (k+1)*PER_SLAB].  Slabs
 * are published with a release store after being filled, so a reader that
 * sees the pointer sees initialised records.  4096 slabs of 256 records is
 * a million threads alive at once; past that, allocation fails cleanly.
 */
#define PER_SLAB 256u
#define MAX_SLABS 4096u

__thread struct ls_thread *ls_thread_current
        __attribute__((tls_model("initial-exec")));
void (*ls_thread_hook)(struct ls_thread *t);
_Atomic uint32_t ls_fork_epoch;

static struct ls_thread *_Atomic slabs[MAX_SLABS] LS_COLD_BSS;
static _Atomic uint32_t nslabs;
/* Guards free_list and slab creation; never held across a blocking call
 * other than mmap.  A plain futex lock: it must not be a pthread mutex. */
static struct ls_alloc_lock alloc_lock;
static struct ls_thread *free_list;

static bool add_slab(void)
{
	uint32_t k = atomic_load_explicit(&nslabs, memory_order_relaxed);
	if (k >= MAX_SLABS)
		return false;
	void *p = mmap(NULL, PER_SLAB * LS_THREAD_RECORD_BYTES,
	               PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	struct ls_thread *s = p;
	for (uint32_t i = 0; i < PER_SLAB; i++) {
		struct ls_thread *t = (struct ls_thread *)((char *)p + i * LS_THREAD_RECORD_BYTES);
		t->id = k * PER_SLAB + i + 1;
		t->free_next = i + 1 < PER_SLAB
		        ? (struct ls_thread *)((char *)p + (i + 1) * LS_THREAD_RECORD_BYTES)
		        : free_list;
	}
	free_list = s;
	atomic_store_explicit(&slabs[k], s, memory_order_release);
	atomic_store_explicit(&nslabs, k + 1, memory_order_release);
	return true;
}

/* Records attached to running threads (changed under alloc_lock). */
static _Atomic unsigned live;

struct ls_thread *ls_thread_self_slow(void)
{
	ls_alloc_lock_acquire(&alloc_lock);
	if (!free_list && !add_slab()) {
		ls_alloc_lock_release(&alloc_lock);
		return NULL;
	}
	struct ls_thread *t = free_list;
	free_list = t->free_next;
	live++;
	ls_alloc_lock_release(&alloc_lock);

	atomic_store_explicit(&t->event, 0, memory_order_relaxed);
	atomic_store_explicit(&t->q_next, NULL, memory_order_relaxed);
	atomic_store_explicit(&t->q_prev, NULL, memory_order_relaxed);
	for (int i = 0; i < 4; i++)
		atomic_store_explicit(&t->q_word[i], 0, memory_order_relaxed);
	t->cv_next = t->cv_prev = t->cv_wake_next = NULL;
	t->cv_owner = NULL;
	t->stats = NULL;
	/* Wraps within the bits ls_thread_tag leaves it. */
	t->incarnation = (t->incarnation + 1) & ((1u << (32 - LS_THREAD_ID_BITS)) - 1);
	atomic_store_explicit(&t->state, LS_THREAD_ALIVE, memory_order_release);
	ls_thread_current = t;
	if (ls_thread_hook)
		ls_thread_hook(t);
	return t;
}

struct ls_thread *ls_thread_by_id(uint32_t id)
{
	if (id == 0)
		return NULL;
	uint32_t k = (id - 1) / PER_SLAB;
	if (k >= MAX_SLABS)
		return NULL;
	struct ls_thread *s = atomic_load_explicit(&slabs[k], memory_order_acquire);
	if (!s)
		return NULL;
	return (struct ls_thread *)((char *)s + ((id - 1) % PER_SLAB) * LS_THREAD_RECORD_BYTES);
}

void ls_thread_release(struct ls_thread *t)
{
	if (!t)
		return;
	if (ls_thread_current == t)
		ls_thread_current = NULL;
	atomic_store_explicit(&t->state, LS_THREAD_FREE, memory_order_relaxed);
	ls_alloc_lock_acquire(&alloc_lock);
	t->free_next = free_list;
	free_list = t;
	live--;
	ls_alloc_lock_release(&alloc_lock);
}

unsigned ls_thread_live(void)
{
	/* relaxed: a hint for the waiting policy; updated under alloc_lock. */
	return atomic_load_explicit(&live, memory_order_relaxed);
}

void ls_thread_after_fork(void)
{
	/* Single-threaded here (fork child handler).  The allocator lock may
	 * have been held by a thread that no longer exists. */
	ls_alloc_lock_reset(&alloc_lock);
	struct ls_thread *self = ls_thread_current;
	uint32_t n = atomic_load_explicit(&nslabs, memory_order_relaxed);
	free_list = NULL;
	for (uint32_t id = n * PER_SLAB; id >= 1; id--) {
		struct ls_thread *t = ls_thread_by_id(id);
		uint32_t s = atomic_load_explicit(&t->state, memory_order_relaxed);
		/* Records of the parent's other threads die for good: locks they
		 * held keep their owner id, and that id must never come back as
		 * a live thread of the child. */
		if (s == LS_THREAD_ALIVE && t != self)
			atomic_store_explicit(&t->state, LS_THREAD_DEAD, memory_order_relaxed);
		else if (s == LS_THREAD_FREE) {
			t->free_next = free_list;
			free_list = t;
		}
	}
	atomic_store_explicit(&live, self ? 1u : 0u, memory_order_relaxed);
	atomic_fetch_add_explicit(&ls_fork_epoch, 1, memory_order_release);
}

uint32_t ls_thread_count(void)
{
	return atomic_load_explicit(&nslabs, memory_order_relaxed) * PER_SLAB;
}
