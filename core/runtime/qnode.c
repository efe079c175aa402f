#include "qnode.h"

#include <stddef.h>
#include <sys/mman.h>

#include "alloc_lock.h"
#include "wait.h"
#include "cold.h"

#define PER_SLAB 256u
#define MAX_SLABS (LS_QNODE_MAX / PER_SLAB)

static struct ls_qnode *_Atomic slabs[MAX_SLABS] LS_COLD_BSS;
static struct ls_alloc_lock slab_lock; /* guards slab creation only */
static _Atomic uint32_t next_extra = LS_QNODE_HOMES + 1;

static struct ls_qnode *slot(struct ls_qnode *s, uint32_t id)
{
	return (struct ls_qnode *)((char *)s + ((id - 1) % PER_SLAB) * LS_QNODE_BYTES);
}

struct ls_qnode *ls_qnode_by_id(uint32_t id)
{
	if (id == 0 || id > LS_QNODE_MAX)
		return NULL;
	/* acquire: pairs with the release store that publishes a slab in make(). */
	struct ls_qnode *s = atomic_load_explicit(&slabs[(id - 1) / PER_SLAB], memory_order_acquire);
	return s ? slot(s, id) : NULL;
}

/* The node with this id, creating its slab if needed. */
static struct ls_qnode *make(uint32_t id)
{
	struct ls_qnode *n = ls_qnode_by_id(id);
	if (n || id == 0 || id > LS_QNODE_MAX)
		return n;
	uint32_t k = (id - 1) / PER_SLAB;
	ls_alloc_lock_acquire(&slab_lock);
	/* relaxed: slab_lock orders slab creation. */
	struct ls_qnode *s = atomic_load_explicit(&slabs[k], memory_order_relaxed);
	if (!s) {
		void *p = mmap(NULL, PER_SLAB * LS_QNODE_BYTES, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			s = p;
			for (uint32_t i = 0; i < PER_SLAB; i++)
				slot(s, k * PER_SLAB + i + 1)->id = k * PER_SLAB + i + 1;
			atomic_store_explicit(&slabs[k], s, memory_order_release);
		}
	}
	ls_alloc_lock_release(&slab_lock);
	return s ? slot(s, id) : NULL;
}

void ls_qnode_after_fork(void)
{
	/* Single-threaded here (fork child handler).  slab_lock may have been
	 * held by a thread that no longer exists; what it guarded is whole
	 * (a slab is published by its final release store, so one cut short
	 * is at worst an unpublished mapping). */
	ls_alloc_lock_reset(&slab_lock);
}

struct ls_qnode *ls_qnode_get(struct ls_thread *self)
{
	struct ls_qnode *home = make(self->id), *n;
	if (!home)
		return NULL;
	for (n = home; n; n = n->pool_next)
		/* acquire: pairs with ls_qnode_put's release. */
		if (atomic_load_explicit(&n->state, memory_order_acquire) == LS_QNODE_FREE)
			goto found;
	/* relaxed: only uniqueness matters; make() publishes the node. */
	uint32_t id = atomic_fetch_add_explicit(&next_extra, 1, memory_order_relaxed);
	n = make(id);
	if (!n)
		return NULL;
	n->pool_next = home->pool_next;
	home->pool_next = n;
found:
	/* relaxed: published by the lock's release when the id is queued. */
	atomic_store_explicit(&n->next, 0, memory_order_relaxed);
	return n;
}

void ls_qnode_link(struct ls_qnode *pred, uint32_t id)
{
	/* release: the successor's node is initialised before pred's owner
	 * (or whoever skips pred) reads the link with acquire. */
	if (atomic_exchange_explicit(&pred->next, id, memory_order_release) == LS_QNODE_LINK_PARKED)
		ls_unpark(&pred->next, 1);
}

static bool linked(struct ls_qnode *n, uint32_t *v)
{
	/* acquire: pairs with the release exchange in ls_qnode_link. */
	*v = atomic_load_explicit(&n->next, memory_order_acquire);
	return *v && *v != LS_QNODE_LINK_PARKED;
}

uint32_t ls_qnode_wait_link(struct ls_qnode *n)
{
	uint32_t v;
	/* The successor is between its tail swap and its link store: a few
	 * instructions, unless it was preempted.  Spin while the policy
	 * allows (core/runtime/wait.h), then park. */
	if (LS_SPIN_UNTIL(n, linked(n, &v)))
		return v;
	for (;;) {
		v = 0;
		if (atomic_compare_exchange_strong_explicit(&n->next, &v, LS_QNODE_LINK_PARKED,
		                                            memory_order_acquire,
		                                            memory_order_acquire) ||
		    v == LS_QNODE_LINK_PARKED)
			ls_park_uncancellable(&n->next, LS_QNODE_LINK_PARKED, CLOCK_MONOTONIC, NULL);
		else
			return v;
	}
}
