/*
 * text.c - the summary printed on stderr: the top mutexes by total
 * wait, fixed-width columns in human units, fairness, the symbolised site
 * of first use and the heaviest sampled waiter/holder stacks; then the
 * busiest condvars.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "prom.h"
#include "report.h"

/* Pad to a display width (UTF-8 continuation bytes take no column). */
static void cell(struct ls_out *o, const char *s, int width, bool left)
{
	int w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		w += (*p & 0xc0) != 0x80;
	if (!left)
		for (int i = w; i < width; i++)
			ls_out_put(o, " ");
	ls_out_put(o, s);
	if (left)
		for (int i = w; i < width; i++)
			ls_out_put(o, " ");
}

static void num(struct ls_out *o, uint64_t v, int width)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	cell(o, b, width, false);
}

static void dur(struct ls_out *o, double ns, bool have, int width)
{
	char b[32];
	if (have)
		ls_fmt_ns(b, sizeof b, ns);
	else
		snprintf(b, sizeof b, "-");
	cell(o, b, width, false);
}

static void fixed(struct ls_out *o, double v, const char *fmt, bool have, int width)
{
	char b[32];
	if (have)
		snprintf(b, sizeof b, fmt, v);
	else
		snprintf(b, sizeof b, "-");
	cell(o, b, width, false);
}

/* "f0 < f1 < f2": the innermost frames of a stack, caller last. */
static void stack_line(struct ls_out *o, uint32_t id, uintptr_t fallback, int frames)
{
	uint32_t n = 0;
	const uintptr_t *f = ls_stats_stack_frames(id, &n);
	if (!f) {
		f = &fallback;
		n = fallback ? 1 : 0;
	}
	if (!n) {
		ls_out_put(o, "?");
		return;
	}
	char b[256];
	for (uint32_t i = 0; i < n && (int)i < frames; i++) {
		ls_symbol_short(f[i], b, sizeof b);
		if (i)
			ls_out_put(o, " < ");
		ls_out_put(o, b);
	}
}

/* The two heaviest sampled contention events of a lock. */
static void top_events(const struct ls_snap *s, struct ls_out *o, uint32_t slot)
{
	uint32_t cap;
	struct ls_stats_event *ev = ls_stats_events(&cap);
	const struct ls_stats_event *best[2] = { NULL, NULL };
	uint64_t total = 0;
	for (uint32_t i = 0; i < cap; i++) {
		const struct ls_stats_event *e = &ev[i];
		if (atomic_load_explicit(&ev[i].hash, memory_order_acquire) < 2 || e->slot != slot)
			continue;
		uint64_t w = atomic_load_explicit(&ev[i].wait_ns, memory_order_relaxed);
		total += w;
		if (!best[0] || w > best[0]->wait_ns) {
			best[1] = best[0];
			best[0] = e;
		} else if (!best[1] || w > best[1]->wait_ns) {
			best[1] = e;
		}
	}
	for (int i = 0; i < 2 && best[i]; i++) {
		double share = total ? 100.0 * (double)best[i]->wait_ns / (double)total : 0;
		ls_out_printf(o, "        %3.0f%% of sampled wait: waiter ", share);
		stack_line(o, best[i]->wstack, best[i]->wsite, 4);
		ls_out_put(o, "\n              holder ");
		if (best[i]->hstack)
			stack_line(o, best[i]->hstack, 0, 4);
		else
			stack_line(o, 0, best[i]->hsite, 1);
		ls_out_put(o, best[i]->hstack ? " (at its unlock)\n" : " (its lock call)\n");
	}
}

static void site_cell(struct ls_out *o, uint32_t slot)
{
	char b[256];
	struct ls_sym var;
	uintptr_t addr = atomic_load_explicit(&ls_stats_rec(slot)->key, memory_order_relaxed) & ~(uintptr_t)3;
	if (ls_symbolize_data(addr, &var))
		ls_out_printf(o, "%s, ", var.name);
	ls_symbol_short(ls_stats_rec(slot)->site, b, sizeof b);
	ls_out_put(o, b);
	if (atomic_load_explicit(&ls_stats_rec(slot)->destroyed, memory_order_relaxed))
		ls_out_put(o, " (destroyed)");
}

static const char *served(uint32_t slot)
{
	return ls_stats_rec(slot)->glibc ? "glibc" : ls_stats_backend_name();
}

static void mutex_table(const struct ls_snap *s, struct ls_out *o, uint32_t top)
{
	static const struct { const char *h; int w; } col[] = {
		{ "id", 6 }, { "acquired", 11 }, { "contended", 10 }, { "cont%", 7 },
		{ "wait total", 11 }, { "wait p50", 10 }, { "wait p99", 10 }, { "wait max", 10 },
		{ "hold p50", 10 }, { "hold p99", 10 }, { "owner chg", 10 }, { "thr", 5 },
		{ "min%", 6 }, { "max%", 6 }, { "jain", 6 },
	};
	for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
		cell(o, col[i].h, col[i].w, false);
	ls_out_put(o, "  served  [variable,] first used at\n");
	for (uint32_t i = 0; i < s->nmutex && i < top; i++) {
		uint32_t slot = s->mutexes[i];
		const struct ls_snap_lock *l = &s->lock[slot];
		const struct ls_stats_lock *r = ls_stats_rec(slot);
		bool waited = atomic_load_explicit(&r->wait.samples, memory_order_relaxed) != 0;
		bool held = atomic_load_explicit(&r->hold.samples, memory_order_relaxed) != 0;
		double acq = (double)l->c[LS_C_ACQ];
		bool fair = l->nthreads > 0 && acq > 0;
		num(o, slot, col[0].w);
		num(o, l->c[LS_C_ACQ], col[1].w);
		num(o, l->c[LS_C_CONTENDED], col[2].w);
		fixed(o, acq > 0 ? 100.0 * (double)l->c[LS_C_CONTENDED] / acq : 0, "%.2f", acq > 0, col[3].w);
		dur(o, l->est_wait_ns, waited, col[4].w);
		dur(o, ls_stats_percentile(&r->wait, 0.50), waited, col[5].w);
		dur(o, ls_stats_percentile(&r->wait, 0.99), waited, col[6].w);
		dur(o, (double)atomic_load_explicit(&r->wait.max_ns, memory_order_relaxed), waited, col[7].w);
		dur(o, ls_stats_percentile(&r->hold, 0.50), held, col[8].w);
		dur(o, ls_stats_percentile(&r->hold, 0.99), held, col[9].w);
		num(o, l->c[LS_C_HANDOFF], col[10].w);
		num(o, l->nthreads, col[11].w);
		fixed(o, fair ? 100.0 * (double)l->share_min / acq : 0, "%.1f", fair, col[12].w);
		fixed(o, fair ? 100.0 * (double)l->share_max / acq : 0, "%.1f", fair, col[13].w);
		fixed(o, ls_stats_jain(l), "%.3f", fair, col[14].w);
		ls_out_put(o, "  ");
		cell(o, served(slot), 6, true);
		ls_out_put(o, "  ");
		site_cell(o, slot);
		ls_out_put(o, "\n");
		if (waited)
			top_events(s, o, slot);
	}
}

static void cond_table(const struct ls_snap *s, struct ls_out *o, uint32_t top)
{
	static const struct { const char *h; int w; } col[] = {
		{ "id", 6 }, { "waits", 11 }, { "timeouts", 10 }, { "signals", 11 },
		{ "broadcasts", 11 }, { "wait p50", 10 }, { "wait p99", 10 }, { "wait max", 10 },
		{ "mutex", 7 },
	};
	for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
		cell(o, col[i].h, col[i].w, false);
	ls_out_put(o, "  served  [variable,] first used at\n");
	for (uint32_t i = 0; i < s->ncond && i < top; i++) {
		uint32_t slot = s->conds[i];
		const struct ls_snap_lock *l = &s->lock[slot];
		const struct ls_stats_lock *r = ls_stats_rec(slot);
		bool waited = atomic_load_explicit(&r->wait.samples, memory_order_relaxed) != 0;
		num(o, slot, col[0].w);
		num(o, l->c[LS_C_WAIT], col[1].w);
		num(o, l->c[LS_C_TIMEOUT], col[2].w);
		num(o, l->c[LS_C_SIGNAL], col[3].w);
		num(o, l->c[LS_C_BROADCAST], col[4].w);
		dur(o, ls_stats_percentile(&r->wait, 0.50), waited, col[5].w);
		dur(o, ls_stats_percentile(&r->wait, 0.99), waited, col[6].w);
		dur(o, (double)atomic_load_explicit(&r->wait.max_ns, memory_order_relaxed), waited, col[7].w);
		uint32_t m = atomic_load_explicit(&r->cond_mutex, memory_order_relaxed);
		char b[24];
		snprintf(b, sizeof b, m ? "%u%s" : "-", m,
		         atomic_load_explicit(&r->cond_mixed, memory_order_relaxed) ? "+" : "");
		cell(o, b, col[8].w, false);
		ls_out_put(o, "  ");
		cell(o, served(slot), 6, true);
		ls_out_put(o, "  ");
		site_cell(o, slot);
		ls_out_put(o, "\n");
	}
}

void ls_stats_write_text(const struct ls_snap *s, struct ls_out *o, const char *reason)
{
	const struct ls_stats_config *c = &ls_stats_cfg;
	char elapsed[32];
	ls_fmt_ns(elapsed, sizeof elapsed, (double)(s->now_ns - c->start_ns));
	ls_out_printf(o, "\nlockswap stats (%s): pid %d (%s), backend %s, ", reason, (int)getpid(),
	              program_invocation_short_name, ls_stats_backend_name());
	if (c->mode == LS_STATS_FULL)
		ls_out_put(o, "mode full (every wait and hold timed)");
	else
		ls_out_printf(o, "mode summary (times and stacks sampled 1 in %u)", c->sample);
	ls_out_printf(o, ", %s\n", elapsed);
	ls_stats_write_arm_text(o);
	ls_out_printf(o, "  %u mutexes and %u condvars used by %u threads (%u exited)",
	              s->nmutex, s->ncond, s->threads_live + s->threads_exited, s->threads_exited);
	if (!s->nmutex && !s->ncond) {
		ls_out_put(o, "\n");
		return;
	}
	uint32_t top = c->top;
	ls_out_printf(o, "; top %u mutexes by total wait:\n\n", s->nmutex < top ? s->nmutex : top);
	if (s->nmutex)
		mutex_table(s, o, top);
	if (s->ncond) {
		ls_out_printf(o, "\n  top %u condvars by waits:\n\n", s->ncond < top ? s->ncond : top);
		cond_table(s, o, top);
	}
	ls_out_put(o, "\n  counts are exact; times are ");
	ls_out_put(o, c->mode == LS_STATS_FULL ? "measured on every event"
	                                       : "sampled, wait totals scaled to all waits");
	if (!ls_stats_unwind_available())
		ls_out_put(o, "; no libunwind: stacks are call sites only");
	if (atomic_load_explicit(&ls_stats_untracked, memory_order_relaxed))
		ls_out_put(o, "; the lock table filled up: later objects are not counted");
	if (c->file[0])
		ls_out_put(o, "; JSON in LOCKSWAP_STATS_FILE");
	ls_out_put(o, "\n\n");
}
