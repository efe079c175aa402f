/*
 * watch_thread.c - the per-thread records of watch.h: what each thread
 * holds and waits for.
 *
 * Records are carved out of mmap'ed slabs that are never unmapped, and
 * listed on one list that only grows (all_next), so that the watchdog can
 * read any of them at any time without a lock: a record it reads may be
 * changing or being reused, which costs at worst one wrong line, never a
 * bad pointer; it re-reads a wait's count to make sure of what it reports.
 *
 * A thread's record is handed back at its exit (the thread-record key's
 * destructor, interpose/start/init.c), unless the thread still holds a lock:
 * then it stays (EXITED), so that a waiter's report can say the holder
 * exited.  In a fork child the other threads' records become the
 * parent's (PARENT) if they hold a lock, else free: a lock the child
 * inherited held by another thread is named as the parent's.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../core/mutex/futexlock.h"
#include "../core/runtime/thread.h"
#include "watch_int.h"

/* Never changes: n = UINT32_MAX sends every inline case to the calls
 * below, which give the thread its own record (nobody) or serve the call
 * unwatched (gone: the thread has exited, but key destructors that run
 * after ours still lock). */
struct ls_watch_thread ls_watch_nobody = { .n = UINT32_MAX };
struct ls_watch_thread ls_watch_gone = { .n = UINT32_MAX };
__thread struct ls_watch_thread *ls_watch_me __attribute__((tls_model("initial-exec"))) =
        &ls_watch_nobody;

static _Atomic(struct ls_watch_thread *) all_records;
static struct ls_watch_thread *free_records; /* under free_lock */
static struct ls_futexlock free_lock;

#define SLAB 64

static void publish(struct ls_watch_thread *t)
{
	struct ls_watch_thread *head = atomic_load_explicit(&all_records, memory_order_relaxed);
	do
		t->all_next = head;
	while (!atomic_compare_exchange_weak_explicit(&all_records, &head, t, memory_order_release,
	                                              memory_order_relaxed));
}

/* A record off the free list, else a slab's worth: one for the caller,
 * the rest onto the free list. */
static struct ls_watch_thread *take(void)
{
	ls_futexlock_lock(&free_lock);
	struct ls_watch_thread *t = free_records;
	if (t)
		free_records = t->free_next;
	ls_futexlock_unlock(&free_lock);
	if (t)
		return t;
	void *p = mmap(NULL, SLAB * sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	               -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct ls_watch_thread *slab = p;
	for (int i = 0; i < SLAB; i++)
		publish(&slab[i]);
	ls_futexlock_lock(&free_lock);
	for (int i = 1; i < SLAB; i++) {
		slab[i].free_next = free_records;
		free_records = &slab[i];
	}
	ls_futexlock_unlock(&free_lock);
	return &slab[0];
}

static void give_back(struct ls_watch_thread *t)
{
	ls_futexlock_lock(&free_lock);
	t->free_next = free_records;
	free_records = t;
	ls_futexlock_unlock(&free_lock);
}

struct ls_watch_thread *ls_watch_records(void)
{
	return atomic_load_explicit(&all_records, memory_order_acquire);
}

struct ls_watch_thread *ls_watch_self(void)
{
	struct ls_watch_thread *t = ls_watch_me;
	if (t != &ls_watch_nobody)
		return t == &ls_watch_gone ? NULL : t;
	if (!ls_watch_active())
		return NULL;
	/* The core record carries the exit hook (interpose/start/init.c's key). */
	ls_thread_self();
	if (!(t = take()))
		return NULL;
	atomic_store_explicit(&t->n, 0, memory_order_relaxed);
	t->lost = 0;
	atomic_store_explicit(&t->wait_lock, 0, memory_order_relaxed);
	t->reported_seq = atomic_load_explicit(&t->wait_seq, memory_order_relaxed);
	t->name_ns = 0;
	atomic_store_explicit(&t->tid, (int32_t)syscall(SYS_gettid), memory_order_relaxed);
	atomic_store_explicit(&t->state, LS_WATCH_T_LIVE, memory_order_release);
	ls_watch_me = t;
	return t;
}

void ls_watch_thread_exit(void)
{
	struct ls_watch_thread *t = ls_watch_me;
	if (t == &ls_watch_nobody || t == &ls_watch_gone)
		return;
	ls_watch_me = &ls_watch_gone;
	atomic_store_explicit(&t->wait_lock, 0, memory_order_relaxed);
	if (atomic_load_explicit(&t->n, memory_order_relaxed) || t->lost) {
		/* Exited holding a lock: kept, so that its waiters' reports
		 * can name it. */
		atomic_store_explicit(&t->state, LS_WATCH_T_EXITED, memory_order_release);
		return;
	}
	atomic_store_explicit(&t->state, LS_WATCH_T_FREE, memory_order_release);
	give_back(t);
}

void ls_watch_threads_after_fork(void)
{
	struct ls_watch_thread *me = ls_watch_me;
	free_lock = (struct ls_futexlock){ 0 };
	free_records = NULL;
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		if (t == me) {
			atomic_store_explicit(&t->tid, (int32_t)syscall(SYS_gettid), memory_order_relaxed);
			continue;
		}
		atomic_store_explicit(&t->wait_lock, 0, memory_order_relaxed);
		uint32_t s = atomic_load_explicit(&t->state, memory_order_relaxed);
		bool holds = atomic_load_explicit(&t->n, memory_order_relaxed) || t->lost;
		if (s == LS_WATCH_T_FREE || (s == LS_WATCH_T_LIVE && !holds)) {
			atomic_store_explicit(&t->state, LS_WATCH_T_FREE, memory_order_relaxed);
			t->free_next = free_records;
			free_records = t;
		} else if (s == LS_WATCH_T_LIVE) {
			atomic_store_explicit(&t->state, LS_WATCH_T_PARENT, memory_order_relaxed);
		}
	}
}

/* ---- held locks ---- */

void ls_watch_acquired(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site)
{
	if (!t || t == &ls_watch_nobody || t == &ls_watch_gone)
		return;
	uint32_t n = atomic_load_explicit(&t->n, memory_order_relaxed);
	if (n == LS_WATCH_HELD) {
		t->lost++;
		return;
	}
	atomic_store_explicit(&t->held[n].lock, lock, memory_order_relaxed);
	atomic_store_explicit(&t->held[n].site, site, memory_order_relaxed);
	atomic_store_explicit(&t->n, n + 1, memory_order_release);
}

/* By address: an rwlock's unlock does not say which mode it releases. */
static int find_held(const struct ls_watch_thread *t, uintptr_t addr)
{
	uint32_t n = atomic_load_explicit(&t->n, memory_order_relaxed);
	for (int i = (int)n - 1; i >= 0; i--)
		if ((atomic_load_explicit(&t->held[i].lock, memory_order_relaxed) & ~(uintptr_t)LS_WATCH_BITS) == addr)
			return i;
	return -1;
}

static void remove_held(struct ls_watch_thread *t, int i)
{
	uint32_t n = atomic_load_explicit(&t->n, memory_order_relaxed);
	for (uint32_t j = (uint32_t)i; j + 1 < n; j++) {
		atomic_store_explicit(&t->held[j].lock,
		                      atomic_load_explicit(&t->held[j + 1].lock, memory_order_relaxed),
		                      memory_order_relaxed);
		atomic_store_explicit(&t->held[j].site,
		                      atomic_load_explicit(&t->held[j + 1].site, memory_order_relaxed),
		                      memory_order_relaxed);
	}
	atomic_store_explicit(&t->n, n - 1, memory_order_release);
}

bool ls_watch_released(struct ls_watch_thread *t, uintptr_t lock)
{
	if (!t || t == &ls_watch_nobody || t == &ls_watch_gone)
		return false;
	int i = find_held(t, lock & ~(uintptr_t)LS_WATCH_BITS);
	if (i >= 0) {
		remove_held(t, i);
		return true;
	}
	if (t->lost)
		t->lost--; /* one of those taken beyond the record's depth */
	return false;
}

bool ls_watch_holds(const struct ls_watch_thread *t, uintptr_t addr)
{
	return find_held(t, addr) >= 0;
}

/* A lock set up again while this thread held it (a fork child's handler
 * that re-initialises what the parent held) is not held any more. */
void ls_watch_forget_held(uintptr_t addr)
{
	struct ls_watch_thread *t = ls_watch_me;
	if (t == &ls_watch_nobody || t == &ls_watch_gone)
		return;
	int i = find_held(t, addr);
	if (i >= 0)
		remove_held(t, i);
}

/* ---- waits ---- */

void ls_watch_waiting(struct ls_watch_thread *t, uintptr_t lock, uintptr_t site)
{
	if (!t || t == &ls_watch_nobody || t == &ls_watch_gone || !ls_watch_hang_ms())
		return;
	atomic_store_explicit(&t->wait_site, site, memory_order_relaxed);
	atomic_store_explicit(&t->wait_ns, ls_watch_now_ns(), memory_order_relaxed);
	atomic_store_explicit(&t->wait_lock, lock, memory_order_release);
	/* Last: the watchdog takes a wait whose count it read before and
	 * after the other fields to be one wait. */
	atomic_store_explicit(&t->wait_seq, atomic_load_explicit(&t->wait_seq, memory_order_relaxed) + 1,
	                      memory_order_release);
}

void ls_watch_done_waiting(struct ls_watch_thread *t)
{
	if (!t || t == &ls_watch_nobody || t == &ls_watch_gone)
		return;
	atomic_store_explicit(&t->wait_lock, 0, memory_order_release);
}

bool ls_watch_record_live(const struct ls_watch_thread *t)
{
	uint32_t s = atomic_load_explicit(&t->state, memory_order_acquire);
	return s == LS_WATCH_T_LIVE || s == LS_WATCH_T_EXITED || s == LS_WATCH_T_PARENT;
}

int ls_watch_holder(const void *addr, uintptr_t *site)
{
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		if (!ls_watch_record_live(t))
			continue;
		int i = find_held(t, (uintptr_t)addr);
		if (i < 0)
			continue;
		if (site)
			*site = atomic_load_explicit(&t->held[i].site, memory_order_relaxed);
		if (atomic_load_explicit(&t->state, memory_order_relaxed) == LS_WATCH_T_PARENT)
			return -1;
		return atomic_load_explicit(&t->tid, memory_order_relaxed);
	}
	return 0;
}
