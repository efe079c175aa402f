/*
 * json.c - every mutex, rwlock and condvar as JSON (docs/stats-schema.json,
 * schema_version LS_STATS_SCHEMA_VERSION): counters, sampled timings with
 * their log2 histograms, per-thread shares, contention events with raw
 * stack addresses, the symbols resolved here, and the memory map
 * (proc_self.c reads it) so that other tools can symbolise offline.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "comm.h"
#include "proc_self.h"
#include "arm.h"
#include "delegation.h"
#include "watch_int.h"
#include "report.h"

static void key_u64(struct ls_out *o, const char *k, uint64_t v)
{
	ls_out_printf(o, ",\"%s\":%llu", k, (unsigned long long)v);
}

static void key_num(struct ls_out *o, const char *k, double v)
{
	ls_out_printf(o, ",\"%s\":%.6g", k, v == v ? v : 0.0);
}

/* A time in whole nanoseconds: %.6g would round a quantile above 1 ms
 * (3853257 ns printed as 3853260), so that a quantile equal to max_ns
 * read back as another number. */
static void key_ns(struct ls_out *o, const char *k, double v)
{
	ls_out_printf(o, ",\"%s\":%.0f", k, v == v ? v : 0.0);
}

static void key_hex(struct ls_out *o, const char *k, uintptr_t v)
{
	ls_out_printf(o, ",\"%s\":\"0x%lx\"", k, (unsigned long)v);
}

static void key_bool(struct ls_out *o, const char *k, bool v)
{
	ls_out_printf(o, ",\"%s\":%s", k, v ? "true" : "false");
}

static void timing(struct ls_out *o, const char *name, const struct ls_stats_timing *t,
                   uint64_t events)
{
	uint64_t n = atomic_load_explicit(&t->samples, memory_order_relaxed);
	uint64_t total = atomic_load_explicit(&t->total_ns, memory_order_relaxed);
	double mean = n ? (double)total / (double)n : 0;
	ls_out_printf(o, ",\"%s\":{\"samples\":%llu", name, (unsigned long long)n);
	key_u64(o, "sampled_total_ns", total);
	key_u64(o, "estimated_total_ns",
	        (uint64_t)(n ? mean * (double)(events > n ? events : n) + 0.5 : 0));
	key_u64(o, "max_ns", atomic_load_explicit(&t->max_ns, memory_order_relaxed));
	key_num(o, "mean_ns", mean);
	key_ns(o, "p50_ns", ls_stats_percentile(t, 0.50));
	key_ns(o, "p99_ns", ls_stats_percentile(t, 0.99));
	key_ns(o, "p999_ns", ls_stats_percentile(t, 0.999));
	int last = -1;
	for (int b = 0; b < LS_STATS_BUCKETS; b++)
		if (atomic_load_explicit(&t->hist[b], memory_order_relaxed))
			last = b;
	ls_out_put(o, ",\"hist\":[");
	for (int b = 0; b <= last; b++)
		ls_out_printf(o, b ? ",%llu" : "%llu",
		              (unsigned long long)atomic_load_explicit(&t->hist[b], memory_order_relaxed));
	ls_out_put(o, "]}");
}

/* glibc's __kind encoding (fixed ABI: sysdeps/nptl/pthreadP.h), which the
 * records keep as they found it. */
enum {
	KIND_TYPE_MASK = 3,
	KIND_ROBUST = 16,
	KIND_PRIO_INHERIT = 32,
	KIND_PRIO_PROTECT = 64,
	KIND_PSHARED = 128,
};

static const char *mutex_type(int32_t kind)
{
	static const char *const names[] = { "normal", "recursive", "errorcheck", "adaptive" };
	return names[kind & KIND_TYPE_MASK];
}

static void mutex_flags(struct ls_out *o, int32_t kind)
{
	static const struct { int32_t bit; const char *name; } f[] = {
		{ KIND_ROBUST, "robust" }, { KIND_PRIO_INHERIT, "prio-inherit" },
		{ KIND_PRIO_PROTECT, "prio-protect" }, { KIND_PSHARED, "pshared" },
	};
	ls_out_put(o, ",\"flags\":[");
	int n = 0;
	/* glibc sets the pshared bit on every robust mutex: not news. */
	if (kind & KIND_ROBUST)
		kind &= ~KIND_PSHARED;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (kind & f[i].bit)
			ls_out_printf(o, "%s\"%s\"", n++ ? "," : "", f[i].name);
	ls_out_put(o, "]");
}

/* The per-thread counters of a lock, by their LS_C_* index. */
static const char *const mutex_keys[LS_C_N] = { "acquisitions", "trylock_failures", "contended",
                                                 "owner_changes" };
static const char *const cond_keys[LS_C_N] = { "signals", "broadcasts", "waits", "timeouts" };
/* An rwlock mode has the mutex's counters but owner changes for reads. */
static const bool read_has[LS_C_N] = { true, true, true, false };
static const bool all_have[LS_C_N] = { true, true, true, true };

static void counters(struct ls_out *o, const uint64_t *c, const char *const *keys, const bool *has)
{
	for (int k = 0; k < LS_C_N; k++)
		if (has[k])
			key_u64(o, keys[k], c[k]);
}

static void competing(struct ls_out *o, bool yes)
{
	ls_out_put(o, yes ? ",\"competing\":true" : ",\"competing\":false");
}

/* ,"name":{counters,"competing":B} */
static void counters_object(struct ls_out *o, const char *name, const uint64_t *c,
                            const bool *has, bool comp)
{
	ls_out_printf(o, ",\"%s\":{\"%s\":%llu", name, mutex_keys[LS_C_ACQ],
	              (unsigned long long)c[LS_C_ACQ]);
	for (int k = 0; k < LS_C_N; k++)
		if (has[k] && k != LS_C_ACQ)
			key_u64(o, mutex_keys[k], c[k]);
	competing(o, comp);
	ls_out_put(o, "}");
}

/* One thread's entry: a mutex's or condvar's counters at slot; an
 * rwlock's as {"read": {...}, "write": {...}} from slot and slot + 1.
 * want[h]: the thread's waiting time on slot + h, which says whether it
 * competed (a mutex and each rwlock mode: collect.c). */
static void thread_entry(struct ls_out *o, const struct ls_snap *s, uint32_t slot, uint32_t serial,
                         uint64_t (*c)[LS_C_N], const uint64_t *want, unsigned type, int n)
{
	ls_out_printf(o, "%s{\"thread\":%u", n ? "," : "", serial);
	if (type == LS_REC_COND) {
		counters(o, c[0], cond_keys, all_have);
	} else if (type == LS_REC_MUTEX) {
		counters(o, c[0], mutex_keys, all_have);
		competing(o, ls_snap_competing(&s->lock[slot], c[0], want[0]));
	} else {
		counters_object(o, "read", c[0], read_has,
		                ls_snap_competing(&s->lock[slot], c[0], want[0]));
		counters_object(o, "write", c[1], all_have,
		                ls_snap_competing(&s->lock[slot + 1], c[1], want[1]));
	}
	ls_out_put(o, "}");
}

/* A folded condvar's threads: each thread's counters summed over the
 * members (fold.c). */
static void per_thread_folded(struct ls_out *o, const struct ls_snap *s, uint32_t lead,
                              const struct ls_fold *f)
{
	ls_out_put(o, ",\"per_thread\":[");
	int n = 0;
	uint64_t c[2][LS_C_N], want[2] = { 0, 0 };
	for (struct ls_stats_thread *t = ls_stats_threads(); t; t = t->next) {
		if (atomic_load_explicit(&t->state, memory_order_acquire) != LS_ST_LIVE)
			continue;
		uint64_t any = 0;
		memset(c, 0, sizeof c);
		for (uint32_t m = lead; m; m = f->next[m]) {
			for (int k = 0; k < LS_C_N; k++) {
				uint64_t v = ls_snap_thread_count(t, m, k);
				any |= v;
				c[0][k] += v;
			}
		}
		if (any)
			thread_entry(o, s, lead, t->serial, c, want, LS_REC_COND, n++);
	}
	for (struct ls_stats_exited *x = ls_stats_exited_list(); x; x = x->next) {
		bool any = false;
		memset(c, 0, sizeof c);
		for (uint32_t m = lead; m; m = f->next[m]) {
			const struct ls_stats_exited_entry *e = ls_snap_exited_entry(x, m);
			if (!e)
				continue;
			any = true;
			for (int k = 0; k < LS_C_N; k++)
				c[0][k] += e->c[k];
		}
		if (any)
			thread_entry(o, s, lead, x->serial, c, want, LS_REC_COND, n++);
	}
	ls_out_put(o, "]");
}

/* Threads that used the lock: per-thread counters. */
static void per_thread(struct ls_out *o, const struct ls_snap *s, uint32_t slot, unsigned type)
{
	uint32_t halves = type == LS_REC_RWLOCK ? 2 : 1;
	ls_out_put(o, ",\"per_thread\":[");
	int n = 0;
	uint64_t c[2][LS_C_N], want[2];
	for (struct ls_stats_thread *t = ls_stats_threads(); t; t = t->next) {
		if (atomic_load_explicit(&t->state, memory_order_acquire) != LS_ST_LIVE)
			continue;
		uint64_t any = 0;
		memset(c, 0, sizeof c);
		memset(want, 0, sizeof want);
		for (uint32_t h = 0; h < halves; h++) {
			for (int k = 0; k < LS_C_N; k++)
				any |= c[h][k] = ls_snap_thread_count(t, slot + h, k);
			want[h] = ls_snap_thread_want(t, slot + h);
		}
		if (any)
			thread_entry(o, s, slot, t->serial, c, want, type, n++);
	}
	for (struct ls_stats_exited *x = ls_stats_exited_list(); x; x = x->next) {
		bool any = false;
		memset(c, 0, sizeof c);
		memset(want, 0, sizeof want);
		for (uint32_t h = 0; h < halves; h++) {
			const struct ls_stats_exited_entry *e = ls_snap_exited_entry(x, slot + h);
			if (e) {
				any = true;
				memcpy(c[h], e->c, sizeof c[h]);
				want[h] = e->want;
			}
		}
		if (any)
			thread_entry(o, s, slot, x->serial, c, want, type, n++);
	}
	ls_out_put(o, "]");
}

/* Contention events grouped by slot (counting sort of the event table). */
struct event_index {
	uint32_t *start; /* [nslots + 1] */
	uint32_t *idx;   /* event table indices, by slot */
	void *map;
	size_t bytes;
};

static bool index_events(const struct ls_snap *s, struct event_index *ix)
{
	uint32_t cap;
	struct ls_stats_event *ev = ls_stats_events(&cap);
	ix->bytes = ((size_t)s->nslots + 2 + cap) * sizeof(uint32_t);
	ix->map = mmap(NULL, ix->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ix->map == MAP_FAILED)
		return false;
	ix->start = ix->map;
	ix->idx = ix->start + s->nslots + 2;
	for (uint32_t i = 0; i < cap; i++)
		if (atomic_load_explicit(&ev[i].hash, memory_order_acquire) >= 2 && ev[i].slot < s->nslots)
			ix->start[ev[i].slot + 1]++;
	for (uint32_t k = 1; k <= s->nslots; k++)
		ix->start[k] += ix->start[k - 1];
	uint32_t *fill = ix->start + 0; /* reuse as cursor: filled back below */
	for (uint32_t i = 0; i < cap; i++)
		if (atomic_load_explicit(&ev[i].hash, memory_order_acquire) >= 2 && ev[i].slot < s->nslots)
			ix->idx[fill[ev[i].slot]++] = i;
	/* fill[k] now equals the old start[k+1]: shift back. */
	for (uint32_t k = s->nslots; k > 0; k--)
		ix->start[k] = ix->start[k - 1];
	ix->start[0] = 0;
	return true;
}

/* Sampled wait -> estimated wait of a slot: waits / timed waits. */
static double wait_scale(const struct ls_snap *s, uint32_t slot)
{
	uint64_t waits = ls_snap_waits(s, slot);
	uint64_t samples = atomic_load_explicit(&ls_stats_rec(slot)->wait.samples, memory_order_relaxed);
	return samples ? (double)(waits > samples ? waits : samples) / (double)samples : 1;
}

/* The events of one record; an rwlock's say which mode waited. */
static void events_of(struct ls_out *o, const struct event_index *ix, uint32_t slot,
                      double scale, const char *mode, uint8_t *used, int *n)
{
	uint32_t cap;
	struct ls_stats_event *ev = ls_stats_events(&cap);
	uint32_t from = ix ? ix->start[slot] : 0, to = ix ? ix->start[slot + 1] : 0;
	for (uint32_t j = from; j < to; j++) {
		const struct ls_stats_event *e = &ev[ix->idx[j]];
		uint64_t w = atomic_load_explicit(&e->wait_ns, memory_order_relaxed);
		ls_out_printf(o, "%s{\"count\":%llu", (*n)++ ? "," : "",
		              (unsigned long long)atomic_load_explicit(&e->count, memory_order_relaxed));
		if (mode)
			ls_out_printf(o, ",\"mode\":\"%s\"", mode);
		key_u64(o, "wait_ns", w);
		key_u64(o, "estimated_wait_ns", (uint64_t)((double)w * scale + 0.5));
		ls_out_put(o, ",\"waiter_stack\":");
		ls_out_printf(o, e->wstack ? "%u" : "null", e->wstack);
		ls_out_put(o, ",\"holder_stack\":");
		ls_out_printf(o, e->hstack ? "%u" : "null", e->hstack);
		ls_out_put(o, ",\"waiter_site\":");
		ls_json_frame(o, e->wsite);
		ls_out_put(o, ",\"holder_site\":");
		ls_json_frame(o, e->hsite);
		ls_out_put(o, "}");
		if (e->wstack)
			used[(e->wstack - 1) / 8] |= (uint8_t)(1u << ((e->wstack - 1) % 8));
		if (e->hstack)
			used[(e->hstack - 1) / 8] |= (uint8_t)(1u << ((e->hstack - 1) % 8));
	}
}

/* Sampled contended waits: an rwlock's are its reads' then its writes'. */
static void contention(struct ls_out *o, const struct ls_snap *s, const struct event_index *ix,
                       uint32_t slot, uint8_t *used)
{
	int n = 0;
	ls_out_put(o, ",\"contention\":[");
	if (s->lock[slot].type == LS_REC_RWLOCK) {
		events_of(o, ix, slot, wait_scale(s, slot), "read", used, &n);
		events_of(o, ix, slot + 1, wait_scale(s, slot + 1), "write", used, &n);
	} else {
		events_of(o, ix, slot, wait_scale(s, slot), NULL, used, &n);
	}
	ls_out_put(o, "]");
}

/* The numbers of a mutex, or of one mode of an rwlock (`nested`: they
 * open an object, so the first key has no comma before it). */
static void acquisitions(struct ls_out *o, const struct ls_snap *s, uint32_t slot, bool nested,
                         bool owner_changes)
{
	const struct ls_snap_lock *l = &s->lock[slot];
	const struct ls_stats_lock *r = ls_stats_rec(slot);
	ls_out_printf(o, "%s\"acquisitions\":%llu", nested ? "" : ",",
	              (unsigned long long)l->c[LS_C_ACQ]);
	key_u64(o, "contended", l->c[LS_C_CONTENDED]);
	key_u64(o, "trylock_failures", l->c[LS_C_TRYFAIL]);
	key_u64(o, "timeouts", atomic_load_explicit(&r->timeouts, memory_order_relaxed));
	if (owner_changes)
		key_u64(o, "owner_changes", l->c[LS_C_HANDOFF]);
	timing(o, "wait", &r->wait, ls_snap_waits(s, slot));
	timing(o, "hold", &r->hold, l->c[LS_C_ACQ]);
	const struct ls_snap_share *f = ls_snap_fairness(l);
	ls_out_printf(o, ",\"fairness\":{\"threads\":%u", f->n);
	ls_out_printf(o, ",\"over\":\"%s\"", l->competing.n ? "competing" : "all");
	key_num(o, "min_share", ls_snap_share(f, f->min));
	key_num(o, "max_share", ls_snap_share(f, f->max));
	key_num(o, "jain", ls_stats_jain(l));
	ls_out_put(o, "}");
}

/* glibc's rwlock __flags, which the records keep with the pshared bit. */
static const char *rwlock_kind(int32_t kind)
{
	switch (kind & ~LS_STATS_RW_PSHARED) {
	case 0: return "prefer-reader";
	case 1: return "prefer-writer";
	case 2: return "prefer-writer-nonrecursive";
	default: return "unknown";
	}
}

static void one_lock(const struct ls_snap *s, struct ls_out *o, uint32_t slot,
                     const struct event_index *ix, uint8_t *used, bool first)
{
	static const char *const type_names[] = { [LS_REC_MUTEX] = "mutex", [LS_REC_COND] = "condvar",
		                                  [LS_REC_RWLOCK] = "rwlock" };
	const struct ls_snap_lock *l = &s->lock[slot];
	const struct ls_stats_lock *r = ls_stats_rec(slot);
	uintptr_t key = atomic_load_explicit(&r->key, memory_order_relaxed);
	ls_out_printf(o, "%s\n{\"id\":%u,\"type\":\"%s\"", first ? "" : ",", slot,
	              type_names[l->type]);
	key_hex(o, "address", key & ~(uintptr_t)3);
	struct ls_sym var;
	ls_out_put(o, ",\"name\":");
	if (ls_symbolize_data(key & ~(uintptr_t)3, &var))
		ls_out_json_str(o, var.name);
	else
		ls_out_put(o, "null");
	ls_out_put(o, ",\"served_by\":");
	ls_out_json_str(o, ls_stats_served_by(slot));
	key_bool(o, "destroyed", atomic_load_explicit(&r->destroyed, memory_order_relaxed));
	ls_out_put(o, ",\"site\":");
	ls_json_frame(o, r->site);
	if (l->type == LS_REC_MUTEX) {
		ls_out_printf(o, ",\"kind\":\"%s\"", mutex_type(r->kind));
		mutex_flags(o, r->kind);
		acquisitions(o, s, slot, false, true);
	} else if (l->type == LS_REC_RWLOCK) {
		ls_out_printf(o, ",\"kind\":\"%s\"", rwlock_kind(r->kind));
		ls_out_put(o, r->kind & LS_STATS_RW_PSHARED ? ",\"flags\":[\"pshared\"]" : ",\"flags\":[]");
		/* Readers share the lock: no owner changes for them. */
		ls_out_put(o, ",\"read\":{");
		acquisitions(o, s, slot, true, false);
		ls_out_put(o, "},\"write\":{");
		acquisitions(o, s, slot + 1, true, true);
		ls_out_put(o, "}");
	} else {
		key_u64(o, "waits", l->c[LS_C_WAIT]);
		key_u64(o, "timeouts", l->c[LS_C_TIMEOUT]);
		key_u64(o, "signals", l->c[LS_C_SIGNAL]);
		key_u64(o, "broadcasts", l->c[LS_C_BROADCAST]);
		timing(o, "wait", &r->wait, ls_snap_waits(s, slot));
		uint32_t m = atomic_load_explicit(&r->cond_mutex, memory_order_relaxed);
		ls_out_put(o, ",\"mutex\":");
		ls_out_printf(o, m ? "%u" : "null", m);
		key_bool(o, "mixed_mutexes", atomic_load_explicit(&r->cond_mixed, memory_order_relaxed));
	}
	per_thread(o, s, slot, l->type);
	contention(o, s, ix, slot, used);
	ls_out_put(o, "}");
}

/* The members' wait timings as one: samples and totals added, the
 * largest max, histograms merged bucket by bucket. */
static void merge_timing(struct ls_stats_timing *sum, const struct ls_stats_timing *t)
{
	atomic_fetch_add_explicit(&sum->samples, atomic_load_explicit(&t->samples, memory_order_relaxed),
	                          memory_order_relaxed);
	atomic_fetch_add_explicit(&sum->total_ns, atomic_load_explicit(&t->total_ns, memory_order_relaxed),
	                          memory_order_relaxed);
	uint64_t mx = atomic_load_explicit(&t->max_ns, memory_order_relaxed);
	if (mx > atomic_load_explicit(&sum->max_ns, memory_order_relaxed))
		atomic_store_explicit(&sum->max_ns, mx, memory_order_relaxed);
	for (int b = 0; b < LS_STATS_BUCKETS; b++)
		atomic_fetch_add_explicit(&sum->hist[b],
		                          atomic_load_explicit(&t->hist[b], memory_order_relaxed),
		                          memory_order_relaxed);
}

/* Destroyed condvars first used at one site (fold.c), as one record with
 * the leader's identity, "objects", and the members' numbers together. */
static void folded_condvar(const struct ls_snap *s, struct ls_out *o, uint32_t lead,
                           const struct ls_fold *f, const struct event_index *ix, uint8_t *used,
                           bool first)
{
	const struct ls_stats_lock *r = ls_stats_rec(lead);
	uint64_t c[LS_C_N] = { 0 };
	struct ls_stats_timing wait;
	memset(&wait, 0, sizeof wait);
	uint32_t objects = 0, mutex = atomic_load_explicit(&r->cond_mutex, memory_order_relaxed);
	bool mixed = false;
	for (uint32_t m = lead; m; m = f->next[m]) {
		const struct ls_stats_lock *rm = ls_stats_rec(m);
		objects++;
		for (int k = 0; k < LS_C_N; k++)
			c[k] += s->lock[m].c[k];
		merge_timing(&wait, &rm->wait);
		mixed |= atomic_load_explicit(&rm->cond_mixed, memory_order_relaxed) ||
		         atomic_load_explicit(&rm->cond_mutex, memory_order_relaxed) != mutex;
	}
	uintptr_t key = atomic_load_explicit(&r->key, memory_order_relaxed);
	ls_out_printf(o, "%s\n{\"id\":%u,\"type\":\"condvar\"", first ? "" : ",", lead);
	key_hex(o, "address", key & ~(uintptr_t)3);
	struct ls_sym var;
	ls_out_put(o, ",\"name\":");
	if (ls_symbolize_data(key & ~(uintptr_t)3, &var))
		ls_out_json_str(o, var.name); /* a static re-initialised at one site */
	else
		ls_out_put(o, "null");
	ls_out_put(o, ",\"served_by\":");
	ls_out_json_str(o, ls_stats_served_by(lead));
	key_bool(o, "destroyed", true);
	key_u64(o, "objects", objects);
	ls_out_put(o, ",\"site\":");
	ls_json_frame(o, r->site);
	key_u64(o, "waits", c[LS_C_WAIT]);
	key_u64(o, "timeouts", c[LS_C_TIMEOUT]);
	key_u64(o, "signals", c[LS_C_SIGNAL]);
	key_u64(o, "broadcasts", c[LS_C_BROADCAST]);
	timing(o, "wait", &wait, c[LS_C_WAIT]);
	ls_out_put(o, ",\"mutex\":");
	ls_out_printf(o, mutex ? "%u" : "null", mutex);
	key_bool(o, "mixed_mutexes", mixed);
	per_thread_folded(o, s, lead, f);
	int n = 0;
	ls_out_put(o, ",\"contention\":[");
	for (uint32_t m = lead; m; m = f->next[m])
		events_of(o, ix, m, wait_scale(s, m), NULL, used, &n);
	ls_out_put(o, "]}");
}

static void threads(struct ls_out *o)
{
	ls_out_put(o, ",\"threads\":[");
	int n = 0;
	char name[32];
	for (struct ls_stats_thread *t = ls_stats_threads(); t; t = t->next) {
		if (atomic_load_explicit(&t->state, memory_order_acquire) != LS_ST_LIVE)
			continue;
		ls_stats_thread_name(t->tid, name, sizeof name);
		ls_out_printf(o, "%s\n{\"id\":%u,\"tid\":%d,\"name\":", n++ ? "," : "", t->serial, t->tid);
		ls_out_json_str(o, name);
		ls_out_put(o, ",\"alive\":true}");
	}
	for (struct ls_stats_exited *x = ls_stats_exited_list(); x; x = x->next) {
		ls_out_printf(o, "%s\n{\"id\":%u,\"tid\":%d,\"name\":", n++ ? "," : "", x->serial, x->tid);
		ls_out_json_str(o, x->name);
		ls_out_put(o, ",\"alive\":false}");
	}
	ls_out_put(o, "]");
}

static void stacks(struct ls_out *o, const uint8_t *used)
{
	ls_out_put(o, ",\"stacks\":[");
	int n = 0;
	uint32_t cap = ls_stats_stack_count();
	for (uint32_t id = 1; id <= cap; id++) {
		if (!(used[(id - 1) / 8] & (1u << ((id - 1) % 8))))
			continue;
		uint32_t nf;
		const uintptr_t *f = ls_stats_stack_frames(id, &nf);
		if (!f)
			continue;
		ls_out_printf(o, "%s\n{\"id\":%u,\"frames\":[", n++ ? "," : "", id);
		for (uint32_t i = 0; i < nf; i++) {
			if (i)
				ls_out_put(o, ",");
			ls_json_frame(o, f[i]);
		}
		ls_out_put(o, "]}");
	}
	ls_out_put(o, "]");
}

struct map_lines {
	struct ls_out *o;
	int n;
};

static void map_line(void *arg, const char *line)
{
	struct map_lines *m = arg;
	ls_out_put(m->o, m->n++ ? ",\n" : "\n");
	ls_out_json_str(m->o, line);
}

static void maps(struct ls_out *o)
{
	struct map_lines m = { o, 0 };
	ls_out_put(o, ",\"maps\":[");
	ls_stats_each_map_line(map_line, &m);
	ls_out_put(o, "]");
}

void ls_stats_write_json(const struct ls_snap *s, struct ls_out *o, const char *reason,
                         uint32_t seq)
{
	const struct ls_stats_config *c = &ls_stats_cfg;
	char exe[512];
	ls_stats_program_path(exe, sizeof exe);
	ls_out_printf(o, "{\"schema\":\"lockswap-stats\",\"schema_version\":%d", LS_STATS_SCHEMA_VERSION);
	ls_out_put(o, ",\"reason\":");
	ls_out_json_str(o, reason);
	key_u64(o, "dump", seq);
	key_u64(o, "pid", (uint64_t)getpid());
	ls_out_put(o, ",\"program\":");
	ls_out_json_str(o, exe);
	ls_out_put(o, ",\"backend\":");
	ls_out_json_str(o, ls_stats_backend_name());
	ls_out_put(o, ",\"rwlock_backend\":");
	ls_out_json_str(o, ls_stats_rwlock_backend_name());
	ls_stats_write_arm_json(o);
	ls_stats_write_delegation_json(s, o);
	ls_watch_write_json(o);
	ls_out_printf(o, ",\"mode\":\"%s\"", c->mode == LS_STATS_FULL ? "full" : "summary");
	key_u64(o, "sample", c->sample);
	ls_out_printf(o, ",\"unwinder\":\"%s\"", ls_stats_unwind_available() ? "libgcc" : "none");
	ls_out_put(o, ",\"clock\":\"CLOCK_MONOTONIC\"");
	key_u64(o, "start_unix_ns", c->start_real_ns);
	key_u64(o, "elapsed_ns", s->now_ns - c->start_ns);
	ls_out_printf(o, ",\"histogram\":{\"unit\":\"ns\",\"scale\":\"log2\",\"buckets\":%d,"
	                 "\"bucket\":\"hist[0] counts [0,2) ns; hist[b] counts [2^b, 2^(b+1)) ns\"}",
	              LS_STATS_BUCKETS);
	key_bool(o, "untracked_objects", atomic_load_explicit(&ls_stats_untracked, memory_order_relaxed));
	key_u64(o, "events_dropped", ls_stats_events_dropped());
	key_u64(o, "threads_folded", ls_stats_exited_folded());
	threads(o);
	uint8_t used[LS_STATS_STACK_CAP / 8 + 1];
	memset(used, 0, sizeof used);
	struct event_index ix = { 0 };
	bool indexed = index_events(s, &ix);
	ls_out_put(o, ",\"locks\":[");
	bool first = true;
	for (uint32_t i = 0; i < s->nmutex; i++, first = false)
		one_lock(s, o, s->mutexes[i], indexed ? &ix : NULL, used, first);
	for (uint32_t i = 0; i < s->nrwlock; i++, first = false)
		one_lock(s, o, s->rwlocks[i], indexed ? &ix : NULL, used, first);
	struct ls_fold fold;
	bool folded = ls_fold_condvars(s, &fold);
	for (uint32_t i = 0; i < s->ncond; i++) {
		uint32_t slot = s->conds[i];
		uint8_t role = folded ? fold.role[slot] : LS_FOLD_ALONE;
		if (role == LS_FOLD_MEMBER)
			continue; /* written by its leader, ranked before it */
		if (role == LS_FOLD_LEADS)
			folded_condvar(s, o, slot, &fold, indexed ? &ix : NULL, used, first);
		else
			one_lock(s, o, slot, indexed ? &ix : NULL, used, first);
		first = false;
	}
	ls_fold_free(&fold);
	ls_out_put(o, "]");
	if (indexed)
		munmap(ix.map, ix.bytes);
	stacks(o, used);
	maps(o);
	ls_stats_write_objects(o);
	ls_out_put(o, "}\n");
}
