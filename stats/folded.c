/*
 * folded.c - contended wait time as folded stacks, the input of
 * flame-graph tools (flamegraph.pl, inferno, speedscope):
 *
 *     root;caller;...;innermost caller;[mutex 3 big_lock] 123456
 *
 * (`rwlock` for an rwlock's waits of either mode, under the rwlock's id;
 * `lockswap report --folded` writes the same lines from the JSON.)
 * One line per sampled contention event (waiter stack, outermost frame
 * first), the last frame naming the lock by its id and its variable (or
 * its first-use site when it has none); the
 * value is the event's wait in nanoseconds scaled by the lock's sampling
 * (1 in N), so the lines add up to the estimated total wait.  Lines with
 * the same stack are summed by the tools.
 */
#include <stdio.h>

#include "report.h"

void ls_stats_write_folded(const struct ls_snap *s, struct ls_out *o)
{
	uint32_t cap;
	struct ls_stats_event *ev = ls_stats_events(&cap);
	char name[1040];
	for (uint32_t i = 0; i < cap; i++) {
		const struct ls_stats_event *e = &ev[i];
		if (atomic_load_explicit(&ev[i].hash, memory_order_acquire) < 2 || e->slot >= s->nslots)
			continue;
		const struct ls_stats_lock *r = ls_stats_rec(e->slot);
		uint64_t samples = atomic_load_explicit(&r->wait.samples, memory_order_relaxed);
		uint64_t waits = ls_snap_waits(s, e->slot);
		double scale = samples && waits > samples ? (double)waits / (double)samples : 1;
		uint64_t value = (uint64_t)((double)atomic_load_explicit(&ev[i].wait_ns,
		                                                         memory_order_relaxed) * scale + 0.5);
		if (!value)
			continue;
		uint32_t n = 0;
		const uintptr_t *f = ls_stats_stack_frames(e->wstack, &n);
		if (!f) {
			f = &e->wsite;
			n = 1;
		}
		for (uint32_t k = n; k-- > 0;) {
			ls_symbol_short(f[k], name, sizeof name);
			for (char *p = name; *p; p++)
				if (*p == ';' || *p == '\n')
					*p = '_';
			ls_out_put(o, name);
			ls_out_put(o, ";");
		}
		struct ls_sym var; /* the lock's variable, else its first-use site */
		uintptr_t addr = atomic_load_explicit(&r->key, memory_order_relaxed) & ~(uintptr_t)3;
		if (ls_symbolize_data(addr, &var))
			snprintf(name, sizeof name, "%s", var.name);
		else
			ls_symbol_short(r->site, name, sizeof name);
		for (char *p = name; *p; p++)
			if (*p == ';' || *p == '\n' || *p == ']')
				*p = '_';
		static const char *const type_names[] = { [LS_REC_MUTEX] = "mutex",
			                                  [LS_REC_COND] = "condvar",
			                                  [LS_REC_RWLOCK] = "rwlock" };
		uint8_t type = s->lock[e->slot].type;
		if (!type) /* a record not in the snapshot: its key is not published yet */
			continue;
		ls_out_printf(o, "[%s %u %s] %llu\n", type_names[type], e->slot - r->rw_write, name,
		              (unsigned long long)value);
	}
}
