/*
 * thread.c - per-thread counter blocks.
 *
 * Each thread that makes a counted call gets a block: a header and a
 * counter array indexed by slot (LS_STATS_MAX_SLOTS entries, MAP_NORESERVE:
 * pages are committed only for the slots the thread touches).  Only the
 * owning thread writes it, with plain stores, so the uncontended path adds
 * no shared-cache-line write for counting; the report reads it racily.
 *
 * Life cycle: LIVE while the thread runs; at thread exit (the thread
 * record's key destructor, interpose/start/init.c) the non-zero counters are copied into a
 * compact exited record, the array is zeroed (MADV_DONTNEED) and the block
 * goes FREE, to be reused by the next new thread.  Blocks are never
 * unmapped (the report may be walking them), except a dead parent thread's
 * counter array in a fork child.  After LS_STATS_EXITED_MAX exited threads,
 * further exits are folded into per-lock totals (no per-thread share).
 *
 * The thread-local `ls_stats_q.busy` is the "in the profiler" flag: while it
 * is set (unwinding, reporting, allocating a block) every hook serves the
 * call and records nothing - so the unwinder's or a preloaded allocator's own
 * lock calls never recurse into the accounting.  Serving never depends on
 * the flag, so an object is served by one implementation for its life.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/runtime/sys.h"
#include "../core/mutex/futexlock.h"
#include "../core/runtime/thread.h"
#include "data.h"
#include "pending.h"
#include "state.h"
#include "table.h"
#include "thread.h"

__thread struct ls_stats_thread *ls_stats_me __attribute__((tls_model("initial-exec")));
__thread bool ls_stats_gone __attribute__((tls_model("initial-exec")));

#define HDR_BYTES (((sizeof(struct ls_stats_thread) + 4095) / 4096) * 4096)
#define COUNT_BYTES ((size_t)LS_STATS_MAX_SLOTS * sizeof(struct ls_stats_count))

static struct ls_stats_thread *_Atomic all_blocks;
static struct ls_futexlock free_lock; /* guards free_blocks and the arena */
static struct ls_stats_thread *free_blocks;
static _Atomic uint32_t next_serial = 1;

/* The inline step's copy of the calling thread's serial (quick.h). */
static void quick_serial(const struct ls_stats_thread *t)
{
	ls_stats_q.serial = t->serial;
	ls_stats_q.mine = (uint64_t)t->serial << 32;
}

static struct ls_stats_exited *_Atomic exited_head;
static _Atomic uint32_t exited_count;
static _Atomic uint64_t exited_folded;

/* Bump arena for exited records (under free_lock). */
#define ARENA_CHUNK (1u << 20)
static char *arena_ptr;
static size_t arena_left;

struct ls_stats_thread *ls_stats_threads(void)
{
	return atomic_load_explicit(&all_blocks, memory_order_acquire);
}

uintptr_t ls_stats_holder_site(uint32_t serial, uint32_t slot)
{
	if (!serial || slot >= LS_STATS_MAX_SLOTS)
		return 0;
	/* A walk of the blocks: only on a sampled contended wait.  A block
	 * is never unmapped while it is in the list (a fork child's dead
	 * blocks lose their array, hence the NULL test). */
	for (struct ls_stats_thread *t = ls_stats_threads(); t; t = t->next) {
		if (t->serial != serial ||
		    atomic_load_explicit(&t->state, memory_order_acquire) != LS_ST_LIVE)
			continue;
		struct ls_stats_count *c = t->count;
		return c ? atomic_load_explicit(&c[slot].site, memory_order_relaxed) : 0;
	}
	return 0;
}

struct ls_stats_exited *ls_stats_exited_list(void)
{
	return atomic_load_explicit(&exited_head, memory_order_acquire);
}

uint64_t ls_stats_exited_folded(void)
{
	return atomic_load_explicit(&exited_folded, memory_order_relaxed);
}

/* Next sampling period: uniform in 1..2N-1 (mean N), so a periodic
 * program cannot phase-lock with the sampler. */
static uint32_t period(struct ls_stats_thread *t, uint32_t n)
{
	if (n <= 1)
		return 1;
	uint64_t x = t->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	return 1 + (uint32_t)(x % (2ull * n - 1));
}

uint32_t ls_stats_period(struct ls_stats_thread *t)
{
	return period(t, ls_stats_cfg.sample);
}

uint32_t ls_stats_hold_period(struct ls_stats_thread *t)
{
	return period(t, ls_stats_cfg.hold_sample);
}

uint32_t ls_stats_stack_period(struct ls_stats_thread *t)
{
	return period(t, ls_stats_cfg.sample == 1 ? 1 : LS_STATS_STACK_FACTOR);
}

static struct ls_stats_thread *block_new(void)
{
	void *p = mmap(NULL, HDR_BYTES + COUNT_BYTES, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct ls_stats_thread *t = p;
	t->count = (struct ls_stats_count *)((char *)p + HDR_BYTES);
	return t;
}

static void block_publish(struct ls_stats_thread *t)
{
	struct ls_stats_thread *head = atomic_load_explicit(&all_blocks, memory_order_relaxed);
	do
		t->next = head;
	while (!atomic_compare_exchange_weak_explicit(&all_blocks, &head, t, memory_order_release,
	                                              memory_order_relaxed));
}

struct ls_stats_thread *ls_stats_thread_attach(void)
{
	if (ls_stats_q.busy || ls_stats_gone || !ls_stats_setup())
		return NULL;
	ls_stats_enter();
	/* The thread record carries the exit hook (interpose/start/init.c). */
	struct ls_thread *rec = ls_thread_self();
	ls_futexlock_lock(&free_lock);
	struct ls_stats_thread *t = free_blocks;
	if (t)
		free_blocks = t->free_next;
	ls_futexlock_unlock(&free_lock);
	bool fresh = !t;
	if (fresh && !(t = block_new())) {
		ls_stats_leave();
		return NULL;
	}
	t->serial = atomic_fetch_add_explicit(&next_serial, 1, memory_order_relaxed);
	t->tid = (int32_t)syscall(SYS_gettid);
	t->nheld = 0;
	ls_stats_wait_forget(t);
	t->rng = ((uint64_t)t->serial * 0x9E3779B97F4A7C15ull) ^ ls_stats_now();
	if (!t->rng)
		t->rng = 1;
	ls_stats_q.rows = t->count;
	quick_serial(t);
	/* Given to hold_left when this function leaves the profiler. */
	ls_stats_q.parked = ls_stats_hold_period(t);
	t->wait_left = ls_stats_period(t);
	t->cond_left = ls_stats_period(t);
	t->stack_left = ls_stats_stack_period(t);
	t->stack_at = 0; /* the first waiter stack is not held back */
	atomic_store_explicit(&t->state, LS_ST_LIVE, memory_order_release);
	if (fresh)
		block_publish(t);
	if (rec)
		rec->stats = t;
	ls_stats_me = t;
	ls_stats_leave();
	return t;
}

static void *arena_alloc(size_t bytes)
{
	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes > ARENA_CHUNK / 4) {
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	if (arena_left < bytes) {
		void *p = mmap(NULL, ARENA_CHUNK, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		arena_ptr = p;
		arena_left = ARENA_CHUNK;
	}
	void *r = arena_ptr;
	arena_ptr += bytes;
	arena_left -= bytes;
	return r;
}

static bool nonzero(const struct ls_stats_count *c)
{
	for (int k = 0; k < LS_C_N; k++)
		if (atomic_load_explicit(&c->c[k], memory_order_relaxed))
			return true;
	return atomic_load_explicit(&c->want, memory_order_relaxed) != 0;
}

/* Keep an exiting thread's counters: one record, or folded into totals. */
static void retire(struct ls_stats_thread *t)
{
	uint32_t hi = atomic_load_explicit(&t->hi, memory_order_relaxed);
	uint32_t n = 0;
	for (uint32_t s = 1; s < hi; s++)
		n += nonzero(&t->count[s]);
	if (!n)
		return;
	struct ls_stats_exited *x = NULL;
	if (atomic_fetch_add_explicit(&exited_count, 1, memory_order_relaxed) < LS_STATS_EXITED_MAX) {
		ls_futexlock_lock(&free_lock);
		x = arena_alloc(sizeof *x + n * sizeof x->e[0]);
		ls_futexlock_unlock(&free_lock);
	}
	if (!x) {
		atomic_fetch_add_explicit(&exited_folded, 1, memory_order_relaxed);
		for (uint32_t s = 1; s < hi; s++)
			for (int k = 0; k < LS_C_N; k++) {
				uint64_t v = atomic_load_explicit(&t->count[s].c[k], memory_order_relaxed);
				if (v)
					atomic_fetch_add_explicit(&ls_stats_rec(s)->retired[k], v,
					                          memory_order_relaxed);
			}
		return;
	}
	x->serial = t->serial;
	x->tid = t->tid;
	/* Raw: the program's prctl is lockswap's own wrapper (interpose/away/). */
	ls_sys6(SYS_prctl, PR_GET_NAME, (long)x->name, 0, 0, 0, 0);
	x->name[sizeof x->name - 1] = 0;
	uint32_t i = 0;
	for (uint32_t s = 1; s < hi && i < n; s++) {
		if (!nonzero(&t->count[s]))
			continue;
		x->e[i].slot = s;
		for (int k = 0; k < LS_C_N; k++)
			x->e[i].c[k] = atomic_load_explicit(&t->count[s].c[k], memory_order_relaxed);
		x->e[i].want = atomic_load_explicit(&t->count[s].want, memory_order_relaxed);
		i++;
	}
	x->n = i;
	struct ls_stats_exited *head = atomic_load_explicit(&exited_head, memory_order_relaxed);
	do
		x->next = head;
	while (!atomic_compare_exchange_weak_explicit(&exited_head, &head, x, memory_order_release,
	                                              memory_order_relaxed));
}

void ls_stats_thread_exit(struct ls_thread *rec)
{
	struct ls_stats_thread *t = rec->stats;
	if (!t)
		return;
	rec->stats = NULL;
	ls_stats_enter();
	if (ls_stats_me == t) {
		/* Its last sampled wait, if it exits holding the lock that
		 * wait ended in (the pending wait is its own thread's). */
		ls_stats_wait_flush(t);
		ls_stats_me = NULL;
		ls_stats_gone = true;
		/* The inline step stops counting into rows that the next owner
		 * of the block will use. */
		ls_stats_q.rows = NULL;
		ls_stats_q.parked = 1; /* hold_left once this function leaves: no counting */
	}
	atomic_store_explicit(&t->state, LS_ST_EXITING, memory_order_release);
	retire(t);
	uint32_t hi = atomic_load_explicit(&t->hi, memory_order_relaxed);
	size_t bytes = ((size_t)hi * sizeof(struct ls_stats_count) + 4095) & ~(size_t)4095;
	if (bytes)
		madvise(t->count, bytes, MADV_DONTNEED);
	atomic_store_explicit(&t->hi, 0, memory_order_relaxed);
	atomic_store_explicit(&t->state, LS_ST_FREE, memory_order_release);
	ls_futexlock_lock(&free_lock);
	t->free_next = free_blocks;
	free_blocks = t;
	ls_futexlock_unlock(&free_lock);
	ls_stats_leave();
}

/* Fork child, single-threaded: the forking thread's block restarts from
 * zero, the parent's other threads are gone (their arrays are unmapped,
 * their headers stay on the list as DEAD), exited records are forgotten. */
void ls_stats_thread_reset(void)
{
	atomic_store_explicit(&free_lock.word, LS_FUTEX_UNLOCKED, memory_order_relaxed);
	for (struct ls_stats_thread *t = ls_stats_threads(); t; t = t->next) {
		uint32_t st = atomic_load_explicit(&t->state, memory_order_relaxed);
		if (t == ls_stats_me) {
			uint32_t hi = atomic_load_explicit(&t->hi, memory_order_relaxed);
			size_t bytes = ((size_t)hi * sizeof(struct ls_stats_count) + 4095) & ~(size_t)4095;
			if (bytes)
				madvise(t->count, bytes, MADV_DONTNEED);
			atomic_store_explicit(&t->hi, 0, memory_order_relaxed);
			t->nheld = 0;
			ls_stats_wait_forget(t);
			t->tid = (int32_t)syscall(SYS_gettid);
		} else if (st == LS_ST_LIVE || st == LS_ST_EXITING) {
			atomic_store_explicit(&t->state, LS_ST_DEAD, memory_order_relaxed);
			munmap(t->count, COUNT_BYTES);
			t->count = NULL;
		}
	}
	atomic_store_explicit(&exited_head, NULL, memory_order_relaxed);
	atomic_store_explicit(&exited_count, 0, memory_order_relaxed);
	atomic_store_explicit(&exited_folded, 0, memory_order_relaxed);
}
