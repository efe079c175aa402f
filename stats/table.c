/*
 * table.c - the per-lock records and how an object finds its slot.
 *
 * Records live in one MAP_NORESERVE table of LS_STATS_MAX_SLOTS entries;
 * pages are committed as slots are handed out (a fetch-add, never reused
 * in a process).  Objects that keep their slot id in their own bytes are
 * handled by the callers (record.c); the address-keyed table below
 * serves the rest: open addressing, linear probing, insert-only keys, the
 * slot of a key replaced (CAS) when the object is re-initialised or
 * destroyed.  Nothing here takes a lock or calls malloc.
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include <unistd.h>

#include "data.h"
#include "stacks.h"
#include "state.h"
#include "table.h"
#include "unwind.h"

struct ls_stats_config ls_stats_cfg;
struct ls_stats_lock *ls_stats_recs;
_Atomic uint32_t ls_stats_next_slot = 1;
_Atomic uint64_t ls_stats_untracked;

#define ADDR_BITS 16
#define ADDR_CAP (1u << ADDR_BITS)

struct addr_entry {
	_Atomic uintptr_t key; /* address | type, 0 = empty; never cleared */
	_Atomic uint32_t slot; /* 0 = forgotten: the next use gets a new record */
	uint32_t pad;
};
static struct addr_entry *addr_table;

static _Atomic int setup_state; /* 0 not yet, 1 in progress, 2 ready, 3 failed */

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Given by the shim at start-up (hooks.h). */
static const struct ls_stats_settings *_Atomic settings;

void ls_stats_configure(const struct ls_stats_settings *s)
{
	atomic_store_explicit(&ls_stats_top, s->top, memory_order_relaxed);
	atomic_store_explicit(&ls_stats_sample, s->sample, memory_order_relaxed);
	atomic_store_explicit(&ls_stats_mode, s->mode, memory_order_relaxed);
	atomic_store_explicit(&settings, s, memory_order_release);
}

static const struct ls_stats_settings *given(void)
{
	static const struct ls_stats_settings none = { .backend = "", .rwlock = "", .file = "",
	                                              .folded = "", .signal = "" };
	const struct ls_stats_settings *s = atomic_load_explicit(&settings, memory_order_acquire);
	return s ? s : &none;
}

static void copy_text(const char *v, char *out, size_t len)
{
	size_t n = strlen(v);
	if (n >= len)
		n = len - 1;
	memcpy(out, v, n);
	out[n] = 0;
}

static void read_config(void)
{
	struct ls_stats_config *c = &ls_stats_cfg;
	c->mode = atomic_load_explicit(&ls_stats_mode, memory_order_relaxed);
	c->sample = c->mode == LS_STATS_FULL
	        ? 1 : atomic_load_explicit(&ls_stats_sample, memory_order_relaxed);
	if (c->sample == 0)
		c->sample = 1;
	c->hold_sample = c->sample == 1 ? 1 : c->sample * LS_STATS_HOLD_FACTOR;
	c->top = atomic_load_explicit(&ls_stats_top, memory_order_relaxed);
	copy_text(given()->file, c->file, sizeof c->file);
	copy_text(given()->folded, c->folded, sizeof c->folded);
	char sig[32];
	copy_text(given()->signal, sig, sizeof sig);
	c->signal = ls_stats_parse_signal(sig);
	if (c->signal < 0) {
		ls_say("lockswap: LOCKSWAP_STATS_SIGNAL is not a signal name or number; "
		       "no dump on signal\n");
		c->signal = 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->start_real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	c->start_ns = ls_stats_now();
}

bool ls_stats_setup(void)
{
	int s = atomic_load_explicit(&setup_state, memory_order_acquire);
	if (LIKELY(s == 2))
		return true;
	if (s != 0 || !atomic_compare_exchange_strong(&setup_state, &s, 1))
		return atomic_load_explicit(&setup_state, memory_order_acquire) == 2;
	read_config();
	ls_stats_recs = map((size_t)LS_STATS_MAX_SLOTS * sizeof(struct ls_stats_lock));
	addr_table = map(ADDR_CAP * sizeof(struct addr_entry));
	if (!ls_stats_recs || !addr_table || !ls_stats_stacks_setup()) {
		ls_say("lockswap: cannot map the statistics tables; statistics are off\n");
		atomic_store_explicit(&ls_stats_mode, LS_STATS_OFF, memory_order_relaxed);
		atomic_store_explicit(&setup_state, 3, memory_order_release);
		return false;
	}
	/* release: the config and tables are visible to whoever sees 2. */
	atomic_store_explicit(&setup_state, 2, memory_order_release);
	return true;
}

uint32_t ls_stats_slot_new(void *obj, unsigned type, int32_t kind, bool glibc, uintptr_t site)
{
	/* Locks taken by this library's own code are not the program's. */
	if (UNLIKELY(ls_stats_own_frame(site)))
		return 0;
	uint32_t n = type == LS_REC_RWLOCK ? 2 : 1; /* an rwlock: reads, then writes */
	/* Test first: a full table must not turn every use into a write. */
	if (atomic_load_explicit(&ls_stats_next_slot, memory_order_relaxed) > LS_STATS_MAX_SLOTS - n)
		return 0;
	uint32_t s = atomic_fetch_add_explicit(&ls_stats_next_slot, n, memory_order_relaxed);
	if (s > LS_STATS_MAX_SLOTS - n) {
		atomic_store_explicit(&ls_stats_untracked, 1, memory_order_relaxed);
		return 0;
	}
	/* The write half first: whoever matches the key of s may use s + 1. */
	for (uint32_t i = n; i-- > 0;) {
		struct ls_stats_lock *r = ls_stats_rec(s + i);
		r->site = site;
		r->kind = kind;
		r->glibc = glibc;
		r->rw_write = i == 1;
		/* release: pairs with the acquire loads of key in the lookups, so
		 * the identity above is visible to whoever matches the key. */
		atomic_store_explicit(&r->key, (uintptr_t)obj | type, memory_order_release);
	}
	return s;
}

static inline uint32_t addr_hash(uintptr_t key)
{
	return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> (64 - ADDR_BITS));
}

static struct addr_entry *addr_find(uintptr_t key, bool insert)
{
	uint32_t i = addr_hash(key);
	for (uint32_t n = 0; n < ADDR_CAP; n++, i = (i + 1) & (ADDR_CAP - 1)) {
		struct addr_entry *e = &addr_table[i];
		uintptr_t k = atomic_load_explicit(&e->key, memory_order_acquire);
		if (k == 0) {
			if (!insert)
				return NULL;
			if (atomic_compare_exchange_strong(&e->key, &k, key))
				return e;
		}
		if (k == key)
			return e;
	}
	return NULL;
}

uint32_t ls_stats_addr_slot(void *obj, unsigned type, int32_t kind, bool glibc, uintptr_t site,
                            bool create)
{
	uintptr_t key = (uintptr_t)obj | type;
	struct addr_entry *e = addr_find(key, create);
	if (!e) {
		if (create)
			atomic_store_explicit(&ls_stats_untracked, 1, memory_order_relaxed);
		return 0;
	}
	uint32_t s = atomic_load_explicit(&e->slot, memory_order_acquire);
	if (LIKELY(s && atomic_load_explicit(&ls_stats_rec(s)->key, memory_order_acquire) == key))
		return s;
	if (!create)
		return 0;
	uint32_t fresh = ls_stats_slot_new(obj, type, kind, glibc, site);
	if (!fresh)
		return 0;
	if (atomic_compare_exchange_strong(&e->slot, &s, fresh))
		return fresh;
	return s; /* another thread won; `fresh` stays an empty record */
}

void ls_stats_addr_forget(void *obj)
{
	for (unsigned type = LS_REC_MUTEX; type <= LS_REC_RWLOCK; type++) {
		struct addr_entry *e = addr_find((uintptr_t)obj | type, false);
		if (!e)
			continue;
		uint32_t s = atomic_exchange_explicit(&e->slot, 0, memory_order_acq_rel);
		if (s)
			atomic_store_explicit(&ls_stats_rec(s)->destroyed, 1, memory_order_relaxed);
	}
}

/* Fork child, single-threaded: start from an empty table.  Objects keep
 * their old ids, which no longer match a key (the records are zero). */
void ls_stats_table_reset(void)
{
	uint32_t used = atomic_load_explicit(&ls_stats_next_slot, memory_order_relaxed);
	if (used > LS_STATS_MAX_SLOTS)
		used = LS_STATS_MAX_SLOTS;
	if (ls_stats_recs)
		madvise(ls_stats_recs, (size_t)used * sizeof(struct ls_stats_lock), MADV_DONTNEED);
	if (addr_table)
		madvise(addr_table, ADDR_CAP * sizeof(struct addr_entry), MADV_DONTNEED);
	atomic_store_explicit(&ls_stats_next_slot, 1, memory_order_relaxed);
	atomic_store_explicit(&ls_stats_untracked, 0, memory_order_relaxed);
	ls_stats_cfg.start_ns = ls_stats_now();
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ls_stats_cfg.start_real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *ls_stats_backend_name(void)
{
	const char *b = given()->backend;
	return b[0] ? b : "?";
}

const char *ls_stats_rwlock_backend_name(void)
{
	const char *b = given()->rwlock;
	return b[0] ? b : "?";
}

const char *ls_stats_served_by(uint32_t slot)
{
	const struct ls_stats_lock *r = ls_stats_rec(slot);
	if (r->glibc)
		return "glibc";
	uintptr_t key = atomic_load_explicit(&r->key, memory_order_relaxed);
	return (key & 3) == LS_REC_RWLOCK ? ls_stats_rwlock_backend_name() : ls_stats_backend_name();
}

unsigned ls_stats_bucket(uint64_t ns)
{
	if (ns < 2)
		return 0;
	unsigned b = 63u - (unsigned)__builtin_clzll(ns);
	return b < LS_STATS_BUCKETS ? b : LS_STATS_BUCKETS - 1;
}

void ls_stats_timing_add(struct ls_stats_timing *t, uint64_t ns)
{
	atomic_fetch_add_explicit(&t->samples, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->total_ns, ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->hist[ls_stats_bucket(ns)], 1, memory_order_relaxed);
	uint64_t m = atomic_load_explicit(&t->max_ns, memory_order_relaxed);
	while (ns > m && !atomic_compare_exchange_weak_explicit(&t->max_ns, &m, ns,
	                                                        memory_order_relaxed,
	                                                        memory_order_relaxed))
		;
}

const struct ls_stats_settings *ls_stats_given(void)
{
	return given();
}
