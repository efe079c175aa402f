/*
 * prom.c - the statistics in the Prometheus text exposition format
 * (0.0.4), the input of node_exporter's textfile collector.
 *
 * Series: one per call site, the return address of a mutex's first use
 * (the "site" of the JSON and the summary), with every mutex first used
 * there summed.  Labels: arm, backend, process, site.  At most
 * LOCKSWAP_STATS_PROM_SITES sites get series of their own; they are
 * admitted while there is room, in the snapshot's order (most waited-for
 * mutex first), and keep their series for the process's life; the sites
 * that found no room are summed into site="other".  Since membership never
 * changes back, no series ever hands counts to another.
 *
 * Counters never go back: the snapshot reads per-thread blocks racily and
 * can miss a thread caught between its live block and its exited record
 * (thread.c), so each counter is clamped to the value written last.
 * Histograms come from the per-lock records (atomic adds only), so their
 * buckets grow by themselves; each is read once and summed upwards, so the
 * buckets written are cumulative by construction.
 *
 * Runs in the writer thread or a dump, serialised (export.c): the static
 * state below has one user at a time.  No malloc: the accumulators are
 * mmap'ed per write.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prom.h"

#define SITES_MAX 500   /* LOCKSWAP_STATS_PROM_SITES's maximum */
#define OTHER SITES_MAX /* the series of the sites without one of their own */
#define INDEX_BITS 10   /* admitted sites by address: load at most 1/2 */
#define INDEX_CAP (1u << INDEX_BITS)

/* Histogram bounds: 2^8, 2^10, ..., 2^34 ns (256 ns .. 17 s), every other
 * log2 bucket of the records; LE_N bins plus one above the last bound. */
#define LE_FIRST 8
#define LE_STEP 2
#define LE_N 14

struct series {
	uintptr_t pc;
	char label[256]; /* the site, escaped for a label value */
	uint64_t last_acq, last_contended;
};
static struct series series[SITES_MAX + 1];
static unsigned nsites;
static uint16_t index_of[INDEX_CAP]; /* series index + 1; 0 = empty */

struct acc {
	bool used;
	uint32_t busiest; /* slot with the most acquisitions */
	uint64_t acq, contended;
	uint64_t wait[LE_N + 1], hold[LE_N + 1]; /* per bin, not yet cumulative */
	uint64_t wait_ns, hold_ns;
};

void ls_stats_prom_reset(void)
{
	memset(series, 0, sizeof series);
	memset(index_of, 0, sizeof index_of);
	nsites = 0;
}

static uint32_t pc_slot(uintptr_t pc)
{
	return (uint32_t)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> (64 - INDEX_BITS));
}

static int find_site(uintptr_t pc)
{
	for (uint32_t i = pc_slot(pc);; i = (i + 1) & (INDEX_CAP - 1)) {
		if (!index_of[i])
			return -1;
		if (series[index_of[i] - 1].pc == pc)
			return index_of[i] - 1;
	}
}

/* Label values escape backslash, double quote and newline. */
static void escape_label(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; *s && n + 3 < len; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			out[n++] = '\\';
			out[n++] = *s == '\n' ? 'n' : *s;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = 0;
}

/* "function+0x1c", else "object+0x1234", else the address. */
static void site_text(uintptr_t pc, char *buf, size_t len)
{
	struct ls_sym sym;
	if (ls_symbolize(pc, &sym)) {
		snprintf(buf, len, "%.200s+0x%lx", sym.name, (unsigned long)sym.in_sym);
	} else if (sym.obj[0]) {
		const char *base = strrchr(sym.obj, '/');
		base = base ? base + 1 : sym.obj;
		if (strcmp(sym.obj, "/proc/self/exe") == 0)
			base = program_invocation_short_name;
		snprintf(buf, len, "%.200s+0x%lx", base, (unsigned long)sym.off);
	} else {
		snprintf(buf, len, "0x%lx", (unsigned long)pc);
	}
}

static int admit_site(uintptr_t pc, unsigned room)
{
	if (nsites >= room)
		return -1;
	unsigned k = nsites++;
	char text[256];
	series[k].pc = pc;
	site_text(pc, text, sizeof text);
	escape_label(text, series[k].label, sizeof series[k].label);
	uint32_t i = pc_slot(pc);
	while (index_of[i])
		i = (i + 1) & (INDEX_CAP - 1);
	index_of[i] = (uint16_t)(k + 1);
	return (int)k;
}

/* A record's log2 buckets into the exported bins: bucket b holds
 * [2^b, 2^(b+1)) ns, so it lies under bound 2^k from k = b + 1 on. */
static void add_timing(const struct ls_stats_timing *t, uint64_t *bins, uint64_t *ns)
{
	for (int b = 0; b < LS_STATS_BUCKETS; b++) {
		uint64_t h = atomic_load_explicit(&t->hist[b], memory_order_relaxed);
		if (!h)
			continue;
		int j = b + 1 <= LE_FIRST ? 0 : (b + 1 - LE_FIRST + LE_STEP - 1) / LE_STEP;
		bins[j < LE_N ? j : LE_N] += h;
	}
	*ns += atomic_load_explicit(&t->total_ns, memory_order_relaxed);
}

static void add_lock(struct acc *a, const struct ls_snap *s, uint32_t slot)
{
	const struct ls_snap_lock *l = &s->lock[slot];
	const struct ls_stats_lock *r = ls_stats_rec(slot);
	a->used = true;
	a->acq += l->c[LS_C_ACQ];
	a->contended += l->c[LS_C_CONTENDED];
	add_timing(&r->wait, a->wait, &a->wait_ns);
	add_timing(&r->hold, a->hold, &a->hold_ns);
	if (!a->busiest || l->c[LS_C_ACQ] > s->lock[a->busiest].c[LS_C_ACQ])
		a->busiest = slot;
}

static void help(struct ls_out *o, const char *name, const char *type, const char *text)
{
	ls_out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* name{COMMON,site="S"[,le="B"]} */
static void series_name(struct ls_out *o, const char *name, const char *suffix,
                        const char *common, unsigned k, const char *le)
{
	ls_out_put(o, name);
	ls_out_put(o, suffix);
	ls_out_put(o, "{");
	ls_out_put(o, common);
	ls_out_put(o, ",site=\"");
	ls_out_put(o, k == OTHER ? "other" : series[k].label);
	ls_out_put(o, "\"");
	if (le) {
		ls_out_put(o, ",le=\"");
		ls_out_put(o, le);
		ls_out_put(o, "\"");
	}
	ls_out_put(o, "} ");
}

static void histogram(struct ls_out *o, const char *name, const char *common, unsigned k,
                      const uint64_t *bins, uint64_t ns)
{
	uint64_t below = 0;
	char le[32];
	for (int j = 0; j < LE_N; j++) {
		below += bins[j];
		snprintf(le, sizeof le, "%.9g", (double)(1ull << (LE_FIRST + j * LE_STEP)) * 1e-9);
		series_name(o, name, "_bucket", common, k, le);
		ls_out_printf(o, "%llu\n", (unsigned long long)below);
	}
	below += bins[LE_N];
	series_name(o, name, "_bucket", common, k, "+Inf");
	ls_out_printf(o, "%llu\n", (unsigned long long)below);
	series_name(o, name, "_sum", common, k, NULL);
	ls_out_printf(o, "%.9g\n", (double)ns * 1e-9);
	series_name(o, name, "_count", common, k, NULL);
	ls_out_printf(o, "%llu\n", (unsigned long long)below);
}

static uint64_t clamp_up(uint64_t now, uint64_t *last)
{
	if (now < *last)
		return *last;
	*last = now;
	return now;
}

/* arm="",backend="futex",process="prog:123" */
static void common_labels(char *buf, size_t len)
{
	const struct ls_stats_arm *a = ls_stats_arm();
	char arm[96], backend[160], process[96], text[64];
	escape_label(a && a->name ? a->name : "", arm, sizeof arm);
	escape_label(ls_stats_backend_name(), backend, sizeof backend);
	snprintf(text, sizeof text, "%.40s:%d", program_invocation_short_name, (int)getpid());
	escape_label(text, process, sizeof process);
	snprintf(buf, len, "arm=\"%s\",backend=\"%s\",process=\"%s\"", arm, backend, process);
}

static void arm_info(struct ls_out *o, const char *common)
{
	const struct ls_stats_arm *a = ls_stats_arm();
	if (!a)
		return;
	char key[300], value[600];
	escape_label(a->key ? a->key : "", key, sizeof key);
	escape_label(a->key_value ? a->key_value : "", value, sizeof value);
	help(o, "lockswap_arm_info", "gauge",
	     "The arm of LOCKSWAP_ARMS this process runs and the key that chose it (always 1).");
	/* Pieces, not one printf: the key's value may be longer than its line. */
	ls_out_put(o, "lockswap_arm_info{");
	ls_out_put(o, common);
	ls_out_put(o, ",key=\"");
	ls_out_put(o, key);
	ls_out_put(o, "\",key_value=\"");
	ls_out_put(o, value);
	ls_out_put(o, "\"} 1\n");
}

bool ls_stats_write_prom(const struct ls_snap *s, struct ls_out *o)
{
	unsigned room = ls_stats_given()->prom_sites;
	room = room < 1 ? 1 : room > SITES_MAX ? SITES_MAX : room;
	size_t bytes = (SITES_MAX + 1) * sizeof(struct acc);
	struct acc *acc = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (acc == MAP_FAILED)
		return false;
	for (uint32_t i = 0; i < s->nmutex; i++) {
		uint32_t slot = s->mutexes[i];
		uintptr_t pc = ls_stats_rec(slot)->site;
		int k = find_site(pc);
		if (k < 0)
			k = admit_site(pc, room);
		add_lock(&acc[k < 0 ? OTHER : k], s, slot);
	}
	char common[512];
	common_labels(common, sizeof common);
	arm_info(o, common);

	help(o, "lockswap_lock_acquisitions_total", "counter",
	     "Mutex acquisitions (lock, trylock, timedlock, clocklock, condvar re-acquisition) "
	     "of the mutexes first used at the site.");
	for (unsigned k = 0; k <= OTHER; k++) {
		if (!acc[k].used)
			continue;
		series_name(o, "lockswap_lock_acquisitions_total", "", common, k, NULL);
		ls_out_printf(o, "%llu\n",
		              (unsigned long long)clamp_up(acc[k].acq, &series[k].last_acq));
	}
	help(o, "lockswap_lock_contended_total", "counter",
	     "Acquisitions that found the mutex held.");
	for (unsigned k = 0; k <= OTHER; k++) {
		if (!acc[k].used)
			continue;
		series_name(o, "lockswap_lock_contended_total", "", common, k, NULL);
		ls_out_printf(o, "%llu\n", (unsigned long long)clamp_up(acc[k].contended,
		                                                        &series[k].last_contended));
	}
	help(o, "lockswap_lock_wait_seconds", "histogram",
	     "Time from finding the mutex held to getting it, of the timed waits (summary mode: "
	     "1 in LOCKSWAP_STATS_SAMPLE).");
	for (unsigned k = 0; k <= OTHER; k++)
		if (acc[k].used)
			histogram(o, "lockswap_lock_wait_seconds", common, k, acc[k].wait, acc[k].wait_ns);
	help(o, "lockswap_lock_hold_seconds", "histogram",
	     "Time from acquisition to release, of the timed holds (summary mode: "
	     "1 in 8 * LOCKSWAP_STATS_SAMPLE).");
	for (unsigned k = 0; k <= OTHER; k++)
		if (acc[k].used)
			histogram(o, "lockswap_lock_hold_seconds", common, k, acc[k].hold, acc[k].hold_ns);
	help(o, "lockswap_lock_min_share_ratio", "gauge",
	     "The least active competing thread's share of the acquisitions of the site's "
	     "busiest mutex (1/threads when shares are equal; competing: found it held at "
	     "least once, or every thread when none did).");
	for (unsigned k = 0; k <= OTHER; k++) {
		const struct ls_snap_lock *l = &s->lock[acc[k].busiest];
		const struct ls_snap_share *f = ls_snap_fairness(l);
		if (!acc[k].used || !f->n || !f->sum)
			continue;
		series_name(o, "lockswap_lock_min_share_ratio", "", common, k, NULL);
		ls_out_printf(o, "%.6g\n", ls_snap_share(f, f->min));
	}
	help(o, "lockswap_lock_jain_index", "gauge",
	     "Jain's fairness index of the per-thread acquisitions of the site's busiest mutex, "
	     "over the competing threads (1 = equal shares, 1/threads = one thread got all).");
	for (unsigned k = 0; k <= OTHER; k++) {
		const struct ls_snap_lock *l = &s->lock[acc[k].busiest];
		if (!acc[k].used || !ls_snap_fairness(l)->n)
			continue;
		series_name(o, "lockswap_lock_jain_index", "", common, k, NULL);
		ls_out_printf(o, "%.6g\n", ls_stats_jain(l));
	}
	munmap(acc, bytes);
	return true;
}
