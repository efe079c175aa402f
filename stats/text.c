/*
 * text.c - the summary printed on stderr: the top mutexes by total
 * wait, fixed-width columns in human units, fairness, the symbolised site
 * of first use and the heaviest sampled waiter/holder stacks; then the
 * rwlocks the same way, a row per mode; then the busiest condvars.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arm.h"
#include "delegation.h"
#include "watch_int.h"
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

/* The columns of a mutex, or of one mode of an rwlock. */
static const struct { const char *h; int w; } lock_col[] = {
	{ "acquired", 11 }, { "contended", 10 }, { "cont%", 7 }, { "wait total", 11 },
	{ "wait p50", 10 }, { "wait p99", 10 }, { "wait max", 10 }, { "hold p50", 10 },
	{ "hold p99", 10 }, { "owner chg", 10 }, { "thr", 5 }, { "min%", 6 }, { "max%", 6 },
	{ "jain", 6 },
};

static void lock_header(struct ls_out *o, bool rwlock)
{
	cell(o, "id", 6, false);
	if (rwlock)
		cell(o, "mode", 6, false);
	for (size_t i = 0; i < sizeof lock_col / sizeof lock_col[0]; i++)
		cell(o, lock_col[i].h, lock_col[i].w, false);
	ls_out_put(o, "  served  [variable,] first used at\n");
}

/* One record's numbers; `owner_changes` false for an rwlock's reads
 * (readers share it: none counted). */
static void lock_cells(struct ls_out *o, const struct ls_snap *s, uint32_t slot, bool owner_changes)
{
	const struct ls_snap_lock *l = &s->lock[slot];
	const struct ls_stats_lock *r = ls_stats_rec(slot);
	bool waited = atomic_load_explicit(&r->wait.samples, memory_order_relaxed) != 0;
	bool held = atomic_load_explicit(&r->hold.samples, memory_order_relaxed) != 0;
	double acq = (double)l->c[LS_C_ACQ];
	const struct ls_snap_share *f = ls_snap_fairness(l);
	bool fair = f->n > 0 && f->sum > 0;
	num(o, l->c[LS_C_ACQ], lock_col[0].w);
	num(o, l->c[LS_C_CONTENDED], lock_col[1].w);
	fixed(o, acq > 0 ? 100.0 * (double)l->c[LS_C_CONTENDED] / acq : 0, "%.2f", acq > 0, lock_col[2].w);
	dur(o, l->est_wait_ns, waited, lock_col[3].w);
	dur(o, ls_stats_percentile(&r->wait, 0.50), waited, lock_col[4].w);
	dur(o, ls_stats_percentile(&r->wait, 0.99), waited, lock_col[5].w);
	dur(o, (double)atomic_load_explicit(&r->wait.max_ns, memory_order_relaxed), waited, lock_col[6].w);
	dur(o, ls_stats_percentile(&r->hold, 0.50), held, lock_col[7].w);
	dur(o, ls_stats_percentile(&r->hold, 0.99), held, lock_col[8].w);
	if (owner_changes)
		num(o, l->c[LS_C_HANDOFF], lock_col[9].w);
	else
		cell(o, "-", lock_col[9].w, false);
	num(o, f->n, lock_col[10].w);
	fixed(o, 100.0 * ls_snap_share(f, f->min), "%.1f", fair, lock_col[11].w);
	fixed(o, 100.0 * ls_snap_share(f, f->max), "%.1f", fair, lock_col[12].w);
	fixed(o, ls_stats_jain(l), "%.3f", fair, lock_col[13].w);
}

static void served_and_site(struct ls_out *o, uint32_t slot)
{
	ls_out_put(o, "  ");
	cell(o, ls_stats_served_by(slot), 6, true);
	ls_out_put(o, "  ");
	site_cell(o, slot);
	ls_out_put(o, "\n");
}

static bool waited(uint32_t slot)
{
	return atomic_load_explicit(&ls_stats_rec(slot)->wait.samples, memory_order_relaxed) != 0;
}

static void mutex_table(const struct ls_snap *s, struct ls_out *o, uint32_t top)
{
	lock_header(o, false);
	for (uint32_t i = 0; i < s->nmutex && i < top; i++) {
		uint32_t slot = s->mutexes[i];
		num(o, slot, 6);
		lock_cells(o, s, slot, true);
		served_and_site(o, slot);
		if (waited(slot))
			top_events(s, o, slot);
	}
}

/* Two rows per rwlock: its reads (with its id, served-by and site), then
 * its writes; each followed by its heaviest sampled waits. */
static void rwlock_table(const struct ls_snap *s, struct ls_out *o, uint32_t top)
{
	lock_header(o, true);
	for (uint32_t i = 0; i < s->nrwlock && i < top; i++) {
		uint32_t slot = s->rwlocks[i];
		num(o, slot, 6);
		cell(o, "read", 6, false);
		lock_cells(o, s, slot, false);
		served_and_site(o, slot);
		if (waited(slot))
			top_events(s, o, slot);
		cell(o, "", 6, false);
		cell(o, "write", 6, false);
		lock_cells(o, s, slot + 1, true);
		ls_out_put(o, "\n");
		if (waited(slot + 1))
			top_events(s, o, slot + 1);
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
		cell(o, ls_stats_served_by(slot), 6, true);
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
	if (s->nrwlock)
		ls_out_printf(o, "rwlock %s, ", ls_stats_rwlock_backend_name());
	if (c->mode == LS_STATS_FULL)
		ls_out_put(o, "mode full (every wait and hold timed)");
	else
		ls_out_printf(o, "mode summary (times and stacks sampled 1 in %u)", c->sample);
	ls_out_printf(o, ", %s\n", elapsed);
	/* A profiler is expected to observe, not replace: say which lock ran. */
	if (strcmp(ls_stats_backend_name(), "glibc") != 0)
		ls_out_printf(o, "  locks served by lockswap's %s, not the program's own (glibc's); "
		              "LOCKSWAP_BACKEND=glibc observes glibc's locks unchanged\n",
		              ls_stats_backend_name());
	ls_stats_write_arm_text(o);
	ls_stats_write_delegation_text(s, o);
	ls_watch_write_text(o);
	ls_out_printf(o, "  %u mutexes, %u rwlocks and %u condvars used by %u threads (%u exited)",
	              s->nmutex, s->nrwlock, s->ncond, s->threads_live + s->threads_exited,
	              s->threads_exited);
	if (!ls_snap_any(s)) {
		ls_out_put(o, "\n");
		return;
	}
	uint32_t top = c->top;
	if (s->nmutex) {
		ls_out_printf(o, "; top %u mutexes by total wait:\n\n", s->nmutex < top ? s->nmutex : top);
		mutex_table(s, o, top);
	} else {
		ls_out_put(o, "\n");
	}
	if (s->nrwlock) {
		ls_out_printf(o, "\n  top %u rwlocks by total wait (reads and writes):\n\n",
		              s->nrwlock < top ? s->nrwlock : top);
		rwlock_table(s, o, top);
	}
	if (s->ncond) {
		ls_out_printf(o, "\n  top %u condvars by waits:\n\n", s->ncond < top ? s->ncond : top);
		cond_table(s, o, top);
	}
	ls_out_put(o, "\n  counts are exact; times are ");
	ls_out_put(o, c->mode == LS_STATS_FULL ? "measured on every event"
	                                       : "sampled, wait totals scaled to all waits");
	if (!ls_stats_unwind_available())
		ls_out_put(o, "; no unwinder (libgcc_s): stacks are call sites only");
	if (atomic_load_explicit(&ls_stats_untracked, memory_order_relaxed))
		ls_out_put(o, "; the lock table filled up: later objects are not counted");
	if (c->file[0])
		ls_out_put(o, "; JSON in LOCKSWAP_STATS_FILE");
	ls_out_put(o, "\n\n");
}
