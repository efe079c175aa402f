#include "delegation.h"

#include <string.h>

#include "../core/runtime/delegation_counts.h"
#include "prom_text.h"

/* Batch-size buckets, as core/runtime/delegation_counts.h counts them (powers of two). */
static const char *const bucket_names[LS_BATCH_BUCKETS] = {
	"1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128+",
};

static bool any(const struct ls_delegation_counts *d)
{
	if (d->sections || d->granted || d->interrupted || d->signals_kept)
		return true;
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		if (d->handbacks[i])
			return true;
	return false;
}

/* Mutex acquisitions of every tracked mutex, the denominator of the share. */
static uint64_t mutex_acquisitions(const struct ls_snap *s)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nmutex; i++)
		n += s->lock[s->mutexes[i]].c[LS_C_ACQ];
	return n;
}

static uint64_t handbacks(const struct ls_delegation_counts *d)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		n += d->handbacks[i];
	return n;
}

void ls_stats_write_delegation_text(const struct ls_snap *s, struct ls_out *o)
{
	struct ls_delegation_counts d;
	ls_delegation_counts(&d);
	if (!any(&d))
		return;
	uint64_t acq = mutex_acquisitions(s);
	ls_out_printf(o, "  delegation: %llu critical sections ran on a releasing thread",
	              (unsigned long long)d.sections);
	if (acq)
		ls_out_printf(o, " (%.3g%% of %llu mutex acquisitions)", 100.0 * (double)d.sections / (double)acq,
		              (unsigned long long)acq);
	if (d.batches)
		ls_out_printf(o, ", %llu batches of %.2f on average",
		              (unsigned long long)d.batches, (double)d.sections / (double)d.batches);
	ls_out_printf(o, "; %llu hand-overs to a waiter's own thread; %llu hand-backs",
	              (unsigned long long)d.granted, (unsigned long long)handbacks(&d));
	const char *sep = " (";
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		if (d.handbacks[i]) {
			ls_out_printf(o, "%s%s %llu", sep, ls_home_reason_name(i),
			              (unsigned long long)d.handbacks[i]);
			sep = ", ";
		}
	if (strcmp(sep, ", ") == 0)
		ls_out_put(o, ")");
	if (d.interrupted || d.signals_kept)
		ls_out_printf(o, "; signals: %llu waits interrupted, %llu kept for a releaser",
		              (unsigned long long)d.interrupted, (unsigned long long)d.signals_kept);
	ls_out_put(o, "\n");
}

void ls_stats_write_delegation_json(const struct ls_snap *s, struct ls_out *o)
{
	struct ls_delegation_counts d;
	ls_delegation_counts(&d);
	if (!any(&d))
		return;
	uint64_t acq = mutex_acquisitions(s);
	ls_out_printf(o, ",\"delegation\":{\"sections\":%llu,\"mutex_acquisitions\":%llu",
	              (unsigned long long)d.sections, (unsigned long long)acq);
	ls_out_printf(o, ",\"share\":%.6f", acq ? (double)d.sections / (double)acq : 0.0);
	ls_out_printf(o, ",\"batches\":%llu,\"mean_batch\":%.4f", (unsigned long long)d.batches,
	              d.batches ? (double)d.sections / (double)d.batches : 0.0);
	ls_out_put(o, ",\"batch_sizes\":{");
	for (unsigned i = 0; i < LS_BATCH_BUCKETS; i++)
		ls_out_printf(o, "%s\"%s\":%llu", i ? "," : "", bucket_names[i],
		              (unsigned long long)d.batch_hist[i]);
	ls_out_printf(o, "},\"granted\":%llu,\"handbacks\":{", (unsigned long long)d.granted);
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		ls_out_printf(o, "%s\"%s\":%llu", i ? "," : "", ls_home_reason_name(i),
		              (unsigned long long)d.handbacks[i]);
	ls_out_printf(o, "},\"interrupted\":%llu,\"signals_kept\":%llu,\"batch_bound\":%u}",
	              (unsigned long long)d.interrupted, (unsigned long long)d.signals_kept,
	              d.batch_bound);
}

/* One counter with no label of its own. */
static void counter(struct ls_out *o, const char *name, const char *text, const char *common,
                    uint64_t v)
{
	ls_prom_help(o, name, "counter", text);
	ls_out_printf(o, "%s{%s} %llu\n", name, common, (unsigned long long)v);
}

void ls_stats_write_delegation_prom(struct ls_out *o, const char *common)
{
	struct ls_delegation_counts d;
	ls_delegation_counts(&d);
	if (!any(&d))
		return;
	counter(o, "lockswap_delegation_sections_total",
	        "Critical sections that a releasing thread ran for a waiter (ces).", common, d.sections);
	ls_prom_help(o, "lockswap_delegation_batches_total", "counter",
	             "Batches of delegated sections, by size (sections per batch).");
	for (unsigned i = 0; i < LS_BATCH_BUCKETS; i++)
		ls_out_printf(o, "lockswap_delegation_batches_total{%s,size=\"%s\"} %llu\n", common,
		              bucket_names[i], (unsigned long long)d.batch_hist[i]);
	counter(o, "lockswap_delegation_grants_total",
	        "Hand-overs of the lock to a waiter's own thread (not delegable, or the batch was full).",
	        common, d.granted);
	ls_prom_help(o, "lockswap_delegation_handbacks_total", "counter",
	             "Delegated sections that had to go home before their unlock, by reason.");
	for (unsigned i = 0; i < LS_BACK_REASONS; i++)
		ls_out_printf(o, "lockswap_delegation_handbacks_total{%s,reason=\"%s\"} %llu\n", common,
		              ls_home_reason_name(i), (unsigned long long)d.handbacks[i]);
	counter(o, "lockswap_delegation_interrupted_total",
	        "Delegable waits that a signal took out of the queue, so that its handler ran at home.",
	        common, d.interrupted);
	counter(o, "lockswap_delegation_signals_kept_total",
	        "Signals for a releasing thread that arrived while it ran a waiter's section, delivered after it.",
	        common, d.signals_kept);
}
