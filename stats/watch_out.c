/*
 * watch_out.c - the lock-order check and the hang watchdog in the
 * statistics' outputs (watch_int.h): the JSON's "lock_order" section
 * (docs/stats-schema.json), the Prometheus counters, the summary's lines
 * with the threads that hold or wait for a lock now (a
 * LOCKSWAP_STATS_SIGNAL dump's too).  Inside a dump: symbols begun, the
 * dump lock held.
 */
#include <stdio.h>
#include <string.h>

#include "prom_text.h"
#include "report.h"
#include "watch_int.h"

/* ---- the statistics' outputs (inside their dump: symbols are begun) ---- */

static void json_site(struct ls_out *o, const char *key, uintptr_t pc)
{
	ls_out_printf(o, ",\"%s\":", key);
	if (pc)
		ls_json_frame(o, pc);
	else
		ls_out_put(o, "null");
}

static void json_lock(struct ls_out *o, const char *key, uintptr_t lock, uintptr_t first_site)
{
	uintptr_t addr = lock & ~(uintptr_t)LS_WATCH_BITS;
	struct ls_sym var;
	ls_out_printf(o, ",\"%s\":{\"addr\":\"0x%lx\",\"type\":\"%s\",\"name\":", key,
	              (unsigned long)addr, (lock & LS_WATCH_RWLOCK) ? "rwlock" : "mutex");
	if (ls_symbolize_data(addr, &var))
		ls_out_json_str(o, var.name);
	else
		ls_out_put(o, "null");
	ls_out_printf(o, ",\"read\":%s", (lock & LS_WATCH_READ) ? "true" : "false");
	json_site(o, "site", first_site);
	ls_out_put(o, "}");
}

static void json_thread(struct ls_out *o, int32_t tid, const char *name)
{
	ls_out_printf(o, ",\"thread\":{\"tid\":%d,\"name\":", (int)tid);
	ls_out_json_str(o, name);
	ls_out_put(o, "}");
}

static void json_cycle(struct ls_out *o, const struct ls_order_cycle *c)
{
	ls_out_printf(o, "{\"length\":%u,\"gated\":%s", c->len, c->gated ? "true" : "false");
	if (c->gated)
		json_lock(o, "gate", c->gate.addr, c->gate.first_site);
	ls_out_put(o, ",\"edges\":[");
	uint32_t kept = c->len < LS_ORDER_CYCLE_EDGES ? c->len : LS_ORDER_CYCLE_EDGES;
	for (uint32_t i = 0; i < kept; i++) {
		const struct ls_order_step *s = &c->step[i];
		ls_out_printf(o, "%s\n{\"timed\":%s", i ? "," : "", s->timed ? "true" : "false");
		json_lock(o, "from", s->from.addr, s->from.first_site);
		json_lock(o, "to", s->to.addr, s->to.first_site);
		json_site(o, "held_site", s->held_site);
		json_site(o, "request_site", s->request_site);
		ls_out_put(o, ",\"request_stack\":[");
		for (uint32_t k = 0; k < s->nframes; k++) {
			if (k)
				ls_out_put(o, ",");
			ls_json_frame(o, s->frames[k]);
		}
		ls_out_put(o, "]");
		json_thread(o, s->tid, s->thread);
		ls_out_put(o, "}");
	}
	ls_out_put(o, "]}");
}

static void json_hang(struct ls_out *o, const struct ls_hang *h)
{
	ls_out_printf(o, "{\"kind\":\"%s\",\"threads\":[", h->deadlock ? "deadlock" : "long_wait");
	for (uint32_t i = 0; i < h->n; i++) {
		const struct ls_hang_thread *x = &h->t[i];
		ls_out_printf(o, "%s\n{\"tid\":%d,\"name\":", i ? "," : "", (int)x->tid);
		ls_out_json_str(o, x->name);
		json_lock(o, "waits_for", x->lock, 0);
		json_site(o, "site", x->site);
		ls_out_printf(o, ",\"waited_ns\":%llu,\"holder_tid\":", (unsigned long long)x->waited_ns);
		if (x->holder_tid)
			ls_out_printf(o, "%d", (int)x->holder_tid);
		else
			ls_out_put(o, "null");
		json_site(o, "holder_site", x->holder_site);
		ls_out_put(o, "}");
	}
	ls_out_put(o, "]}");
}

/* What a thread record shows now, for both outputs: the record of a
 * thread (live, exited, or the parent's before a fork) that holds or waits
 * for a lock; false for any other.  `held`: its entries to print (at most
 * LS_WATCH_HELD); `wait_lock`: 0 when it waits for none; `tid`: -1 for the
 * parent process's thread. */
struct now_view {
	uint32_t state, held;
	uintptr_t wait_lock;
	int tid;
};

static bool now_view(struct ls_watch_thread *t, struct now_view *v)
{
	v->state = atomic_load_explicit(&t->state, memory_order_acquire);
	if (v->state != LS_WATCH_T_LIVE && v->state != LS_WATCH_T_EXITED &&
	    v->state != LS_WATCH_T_PARENT)
		return false;
	uint32_t k = atomic_load_explicit(&t->n, memory_order_acquire);
	v->held = k < LS_WATCH_HELD ? k : LS_WATCH_HELD;
	v->wait_lock = atomic_load_explicit(&t->wait_lock, memory_order_acquire);
	v->tid = v->state == LS_WATCH_T_PARENT ? -1 : (int)atomic_load(&t->tid);
	return v->held || v->wait_lock;
}

/* The threads that hold or wait for a lock now. */
static void json_now(struct ls_out *o)
{
	uint64_t now = ls_watch_now_ns();
	ls_out_put(o, ",\"now\":[");
	int n = 0;
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		struct now_view v;
		if (!now_view(t, &v))
			continue;
		uint32_t state = v.state, k = v.held;
		uintptr_t wl = v.wait_lock;
		ls_out_printf(o, "%s\n{\"tid\":%d,\"state\":\"%s\",\"holds\":[", n++ ? "," : "",
		              v.tid, state == LS_WATCH_T_LIVE ? "live" : state == LS_WATCH_T_EXITED ? "exited" : "parent");
		for (uint32_t i = 0; i < k; i++) {
			ls_out_printf(o, "%s{\"lock\":\"0x%lx\",\"type\":\"%s\",\"read\":%s", i ? "," : "",
			              (unsigned long)(atomic_load(&t->held[i].lock) & ~(uintptr_t)LS_WATCH_BITS),
			              (atomic_load(&t->held[i].lock) & LS_WATCH_RWLOCK) ? "rwlock" : "mutex",
			              (atomic_load(&t->held[i].lock) & LS_WATCH_READ) ? "true" : "false");
			json_site(o, "site", atomic_load(&t->held[i].site));
			ls_out_put(o, "}");
		}
		ls_out_put(o, "],\"waits_for\":");
		if (wl) {
			uint64_t since = atomic_load(&t->wait_ns);
			ls_out_printf(o, "{\"lock\":\"0x%lx\",\"type\":\"%s\",\"read\":%s,\"waited_ns\":%llu",
			              (unsigned long)(wl & ~(uintptr_t)LS_WATCH_BITS),
			              (wl & LS_WATCH_RWLOCK) ? "rwlock" : "mutex",
			              (wl & LS_WATCH_READ) ? "true" : "false",
			              (unsigned long long)(now > since ? now - since : 0));
			json_site(o, "site", atomic_load(&t->wait_site));
			ls_out_put(o, "}");
		} else {
			ls_out_put(o, "null");
		}
		ls_out_put(o, "}");
	}
	ls_out_put(o, "]");
}

/* LOCKSWAP_DEADLOCK's word for the configured mode. */
static const char *order_mode(void)
{
	static const char *const modes[] = { "off", "report", "abort" };
	return modes[ls_watch_cfg.order < 3 ? ls_watch_cfg.order : 0];
}

void ls_watch_write_json(struct ls_out *o)
{
	if (!ls_watch_active())
		return;
	struct ls_order_counts c;
	struct ls_watch_counts w;
	ls_order_counts(&c);
	ls_watchdog_counts(&w);
	ls_out_printf(o, ",\"lock_order\":{\"mode\":\"%s\",\"hang_ms\":%u,\"locks\":%llu,"
	              "\"edges\":%llu,\"locks_max\":%llu,\"edges_max\":%llu,\"full\":%s,"
	              "\"cycles_found\":%llu,\"gated_cycles\":%llu,\"cycles_dropped\":%llu,"
	              "\"searches_cut\":%llu,\"deadlocks\":%llu,\"long_waits\":%llu",
	              order_mode(), ls_watch_cfg.hang_ms,
	              (unsigned long long)c.locks, (unsigned long long)c.edges,
	              (unsigned long long)c.locks_max, (unsigned long long)c.edges_max,
	              c.full ? "true" : "false", (unsigned long long)c.cycles,
	              (unsigned long long)c.gated, (unsigned long long)c.cycles_dropped,
	              (unsigned long long)c.searches_cut, (unsigned long long)w.deadlocks,
	              (unsigned long long)w.long_waits);
	ls_out_put(o, ",\"cycles\":[");
	uint32_t n = ls_order_cycle_count();
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ls_out_put(o, ",");
		json_cycle(o, ls_order_cycle_at(i));
	}
	ls_out_put(o, "],\"hangs\":[");
	n = ls_watchdog_hang_count();
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			ls_out_put(o, ",");
		json_hang(o, ls_watchdog_hang_at(i));
	}
	ls_out_put(o, "]");
	json_now(o);
	ls_out_put(o, "}");
}

void ls_watch_write_prom(struct ls_out *o, const char *common)
{
	if (!ls_watch_active())
		return;
	struct ls_order_counts c;
	struct ls_watch_counts w;
	ls_order_counts(&c);
	ls_watchdog_counts(&w);
	ls_prom_help(o, "lockswap_lock_order_cycles_total", "counter",
	             "Potential deadlocks: cycles in the lock order, by whether a lock held along all their edges (a gate) rules them out.");
	ls_out_printf(o, "lockswap_lock_order_cycles_total{%s,gated=\"false\"} %llu\n", common,
	              (unsigned long long)c.cycles);
	ls_out_printf(o, "lockswap_lock_order_cycles_total{%s,gated=\"true\"} %llu\n", common,
	              (unsigned long long)c.gated);
	ls_prom_help(o, "lockswap_hangs_total", "counter",
	             "Waits longer than LOCKSWAP_HANG_MS, by kind: a deadlock (a cycle of waiting threads) or a long wait.");
	ls_out_printf(o, "lockswap_hangs_total{%s,kind=\"deadlock\"} %llu\n", common,
	              (unsigned long long)w.deadlocks);
	ls_out_printf(o, "lockswap_hangs_total{%s,kind=\"long_wait\"} %llu\n", common,
	              (unsigned long long)w.long_waits);
}

/* The summary's lines: what was found, and who holds and waits now. */
void ls_watch_write_text(struct ls_out *o)
{
	if (!ls_watch_active())
		return;
	struct ls_order_counts c;
	struct ls_watch_counts w;
	ls_order_counts(&c);
	ls_watchdog_counts(&w);
	ls_out_printf(o, "  lock order (LOCKSWAP_DEADLOCK=%s): %llu potential deadlocks, %llu cycles "
	              "ruled out by a gate lock, %llu locks and %llu orders seen; hangs "
	              "(LOCKSWAP_HANG_MS=%u): %llu deadlocks, %llu long waits\n",
	              order_mode(),
	              (unsigned long long)c.cycles, (unsigned long long)c.gated,
	              (unsigned long long)c.locks, (unsigned long long)c.edges, ls_watch_cfg.hang_ms,
	              (unsigned long long)w.deadlocks, (unsigned long long)w.long_waits);
	uint64_t now = ls_watch_now_ns();
	for (struct ls_watch_thread *t = ls_watch_records(); t; t = t->all_next) {
		struct now_view v;
		if (!now_view(t, &v))
			continue;
		uint32_t state = v.state, k = v.held;
		uintptr_t wl = v.wait_lock;
		char who[96], lock[512], site[256];
		ls_watch_thread_text(v.tid, NULL, who, sizeof who);
		ls_out_printf(o, "  now: %s%s", who, state == LS_WATCH_T_EXITED ? " (exited)" : "");
		for (uint32_t i = 0; i < k; i++) {
			uintptr_t l = atomic_load(&t->held[i].lock);
			ls_watch_lock_text(l, 0, lock, sizeof lock);
			ls_watch_site_text(atomic_load(&t->held[i].site), site, sizeof site);
			ls_out_printf(o, "%s %s%s (taken at %s)", i ? "," : " holds", lock,
			              (l & LS_WATCH_READ) ? " for reading" : "", site);
		}
		if (wl) {
			uint64_t since = atomic_load(&t->wait_ns);
			char waited[32];
			ls_watch_fmt_wait(waited, sizeof waited, now > since ? now - since : 0);
			ls_watch_lock_text(wl, 0, lock, sizeof lock);
			ls_watch_site_text(atomic_load(&t->wait_site), site, sizeof site);
			ls_out_printf(o, "%s waits for %s at %s, for %s", k ? ";" : "", lock, site, waited);
		}
		ls_out_put(o, "\n");
	}
}
