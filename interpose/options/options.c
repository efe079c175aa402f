#include "options.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../backends/backend.h"
#include "../../backends/rwlock.h"
#include "../../core/runtime/spin.h"
#include "backend_hints.h"
#include "option_syntax.h"

/* LOCKSWAP_SPIN=adaptive stores the option's word (LS_OPT_UINT_WORD) in
 * ls_spin_limit, which core/runtime/wait.c reads as "no override"
 * (LS_SPIN_ADAPTIVE); core/ cannot include backends/, so the two stay
 * separate constants that must be one value. */
_Static_assert(LS_OPT_UINT_WORD == LS_SPIN_ADAPTIVE,
               "LOCKSWAP_SPIN's word must store core/runtime/spin.h's LS_SPIN_ADAPTIVE");

_Atomic unsigned ls_opt_verbose;
_Atomic unsigned ls_opt_stats, ls_opt_stats_top, ls_opt_stats_sample;
_Atomic unsigned ls_opt_stats_interval, ls_opt_stats_prom_sites;
_Atomic unsigned ls_opt_deadlock, ls_opt_hang_ms = LS_OPT_UINT_WORD;

static const struct ls_option shim_options[] = {
#define LS_OPTION(NAME, KIND, DEF, MIN, MAX, CHOICES, TARGET, HELP) \
	{ #NAME, KIND, DEF, MIN, MAX, CHOICES, TARGET, HELP },
#include "options.def"
#undef LS_OPTION
};
#define SHIM_COUNT (sizeof shim_options / sizeof shim_options[0])

/* The row index of each shim option, to place the settings after SPIN. */
enum {
#define LS_OPTION(NAME, KIND, DEF, MIN, MAX, CHOICES, TARGET, HELP) ROW_##NAME,
#include "options.def"
#undef LS_OPTION
};
#define SETTINGS_AT (ROW_SPIN + 1)

/* The algorithms' settings, walked in place: constant lists, no copy, so
 * this is safe before the constructor and from any thread.  Their count is
 * remembered (relaxed: every thread that counts finds the same number), so
 * that a look-up by index walks the settings once, not twice: start-up's
 * loops over every option (config.c) cost 40,000 instructions more without
 * it (callgrind, /bin/true). */
static _Atomic size_t settings_counted; /* the count + 1; 0: not yet */

static size_t settings_count(void)
{
	size_t known = atomic_load_explicit(&settings_counted, memory_order_relaxed);
	if (known)
		return known - 1;
	size_t n = 0;
	for (const struct ls_lock_ops *const *b = ls_backends; *b; b++)
		for (const struct ls_option *s = (*b)->settings; s && s->name; s++)
			n++;
	atomic_store_explicit(&settings_counted, n + 1, memory_order_relaxed);
	return n;
}

static const struct ls_option *setting_at(size_t i)
{
	for (const struct ls_lock_ops *const *b = ls_backends; *b; b++)
		for (const struct ls_option *s = (*b)->settings; s && s->name; s++)
			if (i-- == 0)
				return s;
	return NULL;
}

size_t ls_option_count(void)
{
	return SHIM_COUNT + settings_count();
}

const struct ls_option *ls_option_at(size_t i)
{
	if (i < SETTINGS_AT)
		return &shim_options[i];
	size_t n = settings_count();
	if (i < SETTINGS_AT + n)
		return setting_at(i - SETTINGS_AT);
	i -= n;
	return i < SHIM_COUNT ? &shim_options[i] : NULL;
}

/* One walk: a shim option's index from its place in its array, a
 * setting's from the settings before it.  It was a call of ls_option_at
 * for each index, itself a walk; start-up asks for every option's index
 * (an arm's value, config.c), and that cost every process the preload
 * enters 250,000 instructions (callgrind, /bin/true); ls_arm_value now asks
 * for it only where an arm was chosen. */
size_t ls_option_index(const struct ls_option *o)
{
	size_t n = settings_count();
	uintptr_t at = (uintptr_t)o, first = (uintptr_t)shim_options;
	if (at >= first && at < (uintptr_t)(shim_options + SHIM_COUNT)) {
		size_t i = (size_t)(o - shim_options);
		return i < SETTINGS_AT ? i : i + n;
	}
	size_t i = SETTINGS_AT;
	for (const struct ls_lock_ops *const *b = ls_backends; *b; b++)
		for (const struct ls_option *s = (*b)->settings; s && s->name; s++, i++)
			if (s == o)
				return i;
	return SHIM_COUNT + n;
}

#define PREFIX "LOCKSWAP_"

const struct ls_option *ls_option_find(const char *name)
{
	for (size_t i = 0, n = ls_option_count(); i < n; i++)
		if (strcmp(ls_option_at(i)->name, name) == 0)
			return ls_option_at(i);
	return NULL;
}

static bool parse_uint(const char *v, unsigned long *out)
{
	if (!*v || strlen(v) > 12)
		return false;
	unsigned long n = 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	*out = n;
	return true;
}

/* v equals word (lower case) but for the case of ASCII letters.  Not
 * strcasecmp: start-up checks every boolean option, and strcasecmp's code
 * and its locale's table are two pages of libc that a process seldom
 * touches otherwise, each a page fault in every process the preload enters
 * (core/runtime/cold.h: about 12 us each on the project's VM). */
static bool same_word(const char *v, const char *word)
{
	for (; *word; v++, word++)
		if ((*v >= 'A' && *v <= 'Z' ? *v - 'A' + 'a' : *v) != *word)
			return false;
	return !*v;
}

static int parse_bool(const char *v)
{
	static const char *const yes[] = { "1", "on", "yes", "true" };
	static const char *const no[] = { "0", "off", "no", "false" };
	for (int i = 0; i < 4; i++) {
		if (same_word(v, yes[i]))
			return 1;
		if (same_word(v, no[i]))
			return 0;
	}
	return -1;
}

/* Index of v among '|'-separated choices, or -1. */
static int parse_choice(const char *choices, const char *v)
{
	size_t len = strlen(v);
	int idx = 0;
	for (const char *p = choices; *p; idx++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		if (n == len && strncmp(p, v, n) == 0)
			return idx;
		if (!bar)
			break;
		p = bar + 1;
	}
	return -1;
}

/* 0 for text and backend names. */
unsigned long ls_option_number(const struct ls_option *o, const char *v)
{
	unsigned long n = 0;
	switch (o->kind) {
	case LS_OPT_UINT:
		if (*o->choices && parse_choice(o->choices, v) == 0)
			return LS_OPT_UINT_WORD;
		parse_uint(v, &n);
		return n;
	case LS_OPT_BOOL: return (unsigned long)parse_bool(v);
	case LS_OPT_CHOICE: return (unsigned long)parse_choice(o->choices, v);
	default: return 0;
	}
}

/* Free-text options whose text has a syntax of its own. */
static bool text_check(const struct ls_option *o, const char *v, char *why, size_t len)
{
	if (strcmp(o->name, "ARM_KEY") == 0)
		return ls_arm_key_check(v, why, len);
	if (strcmp(o->name, "STATS_FILE") == 0)
		return ls_output_path_check(v, ".json", why, len);
	if (strcmp(o->name, "STATS_FOLDED") == 0)
		return ls_output_path_check(v, ".folded", why, len);
	if (strcmp(o->name, "STATS_PROM") == 0)
		return ls_output_path_check(v, ".prom", why, len);
	if (strcmp(o->name, "STATS_SIGNAL") == 0)
		return ls_signal_option_check(v, why, len);
	return true;
}

bool ls_option_check_value(const struct ls_option *o, const char *v, char *err, size_t errlen)
{
	unsigned long n;
	char why[LS_ERR_MAX - 64];
	switch (o->kind) {
	case LS_OPT_UINT:
		if (parse_uint(v, &n) && n >= o->min && n <= o->max)
			return true;
		if (*o->choices && parse_choice(o->choices, v) == 0)
			return true;
		snprintf(why, sizeof why, "must be a whole number between %lu and %lu%s%s", o->min,
		         o->max, *o->choices ? ", or " : "", o->choices);
		break;
	case LS_OPT_BOOL:
		if (parse_bool(v) >= 0)
			return true;
		snprintf(why, sizeof why, "not a boolean (accepted: on, off, yes, no, true, false, 1, 0)");
		break;
	case LS_OPT_CHOICE: {
		if (parse_choice(o->choices, v) >= 0)
			return true;
		char list[256];
		snprintf(list, sizeof list, "%s", o->choices);
		for (char *p = list; *p; p++)
			if (*p == '|')
				*p = ',';
		snprintf(why, sizeof why, "not one of the accepted values (accepted: %s)", list);
		break;
	}
	case LS_OPT_BACKEND:
		if (ls_backend_check(v, why, sizeof why))
			return true;
		break;
	case LS_OPT_TEXT:
		if (strlen(v) >= LS_TEXT_MAX) {
			snprintf(why, sizeof why, "longer than %d characters", LS_TEXT_MAX - 1);
			break;
		}
		if (text_check(o, v, why, sizeof why))
			return true;
		break;
	case LS_OPT_ARMS:
		/* A list of arms is parsed by arms.c, which checks each of its
		 * settings here: config.c's ls_option_check sends it there. */
		if (!*v)
			return true;
		snprintf(why, sizeof why, "a list of arms is checked by ls_option_check (config.h)");
		break;
	}
	snprintf(err, errlen, PREFIX "%s='%.60s': %s", o->name, v, why);
	return false;
}
