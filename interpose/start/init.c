#include "init.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../core/runtime/home.h"
#include "../../core/runtime/qnode.h"
#include "../../core/runtime/thread.h"
#include "../options/arms.h"
#include "../entry/cancel.h"
#include "../options/config.h"
#include "gate.h"
#include "../away/away.h"
#include "real.h"
#include "rwlock_select.h"
#include "../version.h"
#include "../../stats/watch.h"

size_t ls_cond_flags_offset = 36;
char ls_active_name[LS_ACTIVE_NAME_MAX];
extern const struct ls_lock_ops ls_backend_glibc;

/* Thread records are returned at thread exit through a pthread key whose
 * destructor runs in the exiting thread. */
static pthread_key_t record_key;
static _Atomic int record_key_state; /* 0 none, 1 creating, 2 ready */

static void record_destructor(void *rec)
{
	/* A start routine that returned inside a delegated section: finish
	 * exiting on the thread's own kernel thread (interpose/away/). */
	ls_go_home(LS_BACK_EXIT);
	if (ls_observing())
		ls_stats_thread_exit(rec);
	if (ls_watching())
		ls_watch_thread_exit();
	ls_thread_release(rec);
}

static void record_attach(struct ls_thread *t)
{
	if (atomic_load_explicit(&record_key_state, memory_order_acquire) == 2)
		pthread_setspecific(record_key, t);
}

static void record_key_create(void)
{
	int expected = 0;
	if (!atomic_compare_exchange_strong(&record_key_state, &expected, 1))
		return;
	if (pthread_key_create(&record_key, record_destructor) == 0)
		atomic_store_explicit(&record_key_state, 2, memory_order_release);
	ls_thread_hook = record_attach;
}

/* Find glibc's condvar flags word: init a scratch condvar as pshared +
 * monotonic with glibc's own function and look for the word that reads 3. */
static void probe_cond_flags(void)
{
	pthread_condattr_t a;
	union {
		pthread_cond_t c;
		unsigned u[sizeof(pthread_cond_t) / sizeof(unsigned)];
	} scratch;
	memset(&scratch, 0, sizeof scratch);
	if (pthread_condattr_init(&a) != 0)
		return;
	pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (ls_real.cond_init(&scratch.c, &a) == 0) {
		for (size_t i = 0; i < sizeof scratch.u / sizeof scratch.u[0]; i++)
			if (scratch.u[i] == 3)
				ls_cond_flags_offset = i * sizeof(unsigned);
		ls_real.cond_destroy(&scratch.c);
	}
	pthread_condattr_destroy(&a);
}

/* The statistics' configuration, as text (stats/hooks.h).  The strings
 * are the option table's, which outlive every use. */
static struct ls_stats_settings stats_settings;
static struct ls_stats_arm stats_arm;

static const char *option_text(const char *name)
{
	const struct ls_option *o = ls_option_find(name);
	return o ? ls_option_value(o) : "";
}

static void configure_stats(void)
{
	if (!ls_observing())
		return;
	stats_settings = (struct ls_stats_settings){
		.mode = atomic_load_explicit(&ls_opt_stats, memory_order_relaxed),
		.top = atomic_load_explicit(&ls_opt_stats_top, memory_order_relaxed),
		.sample = atomic_load_explicit(&ls_opt_stats_sample, memory_order_relaxed),
		.backend = ls_active_name,
		/* relaxed: selected by this thread, in this ls_init. */
		.rwlock = atomic_load_explicit(&ls_rwlock_active, memory_order_relaxed)->name,
		.file = option_text("STATS_FILE"),
		.folded = option_text("STATS_FOLDED"),
		.signal = option_text("STATS_SIGNAL"),
		.prom = option_text("STATS_PROM"),
		.interval = atomic_load_explicit(&ls_opt_stats_interval, memory_order_relaxed),
		.prom_sites = atomic_load_explicit(&ls_opt_stats_prom_sites, memory_order_relaxed),
	};
	const struct ls_arm_choice *arm = ls_arm_chosen();
	if (arm) {
		stats_arm = (struct ls_stats_arm){
			.name = arm->name,
			.index = arm->index,
			.count = arm->count,
			.key = arm->key,
			.key_value = arm->key_value,
			.seeded = arm->seeded,
			.seed = arm->seed,
			.settings = arm->settings,
		};
		stats_settings.arm = &stats_arm;
	}
	ls_stats_configure(&stats_settings);
}

/* The watch's configuration (stats/watch.h): LOCKSWAP_HANG_MS's auto is
 * 2000 ms while LOCKSWAP_DEADLOCK is on, else the backend's own default
 * (backends/backend.h hang_ms_default: ces's 1000), else off.  Sets
 * ls_hooks, which every racing initialiser computes alike, before the
 * backend is published. */
static struct ls_watch_settings watch_settings;

static void configure_hooks(const struct ls_lock_ops *b)
{
	unsigned order = atomic_load_explicit(&ls_opt_deadlock, memory_order_relaxed);
	unsigned hang = atomic_load_explicit(&ls_opt_hang_ms, memory_order_relaxed);
	bool by_default = hang == LS_OPT_UINT_WORD && order == LS_ORDER_OFF;
	if (hang == LS_OPT_UINT_WORD)
		hang = order != LS_ORDER_OFF ? 2000 : b->hang_ms_default;
	unsigned hooks = ls_observing() ? LS_HOOK_STATS : 0;
	if (order != LS_ORDER_OFF || hang) {
		watch_settings = (struct ls_watch_settings){
			.order = order,
			.hang_ms = hang,
			.backend = ls_active_name,
			.with_threads = by_default,
		};
		ls_watch_configure(&watch_settings);
		hooks |= LS_HOOK_WATCH;
	}
	atomic_store_explicit(&ls_hooks, hooks, memory_order_relaxed);
}

static _Atomic int reported;

static void report_once(const char *line)
{
	if (!atomic_exchange(&reported, 1))
		ls_say(line);
}

/* "lockswap: arm NAME (I of N), key pid=12345: SETTINGS" and the
 * environment's values that the arm replaced. */
static size_t print_arm(char *line, size_t len)
{
	const struct ls_arm_choice *a = ls_arm_chosen();
	if (!a || len < 2)
		return 0;
	size_t n = (size_t)snprintf(line, len, "lockswap: arm %s (%u of %u), key %s%s%s: %s\n",
	                            a->name, a->index + 1, a->count, a->key,
	                            a->seeded ? " seed " : "=", a->key_value, a->settings);
	if (a->overrides[0] && n < len)
		n += (size_t)snprintf(line + n, len - n, "lockswap: arm %s replaces the "
		                      "environment's settings: %s\n", a->name, a->overrides);
	return n < len ? n : len - 1;
}

/* Appends k bytes of s at out + *n, NUL-terminated, if they fit in len. */
static bool append(char *out, size_t len, size_t *n, const char *s, size_t k)
{
	if (*n + k >= len)
		return false;
	memcpy(out + *n, s, k);
	*n += k;
	out[*n] = 0;
	return true;
}

/* " (ABOUT)\n" with each of a wrapper's "INNER"s replaced by the inner lock
 * that runs (ls_active_name is "capacitor:tts" even when "capacitor" was
 * given).  Returns the length written; len - 1 if it had to stop short
 * (the caller then ends the line itself). */
static size_t about_with_inner(char *out, size_t len, const char *about)
{
	const char *colon = strchr(ls_active_name, ':');
	const char *inner = colon ? colon + 1 : "INNER";
	size_t n = 0;
	bool fits = append(out, len, &n, " (", 2);
	for (const char *p = about; fits && *p;) {
		const char *mark = strstr(p, "INNER");
		size_t k = mark ? (size_t)(mark - p) : strlen(p);
		fits = append(out, len, &n, p, k) && (!mark || append(out, len, &n, inner, strlen(inner)));
		p = mark ? mark + 5 : p + k;
	}
	fits = fits && append(out, len, &n, ")\n", 2);
	return fits ? n : (len ? len - 1 : 0);
}

static void print_config(const struct ls_lock_ops *b)
{
	char line[4096];
	size_t n = (size_t)snprintf(line, sizeof line, "lockswap %s: backend=%s", LS_VERSION,
	                            ls_active_name);
	for (size_t i = 0; i < ls_option_count() && n < sizeof line; i++) {
		const struct ls_option *o = ls_option_at(i);
		if (o->kind == LS_OPT_BACKEND)
			continue;
		n += (size_t)snprintf(line + n, sizeof line - n, " %s=%s", o->name, ls_option_value(o));
	}
	if (n < sizeof line)
		n += about_with_inner(line + n, sizeof line - n, b->about);
	if (n >= sizeof line - 1)
		line[sizeof line - 2] = '\n', line[sizeof line - 1] = 0, n = sizeof line - 1;
	/* The arm's lines come after the configuration they explain. */
	print_arm(line + n, sizeof line - n);
	report_once(line);
}

const struct ls_lock_ops *ls_init(void)
{
	char err[LS_ERR_MAX], line[LS_ERR_MAX + 128];
	const char *missing = NULL;
	const struct ls_lock_ops *b = NULL;

	record_key_create();
	ls_cancel_install();
	ls_away_install();
	if (!ls_real_resolve(&missing)) {
		snprintf(line, sizeof line, "lockswap: cannot find glibc's %s; lockswap needs glibc >= 2.34\n", missing);
		report_once(line);
	} else {
		probe_cond_flags();
	}
	if (!ls_options_load(err, sizeof err)) {
		/* All or nothing (options.c): say so, or a user would look for
		 * the statistics file a correct LOCKSWAP_STATS_FILE names. */
		snprintf(line, sizeof line, "lockswap: %s; no LOCKSWAP_* setting applied, "
		         "running on glibc's own locks\n", err);
		report_once(line);
		b = &ls_backend_glibc;
		ls_rwlock_select(false);
	} else {
		ls_rwlock_select(true);
		/* Checking the options prepared every backend they name (the
		 * arms' too); only the one selected now may want delegation. */
		ls_home_delegation_wanted = false;
		b = ls_backend_select(ls_option_value(ls_option_find("BACKEND")), err, sizeof err);
		if (!b) /* cannot happen: the option check selected it already */
			b = &ls_backend_glibc;
	}
	/* Same text from every racing initialiser, written before the
	 * release below publishes it. */
	ls_backend_full_name(b == &ls_backend_glibc ? "glibc"
	                                            : ls_option_value(ls_option_find("BACKEND")),
	                     ls_active_name, sizeof ls_active_name);
	/* After ls_active_name, which it prints; off after a bad option
	 * (every target keeps its default). */
	if (atomic_load_explicit(&ls_opt_verbose, memory_order_relaxed))
		print_config(b);
	configure_stats();
	configure_hooks(b);
	const struct ls_lock_ops *expected = NULL;
	if (!atomic_compare_exchange_strong_explicit(&ls_active_backend, &expected, b,
	                                             memory_order_acq_rel, memory_order_acquire))
		return expected; /* another thread finished first: same answer */
	/* The statistics mode and the watch are chosen here, once: with
	 * both off plain mutexes go straight to the backend (or to glibc),
	 * and so do rwlocks; with statistics on each gate opens to its
	 * counting table (gate.h, rwlock_select.h), which counts uncontended
	 * acquisitions inline and sends every other call to the slow path;
	 * with the watch on, the mutex gate to the watching table (watching.h),
	 * which records uncontended acquisitions inline. */
	switch (atomic_load_explicit(&ls_hooks, memory_order_relaxed)) {
	case 0:
		ls_gate_open(b);
		ls_rwlock_gate_open();
		break;
	case LS_HOOK_STATS:
		ls_gate_open_counting(b);
		ls_rwlock_gate_open_counting();
		break;
	case LS_HOOK_WATCH:
		/* The rwlock gate stays closed: its slow paths serve the watch. */
		ls_gate_open_watching(b);
		break;
	default:
		/* Both: every call takes its slow path, which serves both. */
		break;
	}
	return b;
}

static void atfork_child(void)
{
	ls_home_after_fork();
	ls_thread_after_fork();
	ls_qnode_after_fork();
	ls_gate_after_fork();
	if (ls_observing())
		ls_stats_after_fork();
	if (ls_watching())
		ls_watch_after_fork();
}

__attribute__((constructor)) static void ls_constructor(void)
{
	ls_active();
	/* Registered here, not in ls_init: __register_atfork may allocate, and
	 * ls_init can run inside a preloaded allocator's own start-up. */
	pthread_atfork(ls_home_before_fork, NULL, atfork_child);
	ls_away_resolve();
	ls_away_signals_resolve();
	/* After the look-ups: the signal routing calls glibc's sigaction. */
	if (ls_home_delegation_wanted)
		ls_away_start_delegation();
	if (ls_observing())
		ls_stats_constructor();
	if (ls_watching())
		ls_watch_constructor();
}

__attribute__((destructor)) static void ls_destructor(void)
{
	if (ls_observing())
		ls_stats_exit();
	if (ls_watching())
		ls_watch_exit();
}
