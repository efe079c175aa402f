/*
 * stacks.c - the stack table and the contention-event table.
 *
 * Both are insert-only open-addressing tables in MAP_NORESERVE memory,
 * filled from lock paths without locks or malloc.  An entry's `hash` word
 * is its state: 0 free; 1 being written by the thread that claimed it with
 * a CAS 0 -> 1; otherwise the key's hash, stored with release after the
 * key fields, so a reader that sees it (acquire) sees the key.  A reader
 * meeting a 1 waits a bounded number of polls, then probes on (at worst the
 * same key gets two entries, which the report sums).  A full table drops
 * the sample and counts it.
 *
 * Stack ids are entry index + 1; event keys are (lock slot, waiter stack,
 * holder stack, waiter site, holder site).
 */
#include <string.h>
#include <sys/mman.h>

#include "data.h"
#include "stacks.h"
#include "state.h"
#include "unwind.h"

#define STACK_CAP LS_STATS_STACK_CAP
#define EVENT_CAP LS_STATS_EVENT_CAP
#define PROBES 256
#define BUSY_POLLS 4096

enum { FREE = 0, WRITING = 1 };

struct stack_entry {
	_Atomic uint64_t hash;
	uint32_t n, pad;
	uintptr_t f[LS_STATS_FRAMES];
};

static struct stack_entry *stacks;
static struct ls_stats_event *events;
static _Atomic uint64_t dropped;

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

bool ls_stats_stacks_setup(void)
{
	stacks = map(STACK_CAP * sizeof *stacks);
	events = map(EVENT_CAP * sizeof *events);
	return stacks && events;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static inline uint64_t final_hash(uint64_t h)
{
	h ^= h >> 33;
	return h < 2 ? h + 2 : h; /* never FREE or WRITING */
}

/* Acquire-load the state, waiting a little for a writer to finish. */
static uint64_t settled(_Atomic uint64_t *w)
{
	uint64_t v = atomic_load_explicit(w, memory_order_acquire);
	for (int i = 0; v == WRITING && i < BUSY_POLLS; i++) {
		__builtin_ia32_pause();
		v = atomic_load_explicit(w, memory_order_acquire);
	}
	return v;
}

/* Open addressing, shared by both tables: the settled state of a slot's
 * hash word in *v, and true if the slot was FREE and is now claimed for the
 * caller (WRITING), who then fills the entry and publishes its hash with a
 * release store.  A slot another writer claimed first reads as that
 * writer's settled hash. */
static bool claim(_Atomic uint64_t *hash, uint64_t *v)
{
	*v = settled(hash);
	if (*v != FREE)
		return false;
	if (atomic_compare_exchange_strong_explicit(hash, v, WRITING, memory_order_acquire,
	                                            memory_order_acquire))
		return true;
	*v = settled(hash);
	return false;
}

static uint32_t stack_intern(const uintptr_t *f, uint32_t n)
{
	uint64_t h = n;
	for (uint32_t i = 0; i < n; i++)
		h = mix(h, f[i]);
	h = final_hash(h);
	uint32_t i = (uint32_t)h & (STACK_CAP - 1);
	for (int p = 0; p < PROBES; p++, i = (i + 1) & (STACK_CAP - 1)) {
		struct stack_entry *e = &stacks[i];
		uint64_t v;
		if (claim(&e->hash, &v)) {
			e->n = n;
			memcpy(e->f, f, n * sizeof *f);
			atomic_store_explicit(&e->hash, h, memory_order_release);
			return i + 1;
		}
		if (v == h && e->n == n && memcmp(e->f, f, n * sizeof *f) == 0)
			return i + 1;
	}
	atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
	return 0;
}

uint32_t ls_stats_stack_capture(struct ls_stats_thread *t, uintptr_t site)
{
	if (!stacks)
		return 0;
	ls_stats_enter();
	int n = ls_stats_unwind(t->frames, LS_STATS_FRAMES + 16);
	ls_stats_leave();
	uintptr_t *f = (uintptr_t *)t->frames;
	int start = -1;
	for (int i = 0; i < n; i++)
		if (f[i] == site) {
			start = i;
			break;
		}
	if (start < 0)
		for (start = 0; start < n && ls_stats_own_frame(f[start]); start++)
			;
	if (n - start <= 0) {
		if (!site) /* an unlock that does not know its caller (interpose/counting/counting.c) */
			return 0;
		f[0] = site;
		start = 0;
		n = 1;
	}
	uint32_t len = (uint32_t)(n - start);
	if (len > LS_STATS_FRAMES)
		len = LS_STATS_FRAMES;
	return stack_intern(f + start, len);
}

uint32_t ls_stats_stack_count(void)
{
	return stacks ? STACK_CAP : 0;
}

const uintptr_t *ls_stats_stack_frames(uint32_t id, uint32_t *n)
{
	*n = 0;
	if (!stacks || id == 0 || id > STACK_CAP)
		return NULL;
	struct stack_entry *e = &stacks[id - 1];
	if (atomic_load_explicit(&e->hash, memory_order_acquire) < 2)
		return NULL;
	*n = e->n;
	return e->f;
}

void ls_stats_event_add(uint32_t slot, uint32_t wstack, uint32_t hstack, uintptr_t wsite,
                        uintptr_t hsite, uint64_t wait_ns)
{
	if (!events)
		return;
	uint64_t h = final_hash(mix(mix(mix(mix(mix(0, slot), wstack), hstack), wsite), hsite));
	uint32_t i = (uint32_t)h & (EVENT_CAP - 1);
	for (int p = 0; p < PROBES; p++, i = (i + 1) & (EVENT_CAP - 1)) {
		struct ls_stats_event *e = &events[i];
		uint64_t v;
		if (claim(&e->hash, &v)) {
			e->slot = slot;
			e->wstack = wstack;
			e->hstack = hstack;
			e->wsite = wsite;
			e->hsite = hsite;
			atomic_store_explicit(&e->hash, h, memory_order_release);
		} else if (!(v == h && e->slot == slot && e->wstack == wstack && e->hstack == hstack &&
		             e->wsite == wsite && e->hsite == hsite)) {
			continue;
		}
		atomic_fetch_add_explicit(&e->count, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&e->wait_ns, wait_ns, memory_order_relaxed);
		return;
	}
	atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
}

struct ls_stats_event *ls_stats_events(uint32_t *capacity)
{
	*capacity = events ? EVENT_CAP : 0;
	return events;
}

uint64_t ls_stats_events_dropped(void)
{
	return atomic_load_explicit(&dropped, memory_order_relaxed);
}

void ls_stats_stacks_reset(void)
{
	if (stacks)
		madvise(stacks, STACK_CAP * sizeof *stacks, MADV_DONTNEED);
	if (events)
		madvise(events, EVENT_CAP * sizeof *events, MADV_DONTNEED);
	atomic_store_explicit(&dropped, 0, memory_order_relaxed);
}
