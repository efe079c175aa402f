/*
 * prom.c - the statistics in the Prometheus text exposition format
 * (0.0.4), the input of node_exporter's textfile collector.
 *
 * Series: one per call site, the return address of an object's first use
 * (the "site" of the JSON and the summary), with every object of the kind
 * first used there summed.  Three kinds, each with families of its own
 * and its own table of sites: mutexes (lockswap_lock_*), rwlocks
 * (lockswap_rwlock_*, with a label mode="read"|"write": an rwlock's two
 * records, data.h) and condvars (lockswap_cond_*).  Labels: arm, backend,
 * process, site (rwlocks: and mode).  At most LOCKSWAP_STATS_PROM_SITES
 * sites of each kind get series of their own; they are admitted while
 * there is room, in the snapshot's order (most waited-for object first),
 * and keep their series for the process's life; the sites that found no
 * room are summed into site="other".  Since membership never changes
 * back, no series ever hands counts to another.  The rwlock and condvar
 * families are written once such an object was used (a family with no
 * series is left out).
 *
 * Counters never go back: the snapshot reads per-thread blocks racily and
 * can miss a thread caught between its live block and its exited record
 * (thread.c), so each counter is clamped to the value written last.
 * Histograms come from the per-lock records (atomic adds only), so their
 * buckets grow by themselves; each is read once and summed upwards, so the
 * buckets written are cumulative by construction.
 *
 * Runs in the writer thread or a dump, serialised (export.c): the static
 * state below has one user at a time.  No malloc of its own: the
 * accumulators are mmap'ed per write (a C++ site's name is demangled by
 * the program's runtime, which mallocs, once when the site is admitted).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arm.h"
#include "delegation.h"
#include "watch_int.h"
#include "prom.h"
#include "prom_text.h"
#include "../core/runtime/cold.h"

#define SITES_MAX 500   /* LOCKSWAP_STATS_PROM_SITES's maximum */
#define OTHER SITES_MAX /* the series of the sites without one of their own */
#define INDEX_BITS 10   /* admitted sites by address: load at most 1/2 */
#define INDEX_CAP (1u << INDEX_BITS)

/* Histogram bounds: 2^8, 2^10, ..., 2^34 ns (256 ns .. 17 s), every other
 * log2 bucket of the records; LE_N bins plus one above the last bound. */
#define LE_FIRST 8
#define LE_STEP 2
#define LE_N 14

/* The kinds of object with families of their own, and the records a
 * site sums: a mutex's one, an rwlock's reads and writes, a condvar's. */
enum { K_MUTEX, K_RWLOCK, K_COND, KINDS };
enum { M_READ, M_WRITE, MODES }; /* rwlock modes; the other kinds use M_READ only */

struct series {
	uintptr_t pc;
	char label[256]; /* the site, escaped for a label value */
	uint64_t last[MODES][LS_C_N]; /* counters written last, per counter index */
};
struct site_table {
	struct series series[SITES_MAX + 1];
	unsigned nsites;
	uint16_t index_of[INDEX_CAP]; /* series index + 1; 0 = empty */
};
static struct site_table tables[KINDS] LS_COLD_BSS;
static struct series *series; /* the table of the kind being written */

struct acc {
	bool used;
	uint32_t busiest; /* slot with the most acquisitions */
	uint64_t c[LS_C_N]; /* counters summed over the site's records */
	uint64_t wait[LE_N + 1], hold[LE_N + 1]; /* per bin, not yet cumulative */
	uint64_t wait_ns, hold_ns;
};

void ls_stats_prom_reset(void)
{
	memset(tables, 0, sizeof tables);
}

static uint32_t pc_slot(uintptr_t pc)
{
	return (uint32_t)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> (64 - INDEX_BITS));
}

static int find_site(const struct site_table *t, uintptr_t pc)
{
	for (uint32_t i = pc_slot(pc);; i = (i + 1) & (INDEX_CAP - 1)) {
		if (!t->index_of[i])
			return -1;
		if (t->series[t->index_of[i] - 1].pc == pc)
			return t->index_of[i] - 1;
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

/* "function+0x1c" (C++: "ns::f(...)+0x1c"), else "object+0x1234" (the
 * stable key, never a guessed name), else the address. */
static void site_text(uintptr_t pc, char *buf, size_t len)
{
	struct ls_sym sym;
	if (ls_symbolize(pc, &sym)) {
		char name[200];
		ls_name_short(sym.name, name, sizeof name);
		snprintf(buf, len, "%s+0x%lx", name, (unsigned long)sym.in_sym);
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

static int admit_site(struct site_table *t, uintptr_t pc, unsigned room)
{
	if (t->nsites >= room)
		return -1;
	unsigned k = t->nsites++;
	char text[256];
	t->series[k].pc = pc;
	site_text(pc, text, sizeof text);
	escape_label(text, t->series[k].label, sizeof t->series[k].label);
	uint32_t i = pc_slot(pc);
	while (t->index_of[i])
		i = (i + 1) & (INDEX_CAP - 1);
	t->index_of[i] = (uint16_t)(k + 1);
	return (int)k;
}

/* The series of a site in the table of its kind: its own, or "other". */
static unsigned series_of(struct site_table *t, uintptr_t pc, unsigned room)
{
	int k = find_site(t, pc);
	if (k < 0)
		k = admit_site(t, pc, room);
	return k < 0 ? OTHER : (unsigned)k;
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
	for (int c = 0; c < LS_C_N; c++)
		a->c[c] += l->c[c];
	add_timing(&r->wait, a->wait, &a->wait_ns);
	add_timing(&r->hold, a->hold, &a->hold_ns);
	if (!a->busiest || l->c[LS_C_ACQ] > s->lock[a->busiest].c[LS_C_ACQ])
		a->busiest = slot;
}


/* The rwlock mode label of the series being written (NULL: none). */
static const char *mode_label;

/* name{COMMON,site="S"[,mode="M"][,le="B"]} */
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
	if (mode_label) {
		ls_out_put(o, ",mode=\"");
		ls_out_put(o, mode_label);
		ls_out_put(o, "\"");
	}
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
	ls_prom_help(o, "lockswap_arm_info", "gauge",
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

/* What one kind writes: its families' names, help texts, and the
 * counters it exports. */
struct counter_family {
	const char *name, *help;
	int c; /* LS_C_* index */
};
struct kind_families {
	const char *prefix;               /* "lockswap_lock", "lockswap_rwlock", "lockswap_cond" */
	const char *what;                 /* in help texts */
	struct counter_family counter[4];
	unsigned ncounters;
	bool hold, fairness;
	const char *wait_help;
};

static const struct kind_families kinds[KINDS] = {
	[K_MUTEX] = {
	        "lockswap_lock", "mutex",
	        { { "acquisitions_total",
	            "Mutex acquisitions (lock, trylock, timedlock, clocklock, condvar re-acquisition) "
	            "of the mutexes first used at the site.",
	            LS_C_ACQ },
	          { "contended_total", "Acquisitions that found the mutex held.", LS_C_CONTENDED } },
	        2, true, true,
	        "Time from finding the mutex held to getting it, of the timed waits (summary mode: "
	        "1 in LOCKSWAP_STATS_SAMPLE)." },
	[K_RWLOCK] = {
	        "lockswap_rwlock", "rwlock",
	        { { "acquisitions_total",
	            "Rwlock acquisitions in the mode (read: rdlock and its try/timed/clock forms; "
	            "write: the wrlock forms) of the rwlocks first used at the site.",
	            LS_C_ACQ },
	          { "contended_total", "Acquisitions in the mode that found the rwlock unavailable.",
	            LS_C_CONTENDED },
	          { "trylock_failures_total", "tryrdlock / trywrlock calls that returned EBUSY.",
	            LS_C_TRYFAIL } },
	        3, true, true,
	        "Time from finding the rwlock unavailable in the mode to getting it, of the timed "
	        "waits (summary mode: 1 in LOCKSWAP_STATS_SAMPLE)." },
	[K_COND] = {
	        "lockswap_cond", "condvar",
	        { { "waits_total",
	            "Condvar waits (wait, timedwait, clockwait) that returned, on the condvars first "
	            "used at the site.",
	            LS_C_WAIT },
	          { "timeouts_total", "Timed condvar waits that timed out.", LS_C_TIMEOUT },
	          { "signals_total", "pthread_cond_signal calls.", LS_C_SIGNAL },
	          { "broadcasts_total", "pthread_cond_broadcast calls.", LS_C_BROADCAST } },
	        4, false, false,
	        "Time blocked in a condvar wait, of the timed waits (summary mode: 1 in "
	        "LOCKSWAP_STATS_SAMPLE)." },
};

static const char *const mode_names[MODES] = { "read", "write" };

static void family_name(char *buf, size_t len, const struct kind_families *f, const char *rest)
{
	snprintf(buf, len, "%s_%s", f->prefix, rest);
}

/* Every family of one kind; acc[m][k]: mode m (M_READ for mutexes and
 * condvars), series k. */
static void write_kind(struct ls_out *o, const struct ls_snap *s, unsigned kind,
                       struct acc *const acc[MODES], const char *common)
{
	const struct kind_families *f = &kinds[kind];
	unsigned modes = kind == K_RWLOCK ? MODES : 1;
	bool any = false;
	for (unsigned m = 0; m < modes; m++)
		for (unsigned k = 0; k <= OTHER; k++)
			any |= acc[m][k].used;
	/* The mutex families are always written (the export's documented
	 * minimum); the others once the kind was used. */
	if (!any && kind != K_MUTEX)
		return;
	series = tables[kind].series;
	char name[96];
	for (unsigned i = 0; i < f->ncounters; i++) {
		family_name(name, sizeof name, f, f->counter[i].name);
		ls_prom_help(o, name, "counter", f->counter[i].help);
		for (unsigned m = 0; m < modes; m++) {
			mode_label = kind == K_RWLOCK ? mode_names[m] : NULL;
			for (unsigned k = 0; k <= OTHER; k++) {
				if (!acc[m][k].used)
					continue;
				int c = f->counter[i].c;
				series_name(o, name, "", common, k, NULL);
				ls_out_printf(o, "%llu\n", (unsigned long long)clamp_up(
				                                   acc[m][k].c[c], &series[k].last[m][c]));
			}
		}
	}
	family_name(name, sizeof name, f, "wait_seconds");
	ls_prom_help(o, name, "histogram", f->wait_help);
	for (unsigned m = 0; m < modes; m++) {
		mode_label = kind == K_RWLOCK ? mode_names[m] : NULL;
		for (unsigned k = 0; k <= OTHER; k++)
			if (acc[m][k].used)
				histogram(o, name, common, k, acc[m][k].wait, acc[m][k].wait_ns);
	}
	if (f->hold) {
		family_name(name, sizeof name, f, "hold_seconds");
		ls_prom_help(o, name, "histogram",
		     kind == K_RWLOCK ? "Time from acquisition to release in the mode, of the timed holds "
		                        "(a read hold is one reader thread's; summary mode: 1 in 8 * "
		                        "LOCKSWAP_STATS_SAMPLE)."
		                      : "Time from acquisition to release, of the timed holds (summary "
		                        "mode: 1 in 8 * LOCKSWAP_STATS_SAMPLE).");
		for (unsigned m = 0; m < modes; m++) {
			mode_label = kind == K_RWLOCK ? mode_names[m] : NULL;
			for (unsigned k = 0; k <= OTHER; k++)
				if (acc[m][k].used)
					histogram(o, name, common, k, acc[m][k].hold, acc[m][k].hold_ns);
		}
	}
	if (f->fairness) {
		char text[300];
		family_name(name, sizeof name, f, "min_share_ratio");
		snprintf(text, sizeof text,
		         "The least active competing thread's share of the acquisitions of the site's "
		         "busiest %s%s (1/threads when shares are equal; competing: waited for it at "
		         "least 1/16 of the mean waiting time, or every thread when none did).",
		         f->what, kind == K_RWLOCK ? ", in the mode" : "");
		ls_prom_help(o, name, "gauge", text);
		for (unsigned m = 0; m < modes; m++) {
			mode_label = kind == K_RWLOCK ? mode_names[m] : NULL;
			for (unsigned k = 0; k <= OTHER; k++) {
				const struct ls_snap_lock *l = &s->lock[acc[m][k].busiest];
				const struct ls_snap_share *sh = ls_snap_fairness(l);
				if (!acc[m][k].used || !sh->n || !sh->sum)
					continue;
				series_name(o, name, "", common, k, NULL);
				ls_out_printf(o, "%.6g\n", ls_snap_share(sh, sh->min));
			}
		}
		family_name(name, sizeof name, f, "jain_index");
		snprintf(text, sizeof text,
		         "Jain's fairness index of the per-thread acquisitions of the site's busiest %s%s, "
		         "over the competing threads (1 = equal shares, 1/threads = one thread got all).",
		         f->what, kind == K_RWLOCK ? ", in the mode" : "");
		ls_prom_help(o, name, "gauge", text);
		for (unsigned m = 0; m < modes; m++) {
			mode_label = kind == K_RWLOCK ? mode_names[m] : NULL;
			for (unsigned k = 0; k <= OTHER; k++) {
				const struct ls_snap_lock *l = &s->lock[acc[m][k].busiest];
				if (!acc[m][k].used || !ls_snap_fairness(l)->n)
					continue;
				series_name(o, name, "", common, k, NULL);
				ls_out_printf(o, "%.6g\n", ls_stats_jain(l));
			}
		}
	}
	mode_label = NULL;
}

bool ls_stats_write_prom(const struct ls_snap *s, struct ls_out *o)
{
	unsigned room = ls_stats_given()->prom_sites;
	room = room < 1 ? 1 : room > SITES_MAX ? SITES_MAX : room;
	/* Accumulators: the mutexes', the rwlocks' reads and writes, the condvars'. */
	size_t per = (SITES_MAX + 1) * sizeof(struct acc), bytes = 4 * per;
	char *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return false;
	struct acc *mutex_acc = (struct acc *)map, *read_acc = (struct acc *)(map + per),
	           *write_acc = (struct acc *)(map + 2 * per), *cond_acc = (struct acc *)(map + 3 * per);
	for (uint32_t i = 0; i < s->nmutex; i++) {
		uint32_t slot = s->mutexes[i];
		add_lock(&mutex_acc[series_of(&tables[K_MUTEX], ls_stats_rec(slot)->site, room)], s, slot);
	}
	for (uint32_t i = 0; i < s->nrwlock; i++) {
		uint32_t slot = s->rwlocks[i]; /* the reads; the writes are slot + 1 */
		unsigned k = series_of(&tables[K_RWLOCK], ls_stats_rec(slot)->site, room);
		add_lock(&read_acc[k], s, slot);
		add_lock(&write_acc[k], s, slot + 1);
	}
	for (uint32_t i = 0; i < s->ncond; i++) {
		uint32_t slot = s->conds[i];
		add_lock(&cond_acc[series_of(&tables[K_COND], ls_stats_rec(slot)->site, room)], s, slot);
	}
	char common[512];
	common_labels(common, sizeof common);
	arm_info(o, common);
	ls_stats_write_delegation_prom(o, common);
	ls_watch_write_prom(o, common);
	write_kind(o, s, K_MUTEX, (struct acc *const[MODES]){ mutex_acc, NULL }, common);
	write_kind(o, s, K_RWLOCK, (struct acc *const[MODES]){ read_acc, write_acc }, common);
	write_kind(o, s, K_COND, (struct acc *const[MODES]){ cond_acc, NULL }, common);
	munmap(map, bytes);
	return true;
}
